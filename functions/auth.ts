import { Hono } from 'hono';
import { createAuthApp } from '../lib/auth/app.js';
import { platformConfigFromVariables } from '../lib/config/env.js';
import { handleHttpApi } from '../lib/http/lambda-handle.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { prebuiltDocuments, SERVICE_DOCUMENTS_DIR } from '../lib/openapi/document-source.js';
import { createDocsSite } from '../lib/openapi/site.js';
import { DOCS_ASSETS_DIR, fileDocsSources } from '../lib/openapi/site-files.js';
import { createRuntime } from '../lib/runtime/runtime.js';
import { tableProbes } from '../lib/runtime/table-probes.js';
import { createVersionsApp } from '../lib/runtime/versions.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const runtime = createRuntime(platformConfigFromVariables());
// Its own OpenAPI document, and the merged one of `/docs`, were generated when the function was bundled and are
// read from beside it (infra/openapi-assets.ts): the generator stays out of the bundle.
const auth = createAuthApp({
  runtime,
  documents: prebuiltDocuments(new URL(`./${SERVICE_DOCUMENTS_DIR}/`, import.meta.url)),
});
// The API routes the public `GET /versions` here too (infra/stacks/platform-stack.ts): the auth function is
// the one whose routes are public already.
const versions = createVersionsApp({
  env: runtime.config.stage,
  region: runtime.config.region,
  probes: tableProbes(runtime.doc, runtime.config),
});
// `/docs` and `/openapi.json` too, from the files bundled beside this function (infra/stacks/bundled-files.ts, `docsSite`).
const docs = createDocsSite(
  fileDocsSources(new URL(`./${DOCS_ASSETS_DIR}/`, import.meta.url), runtime.config.publicBaseUrl),
);
const app = new Hono<{ Bindings: Record<string, unknown> }>()
  .route('/', versions)
  .route('/', docs)
  .all('*', (c) => auth.fetch(c.req.raw, c.env));

export const handler = withObservability(handleHttpApi(app));
