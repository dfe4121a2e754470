/**
 * The OpenAPI files the Lambda bundles carry beside their `index.mjs`, written when the stack bundles them
 * (run after esbuild by the stack's bundling, infra/stacks/function-code.ts), generated from the apps' routes as the local
 * platform generates them, so no bundle carries the generator (`@valibot/to-json-schema`):
 *
 * - `openapi/<service>.json`: a service function's own document (`GET /api/<service>/openapi.json`), the platform
 *   service's (`openapi/platform.json`) included;
 * - `docs/openapi.json` and `docs/scalar.js`, for the auth function's `/docs` and `/openapi.json`: every service's
 *   document merged, and Scalar's standalone bundle (vendor/scalar/).
 *
 *   npx tsx infra/openapi-assets.ts <bundle directory> [--service <name>]... [--docs-site]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Hono } from 'hono';
import { assembleLedgerApp } from '../lib/assembly/ledger-app.js';
import { assemblePlatformApp } from '../lib/assembly/platform-app.js';
import { createAuthApp } from '../lib/auth/app.js';
import { platformConfigFromVariables } from '../lib/config/env.js';
import type { HonoTypes } from '../lib/http/types.js';
import type { OpenApiDocument } from '../lib/openapi/document.js';
import {
  DOCUMENTED_SERVICES,
  type DocumentedService,
  SERVICE_DOCUMENTS_DIR,
  serviceDocumentFile,
} from '../lib/openapi/document-source.js';
import { generatedDocuments } from '../lib/openapi/generated-documents.js';
import { platformDocument } from '../lib/openapi/platform-document.js';
import { readVendoredScalar } from '../lib/openapi/scalar-asset.js';
import { DOCUMENT_PATH } from '../lib/openapi/serve.js';
import { DOCS_ASSETS_DIR, DOCUMENT_FILE, SCALAR_FILE } from '../lib/openapi/site-files.js';
import { createPaymentsApp } from '../lib/payments/app.js';
import { tableVariables } from '../lib/resources/definitions.js';
import { createRuntime } from '../lib/runtime/runtime.js';
import { createVersionsApp } from '../lib/runtime/versions.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';

/** The base URL the generated documents name until the function serving them replaces it with its own. */
export const PLACEHOLDER_BASE_URL = 'https://platform.invalid';

/**
 * The service apps (the four and the platform's) and the `/versions` app, built as the functions build them, on a configuration whose
 * tables and queues nobody reads: a document comes from the routes alone, with no I/O.
 */
export function appsWithoutIo(baseUrl = PLACEHOLDER_BASE_URL): {
  services: Record<DocumentedService, Hono<HonoTypes>>;
  versions: Hono;
} {
  const runtime = runtimeWithoutIo(baseUrl);
  const documents = generatedDocuments;
  return {
    services: {
      auth: createAuthApp({ runtime, documents, authConfig: { clients: [], resources: [] } }),
      ledger: assembleLedgerApp(runtime, { documents }),
      webhooks: createWebhooksApp(runtime, { documents }),
      payments: createPaymentsApp(runtime, { documents }),
      platform: assemblePlatformApp({ runtime, documents }),
    },
    versions: createVersionsApp({ env: 'dev', region: 'us-east-1', probes: [] }),
  };
}

function runtimeWithoutIo(baseUrl: string) {
  return createRuntime(
    platformConfigFromVariables({
      STAGE: 'dev',
      PUBLIC_BASE_URL: baseUrl,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDDOCUMENTONLY',
      AWS_SECRET_ACCESS_KEY: 'document-only',
      LOG_LEVEL: 'silent',
      DELIVERIES_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/never-used',
      ...tableVariables('openapi-document-'),
    }),
  );
}

export async function offlinePlatformDocument(
  baseUrl = PLACEHOLDER_BASE_URL,
): Promise<OpenApiDocument> {
  const { services, versions } = appsWithoutIo(baseUrl);
  return platformDocument(services, [versions], baseUrl);
}

/** A service's own document, as its app serves it when it generates it (the function sets its base URL). */
export async function offlineServiceDocument(
  service: DocumentedService,
  baseUrl = PLACEHOLDER_BASE_URL,
): Promise<OpenApiDocument> {
  const app = appsWithoutIo(baseUrl).services[service];
  const res = await app.request(`/api/${service}${DOCUMENT_PATH}`);
  if (res.status !== 200) throw new Error(`openapi: ${service} answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** `<bundleDir>/openapi/<service>.json`, read by the service's function (lib/openapi/document-source.ts). */
export async function writeServiceDocument(
  bundleDir: string,
  service: DocumentedService,
): Promise<void> {
  const dir = join(bundleDir, SERVICE_DOCUMENTS_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, serviceDocumentFile(service)),
    JSON.stringify(await offlineServiceDocument(service)),
  );
}

/** `<bundleDir>/docs/`: the merged document and Scalar's bundle (lib/openapi/site-files.ts). */
export async function writeDocsAssets(bundleDir: string): Promise<void> {
  const dir = join(bundleDir, DOCS_ASSETS_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, DOCUMENT_FILE), JSON.stringify(await offlinePlatformDocument()));
  await writeFile(join(dir, SCALAR_FILE), await readVendoredScalar());
}

const isService = (name: string): name is DocumentedService =>
  (DOCUMENTED_SERVICES as readonly string[]).includes(name);

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const usage =
    'usage: tsx infra/openapi-assets.ts <bundle directory> [--service <name>]... [--docs-site]\n';
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      service: { type: 'string', multiple: true },
      'docs-site': { type: 'boolean' },
    },
  });
  const services = values.service ?? [];
  const [bundleDir] = positionals;
  if (!bundleDir || positionals.length > 1 || !services.every(isService)) {
    process.stderr.write(usage);
    process.exit(2);
  }
  for (const service of services) await writeServiceDocument(bundleDir, service);
  if (values['docs-site']) await writeDocsAssets(bundleDir);
}
