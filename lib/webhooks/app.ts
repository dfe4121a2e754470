import type { Hono } from 'hono';
import type { HonoTypes } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { lazySqsClient } from '../sqs/lazy-client.js';
import { webhooksScope } from './environment-stores.js';
import { configTestRoutes } from './routes/config-test.js';
import { configRoutes } from './routes/configs.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { eventTypeRoutes } from './routes/event-types.js';
import { configSchemas } from './routes/requests.js';
import { webhooksDocument } from './routes/schemas.js';
import { DeliveryQueue } from './store/delivery-queue.js';

export interface WebhooksAppOptions {
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The webhooks service (docs/api.md §4): configurations and deliveries, each request in the environment its token
 * names and no other (`environmentOf`, `webhooksScope`).
 */
export function createWebhooksApp(
  runtime: ServiceRuntime,
  options: WebhooksAppOptions,
): Hono<HonoTypes> {
  const now = options.now ?? Date.now;
  const queueUrl = runtime.config.queues.deliveries;
  const scope = webhooksScope({
    clients: runtime.clients,
    table: runtime.config.tables.webhooks,
    queue: queueUrl
      ? new DeliveryQueue({ sqs: lazySqsClient(runtime.config.sqs), queueUrl })
      : undefined,
    now,
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const app = createProtectedApp('webhooks', runtime, {
    beforeAuth: (a) =>
      serveDocument(a, webhooksDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      }),
  });
  serverInfoRoute(app, 'webhooks');
  configRoutes(app, {
    scope,
    schemas: configSchemas(runtime.config.stage),
    secretOverlapSeconds: runtime.config.webhooks.secretOverlapSeconds,
  });
  configTestRoutes(app, {
    scope,
    allowLoopback: runtime.config.webhooks.allowLoopback,
    headerSets: runtime.config.webhooks.headerSets,
    now,
  });
  deliveryRoutes(app, { scope });
  eventTypeRoutes(app, { document: () => options.documents(webhooksDocument, app) });
  return app;
}
