import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { createProtectedApp } from '../platform/protected-app.js';
import type { ServiceRuntime } from '../platform/runtime.js';
import { serverInfoRoute } from '../platform/server-info.js';
import { createSqsClient } from '../sqs/client.js';
import { ReplayRequests } from './deliveries/replay-requests.js';
import { DeliveryStore } from './deliveries/store.js';
import { configSchemas } from './domain/config.js';
import { configTestRoutes } from './routes/config-test.js';
import { configRoutes } from './routes/configs.js';
import { deliveryRoutes } from './routes/deliveries.js';
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
  const app = createProtectedApp('webhooks', runtime);
  serverInfoRoute(app);
  configRoutes(app, {
    deliveries,
    store,
    schemas: configSchemas(runtime.config.stage),
    secretOverlapSeconds: runtime.config.webhooks.secretOverlapSeconds,
  });
  configTestRoutes(app, {
    store,
    allowLoopback: runtime.config.webhooks.allowLoopback,
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
    sqs: createSqsClient(runtime.config.sqs),
    queueUrl: runtime.config.queues.deliveries,
    now: options.now ?? Date.now,
  });
  return app;
}
