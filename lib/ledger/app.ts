import type { Hono } from 'hono';
import { createDocumentClient } from '../dynamo/client.js';
import type { AppEnv } from '../http/types.js';
import { createProtectedApp } from '../platform/protected-app.js';
import type { ServiceRuntime } from '../platform/runtime.js';
import { infoRoutes } from './routes/info.js';
import { ledgerRoutes } from './routes/ledgers.js';
import { transactionRoutes } from './routes/transactions.js';
import { BucketTables } from './store/bucket-tables.js';
import { LedgerLookup } from './store/ledger-lookup.js';
import { LedgerRegistry } from './store/registry.js';
import { LedgerStats } from './store/stats.js';
import { TransactionReads } from './store/transaction-reads.js';
import { LedgerWriter } from './store/writer.js';

export interface LedgerAppOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The ledger service (API.md §3). */
export function createLedgerApp(runtime: ServiceRuntime, options: LedgerAppOptions = {}): Hono<AppEnv> {
  const { config, env } = runtime;
  const now = options.now ?? Date.now;
  // Amounts are read back as bigint (rule 1): this service has its own document client for that.
  const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  const buckets = BucketTables.fromEnv(config.tables.ledger, env.LEDGER_BUCKET_TABLES);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  const registry = new LedgerRegistry(doc, buckets);
  const lookup = new LedgerLookup(registry);
  const writer = new LedgerWriter({ doc, tableFor, eventsTable: config.tables.events, now, ...(options.sleep ? { sleep: options.sleep } : {}) });

  const app = createProtectedApp('ledger', runtime);
  infoRoutes(app);
  ledgerRoutes(app, { registry, lookup, stats: new LedgerStats(doc, tableFor), tableFor, now });
  transactionRoutes(app, { lookup, writer, reads: new TransactionReads(doc, tableFor) });
  return app;
}
