import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { retryRaces } from '../../dynamo/optimistic.js';
import { attemptOf, retryWithBackoff, sleepMs } from '../../dynamo/retry.js';
import { recordMetric } from '../../observability/metrics.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { LedgerRecord, MappingWriteRequest, WriteRequest } from '../domain/change.js';
import { type Mapping, mappingJson } from '../domain/mapping.js';
import type { ItemView, Write } from './change-items.js';
import { actionCount, MAX_TRANSACTION_ITEMS } from './commit.js';
import { decideRequests, idempotencyKeyOf, type WriteOutcome } from './decide-batch.js';
import { ledgerTables } from './dynamo-ledger-table.js';
import { type Head, headFromItem, isHerd, isLed } from './head.js';
import { type ItemKey, keyString, ledgerKeys } from './keys.js';
import { readKeys } from './ledger-state.js';
import type { LedgerTable } from './ledger-table.js';
import { MappingCache, mappingItem } from './mapping-item.js';
import { commitStaged, FINISH_PATIENCE_MS, finishStaged } from './staged-bulk.js';
import { transactionHolderKeys } from './transaction-lookup.js';
import {
  foldTransactionPages,
  putInView,
  transactionIn,
  writesTransactionPages,
} from './transaction-pages.js';

export type { WriteOutcome } from './decide-batch.js';
export type { Head } from './head.js';

/** Attempts before answering 503: with BACKOFF, a writer waits at most ~4 s in all. */
const MAX_ATTEMPTS = 10;
/** Full jitter, capped at 1 s: spreads out writers that collided on the sequencer. */
const BACKOFF = { maxDelayMs: 1000 };

export interface WriterOptions {
  /** The ledgers' tables on DynamoDB, unless `tableOf` gives each ledger's port. */
  doc?: DynamoDBDocumentClient;
  tableFor: (bucket: string) => string;
  /** Each ledger's table as the write engine's port (store/ledger-table.ts); absent: its table through `doc`. */
  tableOf?: (ledger: LedgerRecord) => LedgerTable;
  now?: () => number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Settles a batch HEAD names as possibly unsettled, once no writer leads the ledger (a sequenced writer stopped
   * between its commit and the items it writes after it): a direct write decides only over a settled ledger.
   */
  settle?: (ledger: LedgerRecord, table: string, head: Head) => Promise<void>;
  /** This container's name on its direct commits (HEAD's `directBy`); a random one by default. */
  owner?: string;
}

/** A snapshot of HEAD and the items a write reads, and the mapping HEAD names. */
export interface Snapshot {
  view: ItemView;
  head: Head;
  mapping: Mapping | undefined;
}

/**
 * Direct writes, all or nothing: read a consistent snapshot (TransactGetItems), let the domain decide, then write the
 * decision, the log entry (hash-chained), the sequencer, the idempotency record and the outgoing event in ONE
 * TransactWriteItems, conditional on the sequencer being unchanged. Two round trips when uncontended; on a
 * concurrent write the whole thing is retried with jittered backoff. Every read and write goes through the
 * ledger's port (LedgerTable), as the group commit's do.
 */
export class LedgerWriter {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly mappings: MappingCache;
  /** The ledger's table as the port every read and write of this writer goes through. */
  private readonly portOf: (ledger: LedgerRecord) => LedgerTable;
  private readonly owner: string;

  constructor(private readonly options: WriterOptions) {
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? randomUUID();
    this.sleep = options.sleep ?? sleepMs;
    this.mappings = new MappingCache();
    this.portOf = ledgerTables(options);
  }

  async write<T>(request: WriteRequest<T>): Promise<WriteOutcome<T>> {
    return (await this.writeAtomic(request.ledger, [request]))[0]!;
  }

  /**
   * Several writes of one ledger as one transaction (an atomic bulk): each decision sees the items the
   * previous ones put, log ids and hashes chain across them, and either all commit or none.
   */
  async writeAtomic<T>(
    ledger: LedgerRecord,
    requests: Array<WriteRequest<T>>,
  ): Promise<Array<WriteOutcome<T>>> {
    return this.retrying(
      async () => (await this.attempt(ledger, requests)) as Array<WriteOutcome<T>> | 'retry',
    );
  }

  /**
   * A direct write, unless the ledger is in group-commit mode — a sequenced writer's lease is live — or the write
   * met `contention` concurrent commits in a row: then `relay`, and nothing was written.
   */
  async writeOrRelay<T>(
    request: WriteRequest<T>,
    contention: number,
  ): Promise<WriteOutcome<T> | Relay> {
    return retryWithBackoff<WriteOutcome<T> | Relay>(
      async () => {
        const outcome = counted(
          await this.attempt(request.ledger, [request], { relayWhenLed: true }),
          'direct',
        );
        if (isRelay(outcome)) return { done: true, value: outcome };
        return outcome === 'retry' ? { done: false } : { done: true, value: outcome[0]! };
      },
      { ...BACKOFF, maxAttempts: contention, sleep: this.sleep },
      () => ({ relay: true }),
    );
  }

  /** A log-less write of HEAD's own state (see MappingWriteRequest); answers the decision's result. */
  async writeHead<T>(request: MappingWriteRequest<T>): Promise<T> {
    return this.retrying(() => this.attemptHead(request));
  }

  private retrying<R>(attempt: () => Promise<R | 'retry'>): Promise<R> {
    return retryRaces(async () => attemptOf(counted(await attempt(), 'direct')), {
      ...BACKOFF,
      maxAttempts: MAX_ATTEMPTS,
      sleep: this.sleep,
      busy: 'the ledger is busy with concurrent writes; retry shortly',
    });
  }

  /** One TransactGetItems of HEAD and `reads`, and the mapping HEAD names; `retry` on a concurrent writer. */
  private async readSnapshot(
    port: LedgerTable,
    ledger: LedgerRecord,
    table: string,
    reads: ItemKey[],
  ): Promise<Snapshot | 'retry'> {
    const headKey = ledgerKeys.head(ledger);
    const keys = dedupe([headKey, ...reads]);
    // A transaction writing one of the items is a concurrent writer, the same as a conflict on the write: read
    // again after the backoff.
    const items = await readWide(port, keys);
    if (items === 'conflict') return 'retry';
    // The snapshot, overlaid with each decision's puts so that the next decision sees them.
    const view: ItemView = new Map();
    // A page of transactions is in the view under each of its transactions' keys.
    for (const item of items)
      if (item) putInView(view, item, (id) => ledgerKeys.transaction(ledger, id));
    const headItem = view.get(keyString(headKey));
    if (!headItem) throw new Error(`ledger ${ledger.name} has no HEAD item`);
    const head = headFromItem(headItem);
    if (head.staged) {
      // A bulk committed in parts and not yet fully applied: nothing is decided over part of it.
      await finishStaged(port, ledger, { head }, { ms: FINISH_PATIENCE_MS, sleep: this.sleep });
      return this.readSnapshot(port, ledger, table, reads);
    }
    const mapping = await this.mappingOf(port, ledger, table, head);
    return mapping === 'stale' ? 'retry' : { view, head, mapping };
  }

  /**
   * The mapping HEAD names. Read outside the snapshot but safe: a version's mapping never changes, and the commit
   * is conditional on HEAD's version, so a write commits only under the mapping it decided with.
   */
  private async mappingOf(
    port: LedgerTable,
    ledger: LedgerRecord,
    table: string,
    head: Head,
  ): Promise<Mapping | undefined | 'stale'> {
    return head.mappingVersion === undefined
      ? undefined
      : this.mappings.load(port, table, ledger, head.mappingVersion);
  }

  private async attempt<T>(
    ledger: LedgerRecord,
    requests: Array<WriteRequest<T>>,
    options: { relayWhenLed?: boolean } = {},
  ): Promise<Array<WriteOutcome<T>> | 'retry' | Relay> {
    const table = this.options.tableFor(ledger.bucket);
    const port = this.portOf(ledger);
    const snapshot = await this.readSnapshot(port, ledger, table, [
      ...requests.flatMap((r) => [
        ...(r.idempotency ? [idempotencyKeyOf(ledger, r)!] : []),
        ...readKeys(ledger, r.reads),
      ]),
      ...(await transactionHolderKeys(
        port,
        ledger,
        requests.flatMap((r) => r.reads.transactions ?? []),
      )),
    ]);
    if (snapshot === 'retry') return 'retry';
    if (options.relayWhenLed && isLed(snapshot.head, this.now()))
      return { relay: true, untilMs: snapshot.head.leaseUntil! };
    if (options.relayWhenLed && isHerd(snapshot.head, this.owner, this.now()))
      return { relay: true };
    if (snapshot.head.pendingResults && this.options.settle && !isLed(snapshot.head, this.now())) {
      // The snapshot may lack the batch's transactions: settle, then read again.
      await this.options.settle(ledger, table, snapshot.head);
      return 'retry';
    }
    // A transaction committed between finding the item that holds it and the snapshot: found again.
    if (missedTransaction(ledger, requests, snapshot)) return 'retry';
    const decided = decideRequests(
      { ledger, table, nowMs: this.now() },
      snapshot.view,
      snapshot.head,
      snapshot.mapping,
      requests,
    );
    const { outcomes } = decided;
    if (decided.writes.length === 0) return outcomes;
    const writes = foldTransactionPages(ledger, snapshot.view, decided.writes);
    const head: Head = { ...decided.head, directAtMs: this.now(), directBy: this.owner };
    // Beyond one DynamoDB transaction: committed staged, then applied in parts (staged-bulk.ts).
    const commit =
      actionCount(writes) > MAX_TRANSACTION_ITEMS
        ? commitStaged(port, ledger, snapshot.head, head, writes)
        : port.commit(snapshot.head, head, writes);
    if (await commit) return 'retry';
    recordMetric('LedgerCommits', { mode: 'direct' });
    recordMetric('LedgerBatchSize', { mode: 'direct' }, head.lastLogId - snapshot.head.lastLogId);
    return outcomes;
  }

  private async attemptHead<T>(request: MappingWriteRequest<T>): Promise<T | 'retry'> {
    const { ledger } = request;
    const table = this.options.tableFor(ledger.bucket);
    const port = this.portOf(ledger);
    const snapshot = await this.readSnapshot(port, ledger, table, []);
    if (snapshot === 'retry') return 'retry';
    const { head: initial } = snapshot;
    const version = (initial.version ?? 0) + 1;
    const nowMs = this.now();
    const now = instantFromMs(nowMs);
    const decision = request.decide({
      now,
      ...(snapshot.mapping ? { current: snapshot.mapping } : {}),
    });
    const mappingWrite: Write = {
      item: {
        Put: {
          TableName: table,
          Item: mappingItem(ledger, version, mappingJson(decision.mapping), formatInstant(now)),
        },
      },
    };
    const head: Head = { ...initial, mappingVersion: version };
    if (await port.commit(initial, head, [mappingWrite])) return 'retry';
    // This container's next writes need not read back what it just wrote.
    this.mappings.remember(table, ledger, version, decision.mapping);
    return decision.result;
  }
}

/** A write handed back to be relayed; `untilMs` (epoch ms): the writer's lease, which the container may trust till then. */
export interface Relay {
  relay: true;
  untilMs?: number;
}

/** A write to be decided again (another writer moved HEAD first) is counted, then retried as before. */
export function counted<T>(outcome: T | 'retry', mode: 'direct' | 'group'): T | 'retry' {
  if (outcome === 'retry') recordMetric('LedgerRetries', { mode });
  return outcome;
}

const isRelay = (value: unknown): value is Relay =>
  typeof value === 'object' && value !== null && 'relay' in value;

/**
 * HEAD and the items in one TransactGetItems when they fit; beyond, the first 100 so and the rest by consistent
 * reads after it. Still one snapshot for a decision: every change of these items moves HEAD's version, and the
 * commit is conditional on the version read here, so a change between the reads fails the commit.
 */
async function readWide(
  port: LedgerTable,
  keys: readonly ItemKey[],
): Promise<Array<Record<string, unknown> | undefined> | 'conflict'> {
  const first = await port.readSnapshot(keys.slice(0, MAX_TRANSACTION_ITEMS));
  if (first === 'conflict' || keys.length <= MAX_TRANSACTION_ITEMS) return first;
  return [...first, ...(await port.getItems(keys.slice(MAX_TRANSACTION_ITEMS)))];
}

function dedupe(keys: ItemKey[]): ItemKey[] {
  return [...new Map(keys.map((k) => [keyString(k), k])).values()];
}

/**
 * Whether the snapshot lacks a transaction the requests read that HEAD counts: in a ledger with pages its item was
 * looked up (`transactionHolderKeys`) before a commit wrote it, so the lookup found an older page.
 */
function missedTransaction<T>(
  ledger: LedgerRecord,
  requests: ReadonlyArray<WriteRequest<T>>,
  { view, head }: Snapshot,
): boolean {
  if (!writesTransactionPages(ledger)) return false;
  return requests.some((r) =>
    (r.reads.transactions ?? []).some(
      (id) =>
        id <= head.lastTxId &&
        !transactionIn(view.get(keyString(ledgerKeys.transaction(ledger, id))), id),
    ),
  );
}
