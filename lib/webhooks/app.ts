import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { createSqsClient } from '../sqs/client.js';
import { DeliveryReplays } from './commands/replay.js';
import { configSchemas } from './domain/config.js';
import { configTestRoutes } from './routes/config-test.js';
import { configRoutes } from './routes/configs.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { webhooksDocument } from './routes/schemas.js';
import { ConfigStore } from './store/config-store.js';
import { DeliveryQueue } from './store/delivery-queue.js';
import { DeliveryStore } from './store/delivery-store.js';
import { ReplayRequests } from './store/replay-requests.js';

export interface WebhooksAppOptions {
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The webhooks service (docs/api.md §4): configurations and deliveries. */
export function createWebhooksApp(
  runtime: ServiceRuntime,
  options: WebhooksAppOptions,
): Hono<AppEnv> {
  const now = options.now ?? Date.now;
  const table = runtime.config.tables.webhooks;
  const store = new ConfigStore({
    doc: runtime.doc,
    table,
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const deliveries = new DeliveryStore({ doc: runtime.doc, table });
  const queueUrl = runtime.config.queues.deliveries;
  const app = createProtectedApp('webhooks', runtime, {
    beforeAuth: (a) =>
      serveDocument(a, webhooksDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      }),
  });
  serverInfoRoute(app, 'webhooks');
  configRoutes(app, {
    deliveries,
    store,
    schemas: configSchemas(runtime.config.stage),
    secretOverlapSeconds: runtime.config.webhooks.secretOverlapSeconds,
  });
  configTestRoutes(app, {
    configs: store,
    allowLoopback: runtime.config.webhooks.allowLoopback,
    now,
  });
  deliveryRoutes(app, {
    deliveries,
    replays: new DeliveryReplays({
      deliveries,
      configs: store,
      queue: queueUrl
        ? new DeliveryQueue({ sqs: createSqsClient(runtime.config.sqs), queueUrl })
        : undefined,
      requests: new ReplayRequests({ doc: runtime.doc, table, now }),
      now,
    }),
  });
  return app;
}
