import { readFile } from 'node:fs/promises';
import { withBaseUrl } from './base-url.js';
import type { DocsSiteSources } from './site.js';

/** The files the auth function's bundle carries beside `index.mjs` (written by `infra/openapi-assets.ts`). */
export const DOCS_ASSETS_DIR = 'docs';
export const DOCUMENT_FILE = 'openapi.json';
export const SCALAR_FILE = 'scalar.js';

/**
 * The site's sources read from files (AWS: a function cannot reach the other services' apps in process, so the
 * merged document is generated when the auth function is bundled; the base URL is known only at run time).
 */
export function fileDocsSources(dir: URL, baseUrl: string): DocsSiteSources {
  return {
    document: async () =>
      withBaseUrl(JSON.parse(await readFile(new URL(DOCUMENT_FILE, dir), 'utf8')), baseUrl),
    scalarScript: () => readFile(new URL(SCALAR_FILE, dir)),
  };
}
