/**
 * The API reference's files for the auth function (AWS), written beside its bundle when the stack bundles it
 * (infra/stacks/docs-site.ts): `openapi.json`, every service's document merged, generated from the apps' routes
 * as the local platform generates it; and `scalar.js`, Scalar's standalone bundle from node_modules.
 *
 *   npx tsx infra/openapi-assets.ts <directory>
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Hono } from 'hono';
import { createAuthApp } from '../lib/auth/app.js';
import { platformConfigFromEnv } from '../lib/config/env.js';
import { createLedgerApp } from '../lib/ledger/app.js';
import type { OpenApiDocument } from '../lib/openapi/document.js';
import { scalarPackageFile } from '../lib/openapi/scalar-asset.js';
import { platformDocument } from '../lib/openapi/site.js';
import { DOCUMENT_FILE, SCALAR_FILE } from '../lib/openapi/site-files.js';
import { createPaymentsApp } from '../lib/payments/app.js';
import { createRuntime } from '../lib/platform/runtime.js';
import { createVersionsApp } from '../lib/platform/versions.js';
import { tableEnvironment } from '../lib/resources/definitions.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';

/** The base URL the generated document names until the site replaces it with the deployment's own. */
export const PLACEHOLDER_BASE_URL = 'https://platform.invalid';

/**
 * The four service apps and the `/versions` app, built as the functions build them, on a configuration whose
 * tables and queues nobody reads: a document comes from the routes alone, with no I/O.
 */
export function appsWithoutIo(baseUrl = PLACEHOLDER_BASE_URL): {
  services: Record<string, Hono<any>>;
  versions: Hono;
} {
  const runtime = createRuntime(
    platformConfigFromEnv({
      STAGE: 'dev',
      PUBLIC_BASE_URL: baseUrl,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDDOCUMENTONLY',
      AWS_SECRET_ACCESS_KEY: 'document-only',
      LOG_LEVEL: 'silent',
      DELIVERIES_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/never-used',
      ...tableEnvironment('openapi-document-'),
    }),
  );
  return {
    services: {
      auth: createAuthApp({ runtime, authConfig: { clients: [], resources: [] } }),
      ledger: createLedgerApp(runtime),
      webhooks: createWebhooksApp(runtime),
      payments: createPaymentsApp(runtime),
    },
    versions: createVersionsApp({ env: 'dev', region: 'us-east-1', probes: [] }),
  };
}

export async function offlinePlatformDocument(
  baseUrl = PLACEHOLDER_BASE_URL,
): Promise<OpenApiDocument> {
  const { services, versions } = appsWithoutIo(baseUrl);
  return platformDocument(services, [versions], baseUrl);
}

export async function writeDocsAssets(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, DOCUMENT_FILE), JSON.stringify(await offlinePlatformDocument()));
  await copyFile(scalarPackageFile(), join(dir, SCALAR_FILE));
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: tsx infra/openapi-assets.ts <directory>\n');
    process.exit(2);
  }
  await writeDocsAssets(dir);
}
