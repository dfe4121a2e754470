import type { DocumentedService } from '../../lib/openapi/document-source.js';
import type { FunctionName } from './functions.js';

/**
 * The commands that put files beside a function's bundle (run after esbuild by infra/stacks/function-code.ts, where the
 * stack is synthesized, from the project's root). The functions read them from disk at their first request
 * for them, so their `index.mjs` and its cold start carry none of it.
 */
export type AfterBundling = (inputDir: string, outputDir: string) => string[];

/**
 * OpenAPI, generated from the routes (infra/openapi-assets.ts): each of `services`' own document
 * (`openapi/<service>.json`, lib/openapi/document-source.ts), and with `docsSite` the API reference's files
 * (`docs/`: the merged document and Scalar's 4.3 MB standalone bundle, lib/openapi/site-files.ts).
 */
export function openApiFiles(options: {
  services: DocumentedService[];
  docsSite?: boolean;
}): AfterBundling {
  const args = [
    ...options.services.map((service) => `--service ${service}`),
    ...(options.docsSite ? ['--docs-site'] : []),
  ].join(' ');
  return (inputDir, outputDir) => [
    `cd "${inputDir}" && npx --no-install tsx infra/openapi-assets.ts "${outputDir}" ${args}`,
  ];
}

/**
 * The console's page and content-hashed assets (`npm run console:build`, lib/console/build-command.ts) at the
 * root of the bundle's directory, beside `index.mjs`, where its function reads them (lib/console/files.ts).
 */
export const consoleFiles: AfterBundling = (inputDir, outputDir) => [
  `cd "${inputDir}" && npx --no-install tsx lib/console/build-command.ts "${outputDir}"`,
];

/** What each function carries beside its bundle, for the stack and `npm run build` alike. */
export const BUNDLED_FILES: Partial<Record<FunctionName, AfterBundling>> = {
  auth: openApiFiles({ services: ['auth'], docsSite: true }),
  ledger: openApiFiles({ services: ['ledger'] }),
  payments: openApiFiles({ services: ['payments'] }),
  webhooks: openApiFiles({ services: ['webhooks'] }),
  platform: openApiFiles({ services: ['platform'] }),
  console: consoleFiles,
};
