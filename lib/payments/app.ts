import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import { bigintDocumentClient, type ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { notImplementedRoutes } from './routes/not-implemented.js';
import { paymentRoutes } from './routes/payments.js';
import { paymentsDocument } from './routes/schemas.js';
import { PaymentStore } from './store/payment-store.js';

export interface PaymentsAppOptions {
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The payments service (docs/api.md §6). */
export function createPaymentsApp(
  runtime: ServiceRuntime,
  options: PaymentsAppOptions,
): Hono<AppEnv> {
  const { tables } = runtime.config;
  // Amounts are read back as bigint (rule 1).
  const doc = bigintDocumentClient(runtime);
  // Each request's payments are those of its token's environment (`environmentOf`, routes/payments.ts).
  const storeOf = (environment: string) =>
    new PaymentStore({
      doc,
      table: tables.payments,
      eventsTable: tables.events,
      environment,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  // The 501s come before the bearer check: they reveal nothing but the API's shape, and SDK 7.0.1 sends no token
  // for some of those operations (it declares no security on them).
  const app = createProtectedApp('payments', runtime, {
    beforeAuth: (a) => {
      serveDocument(a, paymentsDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      });
      notImplementedRoutes(a);
    },
  });
  serverInfoRoute(app, 'payments');
  paymentRoutes(app, { storeOf });
  return app;
}
