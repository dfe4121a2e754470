import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { createProtectedApp } from '../platform/protected-app.js';
import type { ServiceRuntime } from '../platform/runtime.js';
import { configSchemas, secretOverlapSecondsFromEnv } from './domain/config.js';
import { configRoutes } from './routes/configs.js';
import { ConfigStore } from './store/config-store.js';

export interface WebhooksAppOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The webhooks service (API.md §4): configurations so far; deliveries come next. */
export function createWebhooksApp(runtime: ServiceRuntime, options: WebhooksAppOptions = {}): Hono<AppEnv> {
  const store = new ConfigStore({
    doc: runtime.doc,
    table: runtime.config.tables.webhooks,
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const app = createProtectedApp('webhooks', runtime);
  configRoutes(app, {
    store,
    schemas: configSchemas(runtime.config.stage),
    secretOverlapSeconds: secretOverlapSecondsFromEnv(runtime.env),
  });
  return app;
}
