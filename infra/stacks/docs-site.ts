import { DOCS_ASSETS_DIR } from '../../lib/openapi/site-files.js';

/**
 * The commands that put the API reference's files beside the auth function's bundle (NodejsFunction's
 * `afterBundling` hook, run where the stack is synthesized): the merged OpenAPI document generated from the
 * routes, and Scalar's standalone bundle. They are read from disk on request (lib/openapi/site-files.ts), so
 * the function's `index.mjs` and its cold start carry none of their 4.5 MB.
 */
export function docsSiteAssets(inputDir: string, outputDir: string): string[] {
  return [
    `cd "${inputDir}" && npx --no-install tsx infra/openapi-assets.ts "${outputDir}/${DOCS_ASSETS_DIR}"`,
  ];
}
