import { ValidationError } from '../../errors/index.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { LedgerChange, LedgerRecord, LedgerState, WriteRequest } from '../domain/change.js';
import { assertBalanced, assertFollows } from '../domain/change-invariants.js';
import { isEnabled } from '../domain/features.js';
import { type LogEntry, logHash } from '../domain/logs.js';
import type { Mapping } from '../domain/mapping.js';
import { changeCrossings } from '../domain/monitors.js';
import { changeWrites, type ItemView, type Write } from './change-items.js';
import type { Head } from './head.js';
import { type ItemKey, keyString, type LedgerRef, ledgerKeys } from './keys.js';
import { ledgerState } from './ledger-state.js';
import { singleLogItem } from './log-pages.js';
import { putInView } from './transaction-pages.js';

export type WriteOutcome<T> =
  /**
   * `inOrder`: none of its moves came in below a pair's greatest key (none is back-dated), so its effective
   * volumes are its commit-order ones as committed: the answer needs no read of them.
   */
  | { kind: 'committed'; result: T; log: LogEntry; inOrder: boolean }
  | { kind: 'dry-run'; result: T }
  /** An idempotent replay: the original response, exactly as first sent, and the log entry the original wrote. */
  | { kind: 'replayed'; result: unknown; logId?: number };

/**
 * A write of a commit; `idempotency` marks the idempotency record (its condition failing means a replay), `log`
 * a log entry's item (a commit's entries are gathered into pages, log-pages.ts).
 */
export type CommitWrite = Write & { idempotency?: boolean; log?: boolean };

/** Idempotency records are kept at least 24 hours (docs/api.md §3.2); two days, to be safe. */
export const IDEMPOTENCY_TTL_SECONDS = 48 * 3600;

export interface DecideContext {
  ledger: LedgerRecord;
  table: string;
  nowMs: number;
  /** The relayed request the decisions belong to (group commit): recorded on its log items for repairs. */
  requestId?: string;
}

export const idempotencyKeyOf = (
  ledger: LedgerRef,
  request: WriteRequest<unknown>,
): ItemKey | undefined =>
  request.idempotency ? ledgerKeys.idempotency(ledger, request.idempotency.key) : undefined;

/**
 * Decides requests in order over an item view (one commit): each decision sees the items the previous ones put (the
 * view is updated), log ids and hashes chain across them. Answers each request's outcome, the writes of the
 * whole, and HEAD after it. A failing decision throws: the caller decides what the others become.
 */
export function decideRequests<T>(
  context: DecideContext,
  view: ItemView,
  initial: Head,
  mapping: Mapping | undefined,
  requests: ReadonlyArray<WriteRequest<T>>,
): { outcomes: Array<WriteOutcome<T>>; writes: CommitWrite[]; head: Head } {
  const { ledger, table, nowMs } = context;
  const now = instantFromMs(nowMs);
  const epoch = Math.floor(nowMs / 1000);
  let head = initial;
  const outcomes: Array<WriteOutcome<T>> = [];
  const writes: CommitWrite[] = [];
  const txIds: number[] = [];
  for (const request of requests) {
    const idempotencyKey = idempotencyKeyOf(ledger, request);
    const stored = idempotencyKey ? view.get(keyString(idempotencyKey)) : undefined;
    if (stored) {
      outcomes.push(replayOf(stored, request));
      continue;
    }
    const logId = head.lastLogId + 1;
    const state = ledgerState(ledger, view, head, mapping);
    const decision = request.decide(state, { now });
    if (request.dryRun) {
      outcomes.push({ kind: 'dry-run', result: decision.result });
      continue;
    }
    const { change } = decision;
    // Before any of its items is put in the view: `state` still reads the volumes before the change.
    assertBalanced(change, (account, asset) => state.volume(account, asset));
    if (change.lastTxId !== undefined) txIds.push(change.lastTxId);
    const entry = {
      id: logId,
      type: change.log.type,
      data: change.log.data,
      date: formatInstant(now),
      idempotencyKey: request.idempotency?.key ?? '',
      ...(change.log.schemaVersion !== undefined
        ? { schemaVersion: change.log.schemaVersion }
        : {}),
    };
    const hash = isEnabled(ledger.features, 'HASH_LOGS') ? logHash(head.lastHash, entry) : '';
    const log: LogEntry = { ...entry, hash };
    const own: CommitWrite[] = [
      {
        log: true,
        item: {
          Put: { TableName: table, Item: logItem(context, log, change, state) },
        },
      },
      ...changeWrites(ledger, table, view, change, logId),
      ...(idempotencyKey
        ? [idempotencyWrite(table, idempotencyKey, request, decision.result, logId, epoch)]
        : []),
    ];
    overlay(ledger, view, own);
    writes.push(...own);
    head = {
      ...head,
      lastTxId: change.lastTxId ?? head.lastTxId,
      lastLogId: logId,
      lastHash: hash || head.lastHash,
      accounts: head.accounts + change.accountsAdded,
    };
    outcomes.push({
      kind: 'committed',
      result: decision.result,
      log,
      inOrder: !own.some((w) => w.late),
    });
  }
  assertFollows(
    initial,
    outcomes.flatMap((o) => (o.kind === 'committed' ? [o.log.id] : [])),
    head,
    txIds,
  );
  return { outcomes, writes, head };
}

/** A request whose idempotency key was already used: the stored answer, if the request is the same one. */
function replayOf<T>(stored: Record<string, unknown>, request: WriteRequest<T>): WriteOutcome<T> {
  if (stored.requestHash !== request.idempotency!.requestHash) {
    throw new ValidationError('Idempotency-Key was already used with a different request');
  }
  return {
    kind: 'replayed',
    result: parseJson(String(stored.response)),
    ...(stored.logId !== undefined ? { logId: Number(stored.logId) } : {}),
  };
}

/** The idempotency record of a committed request: its hash, its answer and its log id, kept for a while. */
function idempotencyWrite<T>(
  table: string,
  key: ItemKey,
  request: WriteRequest<T>,
  result: unknown,
  logId: number,
  epochSeconds: number,
): CommitWrite {
  return {
    idempotency: true,
    item: {
      Put: {
        TableName: table,
        Item: {
          ...key,
          requestHash: request.idempotency!.requestHash,
          response: stringifyJson(result),
          logId,
          expiresAt: epochSeconds + IDEMPOTENCY_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Puts a decision's writes in the view, so the next decision of the batch sees them. */
function overlay(ledger: LedgerRef, view: ItemView, writes: readonly CommitWrite[]): void {
  for (const w of writes) {
    if (w.item.Put) putInView(view, w.item.Put.Item, (id) => ledgerKeys.transaction(ledger, id));
    if (w.item.Delete) view.delete(keyString(w.item.Delete.Key as ItemKey));
  }
}

/**
 * The log entry's item: the exact entry as hashed (`body`), and `ev`, what its events need beyond the entry (the
 * post-commit volumes, the balance monitors it triggered), so the ledger table's stream carries the events without
 * a row of their own.
 */
function logItem(
  { ledger, requestId }: DecideContext,
  log: LogEntry,
  change: LedgerChange,
  // Read before the change's items are put in the view: the volumes before it.
  state: LedgerState,
): Record<string, unknown> {
  const crossings = changeCrossings(
    state.mapping?.monitors,
    change,
    (a, s) => state.volume(a, s),
    (a, s) => state.held?.(a, s),
  );
  const created = change.transactions.find((t) => !t.before);
  const reverted =
    change.log.type === 'REVERTED_TRANSACTION'
      ? change.transactions.find((t) => t.before)
      : undefined;
  const extras = {
    ...(created ? { post: created.record.post } : {}),
    ...(reverted ? { revertedPost: reverted.record.post } : {}),
    // Monitors are settings, not ledger state: their crossings travel with the event, outside the hashed entry.
    ...(crossings.length > 0 ? { monitors: crossings } : {}),
  };
  return singleLogItem(ledger, log, {
    body: stringifyJson(log),
    ev: stringifyJson(extras),
    ...(requestId ? { req: requestId } : {}),
  });
}
