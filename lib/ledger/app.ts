import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import type { HonoTypes } from '../http/types.js';
import type { Logger } from '../observability/logger.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { createProtectedApp } from '../runtime/protected-app.js';
import { bigintDocumentClients, type ServiceRuntime } from '../runtime/runtime.js';
import { lazySqsClient } from '../sqs/lazy-client.js';
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
import {
  type LedgerScope,
  type LedgerScopeParts,
  type LedgerScopes,
  ledgerScopes,
} from './scope.js';
import { BucketTables } from './store/bucket-tables.js';
import type { EmbeddedGroupCommit, EmbeddedOptions } from './write/embedded.js';
import { LedgerRelay } from './write/relay.js';
import type { ReplyInbox } from './write/replies.js';

/** The embedded engine: the class (write/embedded.ts, `EmbeddedGroupCommit`), its logger and landing hook. */
export interface EmbeddedChoice {
  engine: new (options: EmbeddedOptions) => EmbeddedGroupCommit;
  logger?: Logger;
  afterLanding?: () => Promise<void>;
}

export interface LedgerAppOptions {
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The embedded engine (`npm start` by default): this process commits every write of a ledger through its own
   * group commit (write/embedded.ts) instead of committing directly and relaying busy writes through the queue.
   * Its class comes from the caller, so the Lambda bundles never carry it.
   */
  embedded?: EmbeddedChoice;
  /**
   * Routes of the ledger's API whose code lives in another folder (the exporters' and pipelines', mounted by
   * lib/assembly/ledger-app.ts): registered after the v2 routes, before the v1 routes.
   */
  mount?: (app: Hono<HonoTypes>, parts: LedgerMountParts) => void;
}

/** What a mounted part of the ledger's API may use: an environment's client and ledger lookup (scope.ts). */
export interface LedgerMountParts {
  scopeFor: (environment: string) => Pick<LedgerScope, 'doc' | 'lookup'>;
  /** The default ledger table. */
  table: string;
  now: () => number;
}

/** The ledger service (docs/api.md §3). */
export function createLedgerApp(
  runtime: ServiceRuntime,
  options: LedgerAppOptions,
): Hono<HonoTypes> {
  const { config } = runtime;
  const now = options.now ?? Date.now;
  // Amounts are read back as bigint so they stay exact at any size.
  const { clients } = bigintDocumentClients(runtime);
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  // The embedded engine's lines commit through their environment's scope too (read when a line starts, after this).
  const clientFor = (environment: string) => scopes.forEnvironment(environment).doc;
  const scopes: LedgerScopes = ledgerScopes({
    clients,
    buckets,
    transactionKeys: config.ledger.transactionKeys,
    scanReads: config.ledgerScanReads,
    now,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...groupCommit(runtime, options, { clientFor, tableFor: (b) => buckets.tableFor(b), now }),
  });
  // Every route takes its stores from the request: its token's environment's (scope.ts).
  const scopeOf = scopes.of;

  const app = ledgerFrame(runtime, options);
  // v1's `/_info` (with the ledger names) first: the v2 info routes answer `/v2/_info` and `/_/info`.
  v1InfoRoutes(app, scopeOf);
  infoRoutes(app);
  ledgerRoutes(app, scopeOf);
  transactionRoutes(app, scopeOf);
  metadataRoutes(app, scopeOf);
  bulkRoutes(app, scopeOf);
  accountRoutes(app, scopeOf);
  balanceHistoryRoutes(app, scopeOf);
  limitsRoutes(app, scopeOf);
  monitorsRoutes(app, scopeOf);
  pendingRoutes(app, scopeOf);
  logRoutes(app, scopeOf);
  logTransferRoutes(app, scopeOf);
  volumeRoutes(app, scopeOf);
  schemaRoutes(app, scopeOf);
  queryRoutes(app, (c) => ({ ...scopeOf(c), dispatch: async (request) => app.request(request) }));
  options.mount?.(app, { scopeFor: scopes.forEnvironment, table: config.tables.ledger, now });
  // v1 routes last: `/:ledger/...` must never take a `/v2/...` or `/_info` request (docs/api.md §3.4).
  v1TransactionRoutes(app, scopeOf);
  v1ScriptRoutes(app, scopeOf);
  v1AccountRoutes(app, scopeOf);
  v1LogRoutes(app, scopeOf);
  v1LedgerRoutes(app, scopeOf);
  mappingRoutes(app, scopeOf);
  return app;
}

/** The protected app, with its document and 501s before the bearer check. */
function ledgerFrame(runtime: ServiceRuntime, options: LedgerAppOptions): Hono<HonoTypes> {
  const app = createProtectedApp('ledger', runtime, {
    beforeAuth: (a) => {
      serveDocument(a, ledgerDocument, {
        source: options.documents,
        baseUrl: runtime.config.publicBaseUrl,
      });
      ledgerNotImplementedRoutes(a);
    },
  });
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
    clientFor: (environment: string) => DynamoDBDocumentClient;
    tableFor: (bucket: string) => string;
    now: () => number;
  },
): Pick<LedgerScopeParts, 'embedded' | 'relayFor'> {
  const { clientFor, tableFor, now } = parts;
  if (options.embedded) {
    const { engine: Engine, logger, afterLanding } = options.embedded;
    // Each ledger's line commits through its environment's client (write/embedded.ts).
    return {
      embedded: new Engine({
        clientFor,
        tableFor,
        now,
        ...(logger ? { logger } : {}),
        ...(afterLanding ? { afterLanding } : {}),
      }),
    };
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
  return {
    relayFor: (doc) =>
      new LedgerRelay({ doc, tableFor, now, sqs, queueUrl: ingress, inbox: replies }),
  };
}
