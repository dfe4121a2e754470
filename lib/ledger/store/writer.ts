import { TransactGetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottling } from '../../dynamo/errors.js';
import { DependencyThrottledError, ValidationError } from '../../errors/index.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import { isEnabled } from '../domain/features.js';
import { logHash, type LogEntry, type LogType } from '../domain/logs.js';
import { formatInstant, instantFromMs, type Instant } from '../../time/instant.js';
import { keyString, ledgerKeys, type ItemKey } from './keys.js';
import { EVENT_ATTRIBUTE, type LogEventExtras } from './log-events.js';
import type { LedgerRecord } from './registry.js';
import type { Mapping } from '../domain/mapping.js';
import { MappingCache } from './mapping-item.js';

/** The sequencer item's state as read at the start of a write. */
export interface Head {
  lastTxId: number;
  lastLogId: number;
  lastHash: string;
  accounts: number;
  /**
   * Bumped by every HEAD write, and what every write is conditional on: a mapping change moves HEAD without a
   * log entry, so `lastLogId` alone no longer tells whether HEAD moved. Undefined on HEAD items written
   * before versions existed.
   */
  version?: number;
  /** The HEAD version at which the ledger's mapping was last replaced; undefined: the ledger has no mapping. */
  mappingVersion?: number;
}

export interface Snapshot {
  head: Head;
  /** The ledger's mapping in force at this snapshot (v1 contracts), if it has one. */
  mapping?: Mapping;
  get(key: ItemKey): Record<string, unknown> | undefined;
}

/** One item of the transaction, with the error to raise if its own condition fails. */
export interface Write {
  item: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
  onConditionFailure?: () => Error;
}

export interface Decision<T> {
  /** What the caller answers with (a JSON-ready view; big integers as bigint). */
  result: T;
  log: { type: LogType; data: Record<string, unknown> };
  writes: Write[];
  /** What the log entry's event needs beyond the entry: stored on the log item as `ev` (see log-events.ts). */
  ev: LogEventExtras['ev'];
  /** Changes to the sequencer beyond the log: a new transaction id, accounts first seen. */
  head?: { lastTxId?: number; accountsAdded?: number };
}

export interface WriteContext {
  logId: number;
  now: Instant;
  /** The ledger's bucket table: where the decision's items go. */
  table: string;
}

export interface WriteRequest<T> {
  ledger: LedgerRecord;
  /** Items the decision reads, besides HEAD and the idempotency record. */
  reads: ItemKey[];
  idempotency?: { key: string; requestHash: string };
  dryRun?: boolean;
  decide(snapshot: Snapshot, context: WriteContext): Decision<T>;
}

/**
 * A write that changes HEAD's own state but writes no log entry (the mapping: the official SDK's log types are a
 * closed enum, so a new log type would break `listLogs` for its users). Same snapshot, same commit; its event is
 * carried by the item the decision writes (the mapping item's `ev`).
 */
export interface HeadWriteRequest<T> {
  ledger: LedgerRecord;
  reads: ItemKey[];
  decide(snapshot: Snapshot, context: { version: number; now: Instant; table: string }): HeadDecision<T>;
}

export interface HeadDecision<T> {
  result: T;
  writes: Write[];
  /** A new mapping: HEAD names this write's version as the mapping's (the decision writes the mapping item). */
  head?: { mapping?: Mapping };
}

export type WriteOutcome<T> =
  | { kind: 'committed'; result: T; log: LogEntry }
  | { kind: 'dry-run'; result: T }
  /** An idempotent replay: the original response, exactly as first sent. */
  | { kind: 'replayed'; result: unknown };

/** DynamoDB's limit on items in one TransactWriteItems / TransactGetItems. */
export const MAX_TRANSACTION_ITEMS = 100;
/** Idempotency records are kept at least 24 hours (API.md §3.2); two days, to be safe. */
const IDEMPOTENCY_TTL_SECONDS = 48 * 3600;
/** Attempts before answering 503: with the backoff below, a writer waits at most ~4 s in all. */
const MAX_ATTEMPTS = 10;

export interface WriterOptions {
  doc: DynamoDBDocumentClient;
  tableFor: (bucket: string) => string;
  now?: () => number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Queue this process's writes of one ledger behind each other instead of letting them race on HEAD. For a
   * process serving many requests at once (the local platform); a Lambda container serves one at a time, so
   * there it changes nothing. Writers in other processes still race, and are still retried.
   */
  serializeInProcess?: boolean;
}

/**
 * Every ledger write goes through here (rule 3): read a consistent snapshot (TransactGetItems), let the domain
 * decide, then write the decision, the log entry (hash-chained, carrying its outgoing event), the sequencer and
 * the idempotency record in ONE TransactWriteItems, conditional on the sequencer being unchanged. Two round trips
 * when uncontended; on a concurrent write the whole thing is retried with jittered backoff.
 */
export class LedgerWriter {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly mappings: MappingCache;

  constructor(private readonly options: WriterOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.mappings = new MappingCache(options.doc);
  }

  async write<T>(request: WriteRequest<T>): Promise<WriteOutcome<T>> {
    return (await this.writeAtomic(request.ledger, [request]))[0]!;
  }

  /**
   * Several writes of one ledger as one transaction (an atomic bulk): each decision sees the items the
   * previous ones put, log ids and hashes chain across them, and either all commit or none.
   */
  async writeAtomic<T>(ledger: LedgerRecord, requests: Array<WriteRequest<T>>): Promise<Array<WriteOutcome<T>>> {
    return this.inTurn(ledger.name, () => this.retrying(() => this.attempt(ledger, requests)));
  }

  /** A log-less write of HEAD's own state (see HeadWriteRequest); answers the decision's result. */
  async writeHead<T>(request: HeadWriteRequest<T>): Promise<T> {
    return this.inTurn(request.ledger.name, () => this.retrying(() => this.attemptHead(request)));
  }

  /** The tail of each ledger's in-process queue (serializeInProcess); removed once it drains. */
  private readonly queues = new Map<string, Promise<unknown>>();

  private inTurn<R>(ledger: string, write: () => Promise<R>): Promise<R> {
    if (!this.options.serializeInProcess) return write();
    const previous = this.queues.get(ledger) ?? Promise.resolve();
    const run = previous.then(write, write);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(ledger, tail);
    void tail.then(() => {
      if (this.queues.get(ledger) === tail) this.queues.delete(ledger);
    });
    return run;
  }

  private async retrying<R>(attempt: () => Promise<R | 'retry'>): Promise<R> {
    for (let n = 1; ; n++) {
      const outcome = await attempt();
      if (outcome !== 'retry') return outcome;
      if (n >= MAX_ATTEMPTS) throw new DependencyThrottledError('the ledger is busy with concurrent writes; retry shortly');
      // Full jitter, capped: spreads out writers that collided on the sequencer.
      await this.sleep(Math.random() * Math.min(1000, 10 * 2 ** n));
    }
  }

  /** One TransactGetItems of HEAD and `reads`, and the mapping HEAD names; `retry` on a concurrent writer. */
  private async readSnapshot(ledger: LedgerRecord, table: string, reads: ItemKey[]): Promise<{ view: Map<string, Record<string, unknown>>; head: Head; mapping: Mapping | undefined } | 'retry'> {
    const headKey = ledgerKeys.head(ledger.name);
    const keys = dedupe([headKey, ...reads]);
    if (keys.length > MAX_TRANSACTION_ITEMS) {
      throw new ValidationError(`the request touches too many accounts and assets (${keys.length} items, at most ${MAX_TRANSACTION_ITEMS})`);
    }
    let Responses: Array<{ Item?: Record<string, unknown> }>;
    try {
      ({ Responses = [] } = await this.options.doc.send(
        new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: table, Key } })) }),
      ));
    } catch (err) {
      // DynamoDB cancels a TransactGetItems that meets a transaction writing one of its items: that is a
      // concurrent writer, the same as a conflict on the write, so read again after the backoff.
      if (isTransactionConflict(err)) return 'retry';
      throw err;
    }
    // The snapshot, overlaid with each decision's puts so that the next decision sees them.
    const view = new Map<string, Record<string, unknown>>();
    Responses.forEach((r, i) => r.Item && view.set(keyString(keys[i]!), r.Item));
    const headItem = view.get(keyString(headKey));
    if (!headItem) throw new Error(`ledger ${ledger.name} has no HEAD item`);
    const head: Head = {
      lastTxId: Number(headItem.lastTxId),
      lastLogId: Number(headItem.lastLogId),
      lastHash: String(headItem.lastHash ?? ''),
      accounts: Number(headItem.accounts ?? 0),
      ...(headItem.version !== undefined ? { version: Number(headItem.version) } : {}),
      ...(headItem.mappingVersion !== undefined ? { mappingVersion: Number(headItem.mappingVersion) } : {}),
    };
    let mapping: Mapping | undefined;
    if (head.mappingVersion !== undefined) {
      // Read outside the snapshot but safe: a version's mapping never changes, and the commit is conditional
      // on HEAD's version, so a write commits only under the mapping it decided with.
      const loaded = await this.mappings.load(table, ledger.name, head.mappingVersion);
      if (loaded === 'stale') return 'retry';
      mapping = loaded;
    }
    return { view, head, mapping };
  }

  private async attempt<T>(ledger: LedgerRecord, requests: Array<WriteRequest<T>>): Promise<Array<WriteOutcome<T>> | 'retry'> {
    const table = this.options.tableFor(ledger.bucket);
    const headKey = ledgerKeys.head(ledger.name);
    const idempotencyKeyOf = (r: WriteRequest<T>) => (r.idempotency ? ledgerKeys.idempotency(ledger.name, r.idempotency.key) : undefined);
    const snapshot = await this.readSnapshot(ledger, table, requests.flatMap((r) => [...(r.idempotency ? [idempotencyKeyOf(r)!] : []), ...r.reads]));
    if (snapshot === 'retry') return 'retry';
    const { view, head: initial, mapping } = snapshot;

    const nowMs = this.now();
    const now = instantFromMs(nowMs);
    const epoch = Math.floor(nowMs / 1000);
    let head = initial;
    const outcomes: Array<WriteOutcome<T>> = [];
    const writes: Array<Write & { idempotency?: boolean }> = [];

    for (const request of requests) {
      const idempotencyKey = idempotencyKeyOf(request);
      const stored = idempotencyKey ? view.get(keyString(idempotencyKey)) : undefined;
      if (stored) {
        if (stored.requestHash !== request.idempotency!.requestHash) {
          throw new ValidationError('Idempotency-Key was already used with a different request');
        }
        outcomes.push({ kind: 'replayed', result: parseJson(String(stored.response)) });
        continue;
      }
      const logId = head.lastLogId + 1;
      const decision = request.decide({ head, ...(mapping ? { mapping } : {}), get: (key) => view.get(keyString(key)) }, { logId, now, table });
      if (request.dryRun) {
        outcomes.push({ kind: 'dry-run', result: decision.result });
        continue;
      }
      const entry = { id: logId, type: decision.log.type, data: decision.log.data, date: formatInstant(now), idempotencyKey: request.idempotency?.key ?? '' };
      const hash = isEnabled(ledger.features, 'HASH_LOGS') ? logHash(head.lastHash, entry) : '';
      const log: LogEntry = { ...entry, hash };
      const own: Array<Write & { idempotency?: boolean }> = [
        {
          item: {
            Put: {
              TableName: table,
              Item: { ...ledgerKeys.log(ledger.name, logId), id: logId, type: log.type, date: log.date, body: stringifyJson(log), [EVENT_ATTRIBUTE]: stringifyJson(decision.ev) },
            },
          },
        },
        ...decision.writes,
      ];
      if (idempotencyKey) {
        own.push({
          idempotency: true,
          item: {
            Put: {
              TableName: table,
              Item: { ...idempotencyKey, requestHash: request.idempotency!.requestHash, response: stringifyJson(decision.result), logId, expiresAt: epoch + IDEMPOTENCY_TTL_SECONDS },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        });
      }
      for (const w of own) {
        if (w.item.Put) view.set(keyString(w.item.Put.Item as ItemKey), w.item.Put.Item as Record<string, unknown>);
        if (w.item.Delete) view.delete(keyString(w.item.Delete.Key as ItemKey));
      }
      writes.push(...own);
      head = {
        ...head,
        lastTxId: decision.head?.lastTxId ?? head.lastTxId,
        lastLogId: logId,
        lastHash: hash || head.lastHash,
        accounts: head.accounts + (decision.head?.accountsAdded ?? 0),
      };
      outcomes.push({ kind: 'committed', result: decision.result, log });
    }
    if (writes.length === 0) return outcomes;
    return (await this.commit(table, headKey, initial, head, writes)) ?? outcomes;
  }

  private async attemptHead<T>(request: HeadWriteRequest<T>): Promise<T | 'retry'> {
    const { ledger } = request;
    const table = this.options.tableFor(ledger.bucket);
    const headKey = ledgerKeys.head(ledger.name);
    const snapshot = await this.readSnapshot(ledger, table, request.reads);
    if (snapshot === 'retry') return 'retry';
    const { view, head: initial, mapping } = snapshot;
    const version = (initial.version ?? 0) + 1;
    const now = instantFromMs(this.now());
    const decision = request.decide({ head: initial, ...(mapping ? { mapping } : {}), get: (key) => view.get(keyString(key)) }, { version, now, table });
    const replaced = decision.head?.mapping;
    const head: Head = { ...initial, ...(replaced ? { mappingVersion: version } : {}) };
    if ((await this.commit(table, headKey, initial, head, decision.writes)) === 'retry') return 'retry';
    // This container's next writes need not read back what it just wrote.
    if (replaced) this.mappings.remember(table, ledger.name, version, replaced);
    return decision.result;
  }

  /**
   * The one TransactWriteItems of a write: HEAD (next version, conditional on the version read) and the
   * writes. Answers `retry` when HEAD moved or DynamoDB reports a conflict, undefined once committed.
   */
  private async commit(table: string, headKey: ItemKey, initial: Head, head: Head, writes: Array<Write & { idempotency?: boolean }>): Promise<'retry' | undefined> {
    // The version written is always the one read plus one, whatever `head` carries.
    const { version: _versionRead, ...state } = head;
    const transaction = collapse([
      {
        item: {
          Put: {
            TableName: table,
            Item: { ...headKey, ...state, version: (initial.version ?? 0) + 1 },
            // HEAD items from before versions existed are still guarded by their log id.
            ...(initial.version === undefined
              ? { ConditionExpression: 'attribute_not_exists(#version) AND lastLogId = :previous', ExpressionAttributeValues: { ':previous': initial.lastLogId } }
              : { ConditionExpression: '#version = :previous', ExpressionAttributeValues: { ':previous': initial.version } }),
            ExpressionAttributeNames: { '#version': 'version' },
          },
        },
      },
      ...writes,
    ]);
    if (transaction.length > MAX_TRANSACTION_ITEMS) {
      throw new ValidationError(`the request touches too many accounts and assets (${transaction.length} items to write, at most ${MAX_TRANSACTION_ITEMS})`);
    }

    try {
      await this.options.doc.send(new TransactWriteCommand({ TransactItems: transaction.map((w) => w.item) }));
    } catch (err) {
      if (isThrottling(err)) throw err;
      const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
      if ((err as Error).name !== 'TransactionCanceledException' || !reasons) throw err;
      // The sequencer moved, another transaction held an item, or the same idempotency key committed
      // meanwhile: read again and decide again (a replay is then answered from the record).
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed === 0 || reasons.some((r) => r.Code === 'TransactionConflict') || transaction[failed]?.idempotency) return 'retry';
      const onFailure = failed >= 0 ? transaction[failed]?.onConditionFailure : undefined;
      if (onFailure) throw onFailure();
      throw err;
    }
    return undefined;
  }
}

/**
 * One action per item, as DynamoDB requires: when a batch writes the same item twice (put, or delete), the last
 * action wins; a Put keeps the first action's condition, which speaks of the state before the batch.
 */
function collapse<W extends Write>(writes: W[]): W[] {
  const byKey = new Map<string, W>();
  for (const w of writes) {
    const put = w.item.Put;
    const del = w.item.Delete;
    const target = put ? `${put.TableName}\u0000${keyString(put.Item as ItemKey)}` : del ? `${del.TableName}\u0000${keyString(del.Key as ItemKey)}` : `#${byKey.size}`;
    const earlier = byKey.get(target);
    const condition = earlier?.item.Put ?? earlier?.item.Delete;
    if (earlier && condition?.ConditionExpression && put) {
      byKey.set(target, {
        ...w,
        item: { Put: { ...put, ConditionExpression: condition.ConditionExpression, ExpressionAttributeValues: condition.ExpressionAttributeValues, ExpressionAttributeNames: condition.ExpressionAttributeNames } },
        onConditionFailure: earlier.onConditionFailure ?? w.onConditionFailure,
      } as W);
    } else byKey.set(target, w);
  }
  return [...byKey.values()];
}

function isTransactionConflict(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TransactionConflictException' || err.name === 'TransactionInProgressException') return true;
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return err.name === 'TransactionCanceledException' && !isThrottling(err) && (reasons ?? []).some((r) => r.Code === 'TransactionConflict');
}

function dedupe(keys: ItemKey[]): ItemKey[] {
  return [...new Map(keys.map((k) => [keyString(k), k])).values()];
}
