import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import { inTokenEnvironment } from '../http/environment.js';
import type { AppEnv } from '../http/types.js';
import type { Logger } from '../observability/logger.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import { bigintDocumentClient, type ServiceRuntime } from '../runtime/runtime.js';
import { lazySqsClient } from '../sqs/lazy-client.js';
import type { LedgerRecord } from './domain/change.js';
import { accountRoutes } from './routes/accounts.js';
import { balanceHistoryRoutes } from './routes/balance-history.js';
import { bulkRoutes } from './routes/bulk.js';
import { infoRoutes } from './routes/info.js';
import { schemaRoutes } from './routes/ledger-schemas.js';
import { ledgerRoutes } from './routes/ledgers.js';
import { limitsRoutes } from './routes/limits.js';
import { logTransferRoutes } from './routes/log-transfer.js';
import { logRoutes } from './routes/logs.js';
import { mappingRoutes } from './routes/mapping.js';
import { metadataRoutes } from './routes/metadata.js';
import { monitorsRoutes } from './routes/monitors.js';
import { ledgerNotImplementedRoutes } from './routes/not-implemented.js';
import { pendingRoutes } from './routes/pending.js';
import { queryRoutes } from './routes/queries.js';
import { ledgerDocument } from './routes/schemas.js';
import { transactionRoutes } from './routes/transactions.js';
import { v1AccountRoutes } from './routes/v1-accounts.js';
import { v1InfoRoutes, v1LedgerRoutes } from './routes/v1-info.js';
import { v1LogRoutes } from './routes/v1-logs.js';
import { v1ScriptRoutes } from './routes/v1-script.js';
import { v1TransactionRoutes } from './routes/v1-transactions.js';
import { volumeRoutes } from './routes/volumes.js';
import { AccountReads } from './store/account-reads.js';
import { BucketTables } from './store/bucket-tables.js';
import { dynamoLedgerTable } from './store/dynamo-ledger-table.js';
import { EffectiveVolumeReads } from './store/effective-volume-reads.js';
import type { Head } from './store/head.js';
import { LedgerLookup } from './store/ledger-lookup.js';
import type { LedgerTable } from './store/ledger-table.js';
import { LogReads } from './store/log-reads.js';
import { MappingReads } from './store/mapping-reads.js';
import { LedgerRegistry } from './store/registry.js';
import { SchemaStore } from './store/schema-store.js';
import { tableScriptState } from './store/script-state.js';
import { settledReads } from './store/staged-reads.js';
import { LedgerStats } from './store/stats.js';
import { TransactionReads } from './store/transaction-reads.js';
import { VolumeReads } from './store/volume-reads.js';
import { LedgerWriter } from './store/writer.js';
import { EmbeddedGroupCommit } from './write/embedded.js';
import { LedgerCommands } from './write/ledger-commands.js';
import { LedgerRelay } from './write/relay.js';
import type { ReplyInbox } from './write/replies.js';
import { BULK_TIME_BUDGET_MS } from './write/run-bulk.js';
import { settleBatch } from './write/settle.js';

export interface LedgerAppOptions {
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The embedded engine (`npm start` by default): this process commits every write of a ledger through its own
   * group commit (write/embedded.ts) instead of committing directly and relaying busy writes through the queue.
   */
  embedded?: { logger?: Logger };
  /**
   * Routes of the ledger's API whose code lives in another folder (the exporters' and pipelines', mounted by
   * lib/assembly/ledger-app.ts): registered after the v2 routes, before the v1 routes.
   */
  mount?: (app: Hono<AppEnv>, parts: LedgerMountParts) => void;
}

/** What a mounted part of the ledger's API may use: the ledger's client, default table and ledger lookup. */
export interface LedgerMountParts {
  doc: DynamoDBDocumentClient;
  table: string;
  lookup: LedgerLookup;
  now: () => number;
}

/** The ledger service (docs/api.md §3). */
export function createLedgerApp(runtime: ServiceRuntime, options: LedgerAppOptions): Hono<AppEnv> {
  const { config } = runtime;
  const now = options.now ?? Date.now;
  // Amounts are read back as bigint (rule 1).
  const doc = bigintDocumentClient(runtime);
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  const registry = new LedgerRegistry(doc, buckets, config.ledger.transactionKeys);
  const lookup = new LedgerLookup(registry);
  const schemas = new SchemaStore(doc, tableFor, now);
  // A batch a stopped ledger writer left unsettled is settled by the next direct write or list (write/settle.ts).
  const settle = (ledger: LedgerRecord, table: string, head: Head) =>
    settleBatch(dynamoLedgerTable(doc, table, ledger), ledger, head, now());
  const writerAt = (clock: () => number) =>
    new LedgerWriter({
      doc,
      tableFor,
      now: clock,
      settle,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  const writer = writerAt(now);

  const app = ledgerFrame(runtime, options);
  // v1's `/_info` (with the ledger names) first: the v2 info routes answer `/v2/_info` and `/_/info`.
  v1InfoRoutes(app, { registry });
  infoRoutes(app);
  const stats = new LedgerStats(doc, tableFor);
  ledgerRoutes(app, { registry, lookup, stats, now });
  const { portOf, reads, effectiveVolumes, accounts, logs } = stateReads(doc, tableFor, config, {
    run: settle,
    now,
  });
  const scriptState = (ledger: LedgerRecord) =>
    tableScriptState(doc, tableFor(ledger.bucket), ledger);
  const commands = new LedgerCommands({
    writer,
    reads,
    now,
    scriptState,
    ...groupCommit(runtime, options, { doc, writer, tableFor, now }),
  });
  transactionRoutes(app, { lookup, schemas, commands, reads, stats, effectiveVolumes });
  metadataRoutes(app, { lookup, commands, schemas });
  const bulkDeps = { lookup, schemas, writer, commands, reads, scriptState };
  bulkRoutes(app, { ...bulkDeps, ...bulkBudget(runtime) });
  accountRoutes(app, { lookup, accounts, stats });
  balanceHistoryRoutes(app, { lookup, openReads: historyReads(doc, tableFor, portOf), now });
  const mappings = new MappingReads(doc, tableFor);
  limitsRoutes(app, { lookup, writer, mappings });
  monitorsRoutes(app, { lookup, writer, mappings });
  pendingRoutes(app, {
    lookup,
    commands,
    pendingReads: pendingReadsOf(doc, tableFor, portOf),
  });
  logRoutes(app, { lookup, logs });
  logTransferRoutes(app, {
    lookup,
    logs,
    reads,
    writerAt,
  });
  volumeAndSchemaRoutes(app, { doc, tableFor, lookup, schemas, now, portOf });
  options.mount?.(app, { doc, table: config.tables.ledger, lookup, now });
  // v1 routes last: `/:ledger/...` must never take a `/v2/...` or `/_info` request (docs/api.md §3.4).
  v1TransactionRoutes(app, { lookup, commands, reads, stats, writer, schemas });
  v1ScriptRoutes(app, { lookup, commands, schemas });
  v1AccountRoutes(app, { lookup, accounts, stats, commands, schemas });
  v1LogRoutes(app, { lookup, logs });
  v1LedgerRoutes(app, { lookup, stats });
  mappingRoutes(app, { lookup, writer, mappings });
  return app;
}

/**
 * The reads that serve ledger state, each a settled read: none shows part of an atomic bulk applied in parts
 * (store/staged-reads.ts). `portOf`: a ledger's table as the write engine's port.
 */
function stateReads(
  doc: DynamoDBDocumentClient,
  tableFor: (bucket: string) => string,
  config: ServiceRuntime['config'],
  settle: ConstructorParameters<typeof TransactionReads>[2],
) {
  const portOf = (ledger: LedgerRecord) => dynamoLedgerTable(doc, tableFor(ledger.bucket), ledger);
  const reads = settledReads(
    new TransactionReads(doc, tableFor, settle, config.ledgerScanReads),
    ['get', 'list', 'count', 'atPointInTime'],
    portOf,
  );
  const effectiveVolumes = settledReads(
    new EffectiveVolumeReads(doc, tableFor),
    ['ofTransactions', 'ofMoves'],
    portOf,
  );
  const accounts = settledReads(
    new AccountReads(doc, tableFor, config.ledgerScanReads),
    ['get', 'list', 'countListed', 'count', 'balances'],
    portOf,
  );
  const logs = settledReads(
    new LogReads(doc, tableFor, config.ledgerScanReads),
    ['list', 'after', 'count'],
    portOf,
  );
  return { portOf, reads, effectiveVolumes, accounts, logs };
}

/** The protected app, its document and 501s before the bearer check, and the request's environment scope. */
function ledgerFrame(runtime: ServiceRuntime, options: LedgerAppOptions): Hono<AppEnv> {
  const app = createProtectedApp('ledger', runtime, {
    beforeAuth: (a) => {
      serveDocument(a, ledgerDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      });
      ledgerNotImplementedRoutes(a);
    },
  });
  // The ledger's stores are built once and take their environment's credentials from the request's async scope.
  app.use('*', inTokenEnvironment);
  return app;
}

/**
 * How busy writes are grouped: the embedded engine commits every write in this process; otherwise, when the stack
 * gives the ledger an ingress queue, busy ledgers relay to the sequenced writer; neither: every write is direct.
 */
function groupCommit(
  runtime: ServiceRuntime,
  options: LedgerAppOptions,
  parts: {
    doc: ReturnType<typeof bigintDocumentClient>;
    writer: LedgerWriter;
    tableFor: (bucket: string) => string;
    now: () => number;
  },
): { relay?: LedgerRelay; embedded?: EmbeddedGroupCommit } {
  if (options.embedded) {
    const { logger } = options.embedded;
    return { embedded: new EmbeddedGroupCommit({ ...parts, ...(logger ? { logger } : {}) }) };
  }
  const { config } = runtime;
  const ingress = config.queues['ledger-ingress'];
  if (!ingress) return {};
  const sqs = lazySqsClient(config.sqs);
  let inbox: Promise<ReplyInbox> | undefined;
  const replies = () => {
    inbox ??= import('./write/replies.js').then(
      ({ ReplyInbox }) => new ReplyInbox({ sqs, ingressQueueUrl: ingress }),
    );
    return inbox;
  };
  return { relay: new LedgerRelay({ ...parts, sqs, queueUrl: ingress, inbox: replies }) };
}

/** Volumes, schemas and their query templates (v2.4); a query run is answered by the app's own list routes. */
function volumeAndSchemaRoutes(
  app: Hono<AppEnv>,
  deps: {
    doc: DynamoDBDocumentClient;
    tableFor: (bucket: string) => string;
    lookup: LedgerLookup;
    schemas: SchemaStore;
    now: () => number;
    portOf: (ledger: LedgerRecord) => LedgerTable;
  },
): void {
  const { doc, tableFor, lookup, schemas, now, portOf } = deps;
  volumeRoutes(app, {
    lookup,
    volumes: settledReads(new VolumeReads(doc, tableFor), ['list'], portOf),
  });
  schemaRoutes(app, { lookup, schemas, now });
  queryRoutes(app, { lookup, schemas, dispatch: async (request) => app.request(request) });
}

/** A bulk's time budget where the ledger sits behind a gateway that times out: when it relays (AWS, workers). */
const bulkBudget = (runtime: ServiceRuntime) =>
  runtime.config.queues['ledger-ingress'] ? { timeBudgetMs: BULK_TIME_BUDGET_MS } : {};

/** The pending transfers' store, imported at its first request, its reads settled as the others. */
function pendingReadsOf(
  doc: DynamoDBDocumentClient,
  tableFor: (bucket: string) => string,
  portOf: (ledger: LedgerRecord) => LedgerTable,
) {
  return async () =>
    settledReads(
      new (await import('./store/pending-reads.js')).PendingReads(doc, tableFor),
      ['get', 'list', 'balances'],
      portOf,
    );
}

/** The balance history's store, imported at its first request (most containers never serve one). */
function historyReads(
  doc: DynamoDBDocumentClient,
  tableFor: (bucket: string) => string,
  portOf: (ledger: LedgerRecord) => LedgerTable,
) {
  return () =>
    import('./store/balance-history.js').then((m) =>
      settledReads(new m.BalanceHistoryReads(doc, tableFor), ['page'], portOf),
    );
}
