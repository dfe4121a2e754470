import * as v from 'valibot';
import { ImportError } from '../../../errors/index.js';
import { parseJson } from '../../../json/bigint-json.js';
import { assertJsonText } from '../../../json/json-limits.js';
import { formatInstant, parseInstant } from '../../../time/instant.js';
import type { LogEntry } from '../logs.js';
import { REVERTS_KEY } from '../transaction.js';
import { referenceLogHash, referenceMemento } from './reference-hash.js';
import {
  type ReferenceLogLine,
  type ReferenceLogType,
  type ReferencePayload,
  type ReferenceTransaction,
  referenceLogLine,
  referencePayloads,
} from './wire.js';

export interface ReferenceConversionOptions {
  /** Recompute each reference hash from the previous one (default); off for an export whose hashes are not SYNC. */
  verifyHashes?: boolean;
}

/**
 * Reads a reference export (v2, one Log per line, oldest first) line by line and gives each log as this platform's
 * import replays it (`POST /v2/{ledger}/logs/import`, commands/import-logs.ts). Holds only counters and the previous
 * hash, so an export of any length converts in constant memory. Anything it cannot map exactly is refused, naming
 * the reference log and why: the first refusal ends the conversion.
 *
 * - Ids: the export must start at the ledger's first log (id 0 or 1) and follow without gaps; logs and transactions
 *   are renumbered from 1, as this platform numbers them (the reference's v2 starts transactions at 0).
 * - Dates: a transaction's timestamp is kept to the microsecond (both platforms' precision); a log's date is kept
 *   to the millisecond, the import's clock (so is a revert's timestamp unless it was made at the effective date).
 *   The only other state: the timestamps that moved so (reverts at their log's date with sub-millisecond digits).
 * - Hashes: the reference chain is verified here; the imported ledger chains its own (the converted logs carry
 *   none, and the import then hashes as the ledger's features say).
 */
export class ReferenceLogConverter {
  private firstLogId: bigint | undefined;
  private nextLogId = 0n;
  private firstTxId: bigint | undefined;
  private nextTxId = 0n;
  private previousHash: string | undefined;
  /** Reverts made at their log's date whose timestamp lost its microseconds: a later revert "at effective date" of one needs it. */
  private readonly movedTimestamps = new Map<bigint, string>();
  private hashed: boolean | undefined;
  private readonly verifyHashes: boolean;

  constructor(options: ReferenceConversionOptions = {}) {
    this.verifyHashes = options.verifyHashes ?? true;
  }

  /** The reference log id that became this platform's log `id` (for messages about imported logs). */
  referenceIdOf(id: number): bigint {
    return (this.firstLogId ?? 0n) + BigInt(id) - 1n;
  }

  /** Converts the next line (`line` counts from 1, for messages). */
  convert(text: string, line: number): LogEntry {
    const log = parseLine(text, line);
    const fail = (reason: string): never => {
      throw new ImportError(`reference log ${log.id} (line ${line}): ${reason}`);
    };
    this.checkOrder(log, fail);
    const type = log.type;
    if (!Object.hasOwn(referencePayloads, type))
      fail(
        `log type ${type} cannot be imported (only ${Object.keys(referencePayloads).join(', ')})`,
      );
    const payload = parsePayload(type as ReferenceLogType, log.data, fail);
    this.checkHash(log, type as ReferenceLogType, payload, fail);
    const date = logDate(log.date, fail);
    const data = this.dataOf(type as ReferenceLogType, payload, date, fail);
    this.nextLogId++;
    return {
      id: Number(this.nextLogId - this.firstLogId!),
      type: type as ReferenceLogType,
      data,
      date,
      idempotencyKey: log.idempotencyKey,
      hash: '',
    };
  }

  private checkOrder(log: ReferenceLogLine, fail: (reason: string) => never): void {
    if (this.firstLogId === undefined) {
      if (log.id > 1n)
        fail(
          "the export must start at the ledger's first log (id 0 or 1): export the whole ledger",
        );
      this.firstLogId = log.id;
      this.nextLogId = log.id;
    }
    if (log.id !== this.nextLogId)
      fail(`expected reference log ${this.nextLogId} here (ids follow without gaps, oldest first)`);
  }

  private checkHash(
    log: ReferenceLogLine,
    type: ReferenceLogType,
    payload: ReferencePayload<ReferenceLogType>,
    fail: (reason: string) => never,
  ): void {
    const hashed = log.hash !== undefined && log.hash !== null && log.hash !== '';
    if (this.hashed !== undefined && hashed !== this.hashed)
      fail(hashed ? 'hashed, unlike the logs before it' : 'no hash, unlike the logs before it');
    this.hashed = hashed;
    if (!hashed || !this.verifyHashes) return;
    const expected = referenceLogHash(this.previousHash, log, referenceMemento(type, payload));
    if (expected !== log.hash)
      fail(
        `hash mismatch: the export says ${log.hash}, its content gives ${expected} (the log or one before it was changed)`,
      );
    this.previousHash = expected;
  }

  private dataOf(
    type: ReferenceLogType,
    payload: ReferencePayload<ReferenceLogType>,
    date: string,
    fail: (reason: string) => never,
  ): Record<string, unknown> {
    switch (type) {
      case 'NEW_TRANSACTION': {
        const p = payload as ReferencePayload<'NEW_TRANSACTION'>;
        const accountMetadata = Object.fromEntries(
          Object.entries(p.accountMetadata ?? {}).map(([a, m]) => [a, m ?? {}] as const),
        );
        const tx = this.created(p.transaction, fail);
        return { transaction: view(tx, timestampOf(p.transaction, fail), date), accountMetadata };
      }
      case 'REVERTED_TRANSACTION': {
        const p = payload as ReferencePayload<'REVERTED_TRANSACTION'>;
        const original = this.known(p.revertedTransaction.id, fail);
        const tx = this.created(p.transaction, fail);
        // Made at the original's effective date when it carries the original's timestamp; else at the log's date.
        const atEffectiveDate = p.transaction.timestamp === p.revertedTransaction.timestamp;
        const timestamp = atEffectiveDate
          ? (this.movedTimestamps.get(p.revertedTransaction.id) ??
            timestampOf(p.revertedTransaction, fail))
          : date;
        if (timestamp !== timestampOf(p.transaction, fail))
          this.movedTimestamps.set(p.transaction.id, timestamp);
        const metadata = { ...(p.transaction.metadata ?? {}), [REVERTS_KEY]: String(original) };
        return {
          // The reverted transaction's state is the ledger's own: the import compares only its id.
          revertedTransaction: { id: original },
          transaction: view({ ...tx, metadata }, timestamp, date),
        };
      }
      default: {
        const p = payload as ReferencePayload<'SET_METADATA' | 'DELETE_METADATA'>;
        const targetId = p.targetType === 'TRANSACTION' ? this.known(p.targetId, fail) : p.targetId;
        return 'key' in p
          ? { targetType: p.targetType, targetId, key: p.key }
          : { targetType: p.targetType, targetId, metadata: p.metadata ?? {} };
      }
    }
  }

  /** A transaction the log creates: the next reference id, renumbered. */
  private created(tx: ReferenceTransaction, fail: (reason: string) => never) {
    if (this.firstTxId === undefined) {
      if (tx.id > 1n)
        fail(`the first transaction is ${tx.id}: the export must start with the ledger's first`);
      this.firstTxId = tx.id;
      this.nextTxId = tx.id;
    }
    if (tx.id !== this.nextTxId)
      fail(
        `creates transaction ${tx.id} where ${this.nextTxId} was next (transaction ids follow without gaps)`,
      );
    this.nextTxId++;
    return { ...tx, id: Number(tx.id - this.firstTxId + 1n) };
  }

  /** A transaction an earlier log created, renumbered. */
  private known(id: bigint, fail: (reason: string) => never): number {
    if (this.firstTxId === undefined || id < this.firstTxId || id >= this.nextTxId)
      fail(`transaction ${id} is not created by an earlier log`);
    return Number(id - this.firstTxId! + 1n);
  }
}

/** The transaction as this platform logs it (transactionView), dated by the import's clock. */
function view(
  tx: Omit<ReferenceTransaction, 'id'> & { id: number },
  timestamp: string,
  date: string,
) {
  return {
    id: tx.id,
    postings: tx.postings.map((p) => ({ ...p })),
    metadata: tx.metadata ?? {},
    timestamp,
    insertedAt: date,
    updatedAt: date,
    ...(tx.reference ? { reference: tx.reference } : {}),
    reverted: false,
  };
}

function parseLine(text: string, line: number): ReferenceLogLine {
  let json: unknown;
  try {
    assertJsonText(text, `line ${line}`);
  } catch (err) {
    throw new ImportError((err as Error).message);
  }
  try {
    json = parseJson(text);
  } catch {
    throw new ImportError(
      `line ${line}: not a JSON object (a reference export holds one Log per line)`,
    );
  }
  const parsed = v.safeParse(referenceLogLine, json);
  if (parsed.success) return parsed.output;
  const id = (json as { id?: unknown } | null)?.id;
  throw new ImportError(
    `${typeof id === 'bigint' ? `reference log ${id} (line ${line})` : `line ${line}`}: ${issueText(parsed.issues[0])}`,
  );
}

function parsePayload<T extends ReferenceLogType>(
  type: T,
  data: unknown,
  fail: (reason: string) => never,
): ReferencePayload<T> {
  const parsed = v.safeParse(referencePayloads[type], data);
  if (!parsed.success) fail(`data.${issueText(parsed.issues[0])}`.replace('data.: ', 'data: '));
  return parsed.output as ReferencePayload<T>;
}

function issueText(issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue.message}`;
}

/** A transaction timestamp, exactly: the reference keeps microseconds, and so does this platform. */
function timestampOf(tx: ReferenceTransaction, fail: (reason: string) => never): string {
  const fraction = /\.(\d+)/.exec(tx.timestamp)?.[1] ?? '';
  if (/[1-9]/.test(fraction.slice(6)))
    fail(`transaction ${tx.id}: timestamp ${tx.timestamp} is finer than a microsecond`);
  try {
    return formatInstant(parseInstant(tx.timestamp, 'timestamp'));
  } catch (e) {
    return fail(`transaction ${tx.id}: ${(e as Error).message}`);
  }
}

/** A log's date at the import clock's precision (milliseconds, UTC). */
function logDate(date: string, fail: (reason: string) => never): string {
  try {
    return formatInstant({ ms: parseInstant(date, 'date').ms, micros: 0 });
  } catch (e) {
    return fail((e as Error).message);
  }
}
