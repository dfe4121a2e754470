/**
 * The esbuild settings of every Lambda bundle, shared by `npm run build` and the CDK stack so the two cannot
 * differ: ESM for Node.js 22, minified, the AWS SDK bundled (not taken from the runtime), a `require` shim
 * because some bundled dependencies still call it, and split into chunks: `index.mjs` and what it imports load
 * at start-up, and each module imported with `import()` is a chunk of its own, loaded at its first use.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

export const LAMBDA_NODE_TARGET = 'node22';

/** The credential provider every bundle uses (an absolute path: esbuild resolves aliases from its working directory). */
export const LAMBDA_CREDENTIALS = join(
  dirname(fileURLToPath(import.meta.url)),
  'lambda-credentials.ts',
);

/** `node:http` as CommonJS, not as an ESM namespace (lambda-node-http.cjs says why). */
export const LAMBDA_NODE_HTTP = join(
  dirname(fileURLToPath(import.meta.url)),
  'lambda-node-http.cjs',
);

/** The auth configuration's parser: JSON only, as the stack writes it (lambda-yaml.ts). */
export const LAMBDA_YAML = join(dirname(fileURLToPath(import.meta.url)), 'lambda-yaml.ts');

/** The bundle's entry in its directory: `index.mjs`, whose `handler` export Lambda calls (`index.handler`). */
export const LAMBDA_ENTRY_NAME = 'index';
export const LAMBDA_ENTRY_FILE = `${LAMBDA_ENTRY_NAME}.mjs`;

export const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Builds `entry` into `outdir`: `index.mjs` (or `<entryName>.mjs`), and `chunks/` for what it imports with
 * `import()`. Without splitting, esbuild would put those modules in the one file and wrap every module they
 * share with the rest in a lazy initializer, which cost more at start-up than it saved; with it, a module a
 * request may never need (the SQS client of the ledger's relay, Numscript, the AWS SDK's event streams) is not
 * even read until it is.
 */
export function lambdaBuildOptions(
  entry: string,
  outdir: string,
  options: { sourcemap?: boolean; entryName?: string } = {},
): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    entryNames: options.entryName ?? LAMBDA_ENTRY_NAME,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_NODE_TARGET,
    minify: true,
    sourcemap: options.sourcemap ?? false,
    legalComments: 'none',
    banner: { js: REQUIRE_BANNER },
    mainFields: ['module', 'main'],
    logLevel: 'warning',
    // Lambda's credentials are environment variables only: the SDK's default chain is replaced (lambda-credentials.ts);
    // node:http is required, not imported (lambda-node-http.cjs); the auth configuration arrives as JSON (lambda-yaml.ts).
    alias: {
      '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS,
      'node:http': LAMBDA_NODE_HTTP,
      yaml: LAMBDA_YAML,
    },
    // The routes' OpenAPI specs (`openapi(OPENAPI_SPECS && {...})`, lib/openapi/describe.ts): dead code once this is
    // false, dropped by the minifier. A function serves the documents written beside it at bundling time
    // (infra/openapi-assets.ts), so the specs would be text it parses on every cold start for nothing.
    define: { OPENAPI_SPECS: 'false' },
  };
}
