import type { Hono } from 'hono';
import type { HonoTypes } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import { bigintDocumentClients, type ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { dummypaySettings } from './domain/connectors/dummypay-directory.js';
import { accountRoutes } from './routes/accounts.js';
import { bankAccountRoutes } from './routes/bank-accounts.js';
import { connectorRoutes } from './routes/connectors.js';
import { forwardingRoutes } from './routes/forwarding.js';
import { notImplementedRoutes, partlyImplementedRoutes } from './routes/not-implemented.js';
import { openBankingCallbackRoute, openBankingRoutes } from './routes/open-banking.js';
import { paymentInitiationRoutes } from './routes/payment-initiations.js';
import { paymentServiceUserRoutes } from './routes/payment-service-users.js';
import { paymentRoutes } from './routes/payments.js';
import { poolRoutes } from './routes/pools.js';
import { providerWebhookRoutes } from './routes/provider-webhooks.js';
import { paymentsDocument } from './routes/schemas.js';
import { storesOfRequest } from './routes/stores-of.js';
import { connectorV1Routes } from './routes/v1/v1-connectors.js';
import { accountV1Routes, paymentV1Routes } from './routes/v1/v1-payments.js';
import { poolV1Routes } from './routes/v1/v1-pools.js';
import { bankAccountV1Routes } from './routes/v1/v1-records.js';
import { transferInitiationV1Routes } from './routes/v1/v1-transfers.js';
import { paymentsStores } from './store/stores.js';

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
): Hono<HonoTypes> {
  const { tables } = runtime.config;
  // Amounts are read back as bigint so they stay exact.
  const { clients } = bigintDocumentClients(runtime);
  // The one way to an environment's payments: its stores, over its client. Each request's are those of its token's
  // environment (`environmentOf`, routes/stores-of.ts).
  const storesOf = (environment: string) =>
    paymentsStores(
      {
        doc: clients.forEnvironment(environment),
        table: tables.payments,
        eventsTable: tables.events,
        ...(options.now ? { now: options.now } : {}),
        ...(options.sleep ? { sleep: options.sleep } : {}),
      },
      environment,
    );
  const storeOf = (environment: string) => storesOf(environment).payments;
  const dummypay = dummypaySettings(runtime.config);
  const deps = {
    fetch: globalThis.fetch,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    dummypay,
  };
  // The 501s come before the bearer check: they reveal nothing but the API's shape, and SDK 7.0.1 sends no token
  // for some of those operations (it declares no security on them).
  const app = createProtectedApp('payments', runtime, {
    beforeAuth: (a) => {
      serveDocument(a, paymentsDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      });
      notImplementedRoutes(a);
      openBankingCallbackRoute(a, storesOf, deps);
      providerWebhookRoutes(a);
    },
  });
  serverInfoRoute(app, 'payments');
  paymentRoutes(app, { storeOf });
  const stores = storesOfRequest(storesOf);
  accountRoutes(app, stores);
  bankAccountRoutes(app, stores);
  paymentServiceUserRoutes(app, stores);
  poolRoutes(app, stores);
  connectorRoutes(app, stores, dummypay);
  paymentInitiationRoutes(app, stores, deps);
  forwardingRoutes(app, stores, deps);
  openBankingRoutes(app, stores, deps, { publicBaseUrl: runtime.config.publicBaseUrl });
  // v1: the same records and commands in the v1 shapes (routes/v1, domain/v1).
  paymentV1Routes(app, stores);
  accountV1Routes(app, stores);
  bankAccountV1Routes(app, stores, deps);
  poolV1Routes(app, stores);
  connectorV1Routes(app, stores, dummypay, deps);
  transferInitiationV1Routes(app, stores, deps);
  partlyImplementedRoutes(app);
  return app;
}
