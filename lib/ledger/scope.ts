import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'hono';
import { lazyLoad } from '../async/lazy-load.js';
import { type EnvironmentClients, perEnvironment } from '../dynamo/environment-clients.js';
import { environmentOf } from '../http/environment.js';
import type { HonoTypes } from '../http/types.js';
import type { LedgerRecord } from './domain/change.js';
import { AccountReads } from './store/account-reads.js';
import type { BalanceHistoryReads } from './store/balance-history.js';
import type { BucketTables } from './store/bucket-tables.js';
import { dynamoLedgerTable } from './store/dynamo-ledger-table.js';
import { EffectiveVolumeReads } from './store/effective-volume-reads.js';
import type { Head } from './store/head.js';
import type { TransactionKeyLayout } from './store/keys.js';
import { LedgerLookup } from './store/ledger-lookup.js';
import { LogReads } from './store/log-reads.js';
import { MappingReads } from './store/mapping-reads.js';
import type { PendingReads } from './store/pending-reads.js';
import { LedgerRegistry } from './store/registry.js';
import { SchemaStore } from './store/schema-store.js';
import { tableScriptState } from './store/script-state.js';
import { settledReads } from './store/staged-reads.js';
import { LedgerStats } from './store/stats.js';
import { TransactionReads } from './store/transaction-reads.js';
import { VolumeReads } from './store/volume-reads.js';
import { LedgerWriter } from './store/writer.js';
import { LedgerCommands } from './write/ledger-commands.js';
import type { IntentSink, LedgerRelay } from './write/relay.js';
import { BULK_TIME_BUDGET_MS } from './write/run-bulk.js';
import { settleBatch } from './write/settle.js';

/**
 * Everything of the ledger service a request may read or write, in one environment: its stores, built over that
 * environment's document client (`clients.forEnvironment`: its credentials where the isolation guard is on, its
 * keys checked everywhere). The one way from a request's token to the ledger's items (`LedgerScopes.of`).
 */
export interface LedgerScope {
  environment: string;
  /** The environment's client, for the ledger's parts mounted from other folders (the exporters). */
  doc: DynamoDBDocumentClient;
  registry: LedgerRegistry;
  lookup: LedgerLookup;
  schemas: SchemaStore;
  writer: LedgerWriter;
  /** A writer on another clock (a log import replays its entries' times). */
  writerAt: (clock: () => number) => LedgerWriter;
  stats: LedgerStats;
  reads: TransactionReads;
  effectiveVolumes: EffectiveVolumeReads;
  scriptState: (ledger: LedgerRecord) => ReturnType<typeof tableScriptState>;
  commands: LedgerCommands;
  accounts: AccountReads;
  logs: LogReads;
  mappings: MappingReads;
  volumes: VolumeReads;
  /** Imported at their first request (most containers never serve one). */
  pendingReads: () => Promise<PendingReads>;
  openReads: () => Promise<BalanceHistoryReads>;
  now: () => number;
  /** Where the ledger relays behind a gateway that times out (AWS, workers): a bulk's budget (write/run-bulk.ts). */
  timeBudgetMs?: number;
}

/** What every environment's scope shares: the container's clients, tables and write sinks. */
export interface LedgerScopeParts {
  clients: EnvironmentClients;
  buckets: BucketTables;
  transactionKeys?: TransactionKeyLayout;
  scanReads: number;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The embedded engine: one per process (one line per ledger), whichever environment's request feeds it. */
  embedded?: IntentSink;
  /** The relay to the sequenced writer, reading its result items through the environment's client. */
  relayFor?: (doc: DynamoDBDocumentClient) => LedgerRelay;
}

export interface LedgerScopes {
  /** The scope of an environment, built at its first use and kept for the most recent ones (`perEnvironment`). */
  forEnvironment(environment: string): LedgerScope;
  /** The scope of a request: its token's environment's, and only that one. */
  of(c: Context<HonoTypes>): LedgerScope;
}

export function ledgerScopes(parts: LedgerScopeParts): LedgerScopes {
  const forEnvironment = perEnvironment((environment) => ledgerScope(parts, environment));
  return { forEnvironment, of: (c) => forEnvironment(environmentOf(c)) };
}

function ledgerScope(parts: LedgerScopeParts, environment: string): LedgerScope {
  const { buckets, now, scanReads } = parts;
  const doc = parts.clients.forEnvironment(environment);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  const registry = new LedgerRegistry(doc, buckets, parts.transactionKeys);
  // A batch a stopped ledger writer left unsettled is settled by the next direct write or list (write/settle.ts).
  const settle = (ledger: LedgerRecord, table: string, head: Head) =>
    settleBatch(dynamoLedgerTable(doc, table, ledger), ledger, head, now());
  const writerAt = (clock: () => number) =>
    new LedgerWriter({
      doc,
      tableFor,
      now: clock,
      settle,
      ...(parts.sleep ? { sleep: parts.sleep } : {}),
    });
  const writer = writerAt(now);
  // Every read that serves state is settled: none shows part of an atomic bulk applied in parts (staged-reads.ts).
  const portOf = (ledger: LedgerRecord) => dynamoLedgerTable(doc, tableFor(ledger.bucket), ledger);
  const reads = settledReads(
    new TransactionReads(doc, tableFor, { run: settle, now }, scanReads),
    ['get', 'list', 'count', 'atPointInTime'],
    portOf,
  );
  const scriptState = (ledger: LedgerRecord) =>
    tableScriptState(doc, tableFor(ledger.bucket), ledger);
  const commands = new LedgerCommands({
    writer,
    reads,
    now,
    scriptState,
    ...(parts.embedded ? { embedded: parts.embedded } : {}),
    ...(parts.relayFor ? { relay: parts.relayFor(doc) } : {}),
  });
  return {
    environment,
    doc,
    registry,
    lookup: new LedgerLookup(registry),
    schemas: new SchemaStore(doc, tableFor, buckets.defaultTable, now),
    writer,
    writerAt,
    stats: new LedgerStats(doc, tableFor),
    reads,
    effectiveVolumes: settledReads(
      new EffectiveVolumeReads(doc, tableFor),
      ['ofTransactions', 'ofMoves'],
      portOf,
    ),
    scriptState,
    commands,
    accounts: settledReads(
      new AccountReads(doc, tableFor, scanReads),
      ['get', 'list', 'countListed', 'count', 'balances'],
      portOf,
    ),
    logs: settledReads(new LogReads(doc, tableFor, scanReads), ['list', 'after', 'count'], portOf),
    mappings: new MappingReads(doc, tableFor),
    volumes: settledReads(new VolumeReads(doc, tableFor), ['list'], portOf),
    pendingReads: lazyLoad(async () =>
      settledReads(
        new (await import('./store/pending-reads.js')).PendingReads(doc, tableFor),
        ['get', 'list', 'balances'],
        portOf,
      ),
    ),
    openReads: lazyLoad(async () =>
      settledReads(
        new (await import('./store/balance-history.js')).BalanceHistoryReads(doc, tableFor),
        ['page'],
        portOf,
      ),
    ),
    now,
    ...(parts.relayFor ? { timeBudgetMs: BULK_TIME_BUDGET_MS } : {}),
  };
}
