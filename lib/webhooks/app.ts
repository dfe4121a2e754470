import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../platform/protected-app.js';
import type { ServiceRuntime } from '../platform/runtime.js';
import { serverInfoRoute } from '../platform/server-info.js';
import { sqsClientFromEnv } from '../sqs/client.js';
import { ReplayRequests } from './deliveries/replay-requests.js';
import { DeliveryStore } from './deliveries/store.js';
import { configSchemas, secretOverlapSecondsFromEnv } from './domain/config.js';
import { configTestRoutes } from './routes/config-test.js';
import { configRoutes } from './routes/configs.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { webhooksDocument } from './routes/schemas.js';
import { ConfigStore } from './store/config-store.js';

export interface WebhooksAppOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The webhooks service (API.md §4): configurations and deliveries. */
export function createWebhooksApp(
  runtime: ServiceRuntime,
  options: WebhooksAppOptions = {},
): Hono<AppEnv> {
  const store = new ConfigStore({
    doc: runtime.doc,
    table: runtime.config.tables.webhooks,
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const deliveries = new DeliveryStore({ doc: runtime.doc, table: runtime.config.tables.webhooks });
  const app = createProtectedApp('webhooks', runtime, {
    beforeAuth: (a) =>
      serveDocument(a, { ...webhooksDocument, baseUrl: runtime.config.publicBaseUrl }),
  });
  serverInfoRoute(app, 'webhooks');
  configRoutes(app, {
    deliveries,
    store,
    schemas: configSchemas(runtime.config.stage),
    secretOverlapSeconds: secretOverlapSecondsFromEnv(runtime.env),
  });
  configTestRoutes(app, {
    store,
    allowLoopback: runtime.config.stage === 'local',
    now: options.now ?? Date.now,
  });
  deliveryRoutes(app, {
    deliveries,
    configs: store,
    replays: new ReplayRequests({
      doc: runtime.doc,
      table: runtime.config.tables.webhooks,
      now: options.now ?? Date.now,
    }),
    sqs: sqsClientFromEnv(runtime.env),
    queueUrl: runtime.config.queues.deliveries,
    now: options.now ?? Date.now,
  });
  return app;
}
