import * as v from 'valibot';
import { ImportError, PlatformError } from '../../errors/index.js';
import { formatInstant, parseInstant } from '../../time/instant.js';
import { metadataMap } from '../../validation/common.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import { ImportChain, parseLogLine, sameLog } from '../domain/log-import.js';

import type { LogEntry } from '../domain/logs.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { REVERTS_KEY } from '../domain/transaction.js';
import type { LogReads } from '../store/log-reads.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { type LedgerOperation, operationRequest } from './operations.js';
import { pendingOperationOf } from './pending-import.js';
import { replayedTransaction } from './replayed-writes.js';

/** Read by the import route, which loads this module at the first import (routes/log-transfer.ts). */
export { MAX_IMPORT_LINE_BYTES } from '../domain/log-import.js';

export interface LogImportDeps {
  /** A direct writer on the given clock: each replayed entry is committed at its own date. */
  writerAt: (now: () => number) => LedgerWriter;
  reads: TransactionReads;
  logs: LogReads;
}

/**
 * POST /v2/<ledger>/logs/import: replays an export into a ledger, entry by entry, through the ledger's own writes
 * (create, revert, metadata), each committed at the entry's date so that the transactions, volumes, metadata and
 * log — hashes included, with the same features — come out identical. The whole request (at most 1 MiB) is read
 * and checked first — each line's shape, its place in the id sequence and hash chain — so a malformed, misplaced or
 * tampered line writes nothing; then each entry is replayed and the ledger's decision must log exactly the imported
 * data. A refusal there stops the import (400 IMPORT naming the entry) with the entries before it committed (an
 * import is not one transaction: a log can be far larger than one DynamoDB transaction).
 *
 * Without `after`, the ledger must be empty. With `after` (a continuation: the next part of a log too large for one
 * request), the ledger's last log must be log `after` exactly — else something else wrote to it, or a part is
 * missing — and the imported ids and chain continue from it.
 */
export async function importLogs(
  deps: LogImportDeps,
  ledger: LedgerRecord,
  lines: AsyncIterable<{ text: string; line: number }>,
  after?: number,
): Promise<number> {
  const chain = await chainFrom(deps, ledger, after);
  const entries: LogEntry[] = [];
  for await (const { text, line } of lines) {
    const entry = parseLogLine(text, line);
    chain.check(entry);
    replayableDate(entry);
    entries.push(entry);
  }
  let clock = 0;
  const writer = deps.writerAt(() => clock);
  for (const entry of entries) {
    clock = replayableDate(entry);
    const request = await guarded(entry, () =>
      operationRequest(
        ledger,
        operationOf(entry),
        async (id) => (await deps.reads.get(ledger, id))?.tx,
      ),
    );
    const outcome = await guarded(entry, () => writer.write(checked(request, entry)));
    if (outcome.kind !== 'committed')
      throw new ImportError(
        `log ${entry.id}: idempotency key "${entry.idempotencyKey}" was already used by an earlier log`,
      );
    // Another write of the ledger during the import takes an id: the logs no longer match.
    if (outcome.log.id !== entry.id)
      throw new ImportError(
        `log ${entry.id}: committed as log ${outcome.log.id}: the ledger was written to during the import`,
      );
    if (entry.hash !== '' && outcome.log.hash !== '' && outcome.log.hash !== entry.hash)
      throw new ImportError(`log ${entry.id}: replayed with a different hash`);
  }
  return entries.length;
}

/** Where the imported log must start: an empty ledger's log 1, or right after log `after`, its last. */
async function chainFrom(
  deps: LogImportDeps,
  ledger: LedgerRecord,
  after: number | undefined,
): Promise<ImportChain> {
  const newest = (await deps.logs.list(ledger, { pageSize: 1 })).data[0];
  if (after === undefined) {
    if (newest)
      throw new ImportError(
        `ledger "${ledger.name}" is not empty: logs are imported into a new ledger only (or continue one with after=<its last log id>)`,
      );
    return new ImportChain();
  }
  const last = newest?.id ?? 0;
  if (last !== after)
    throw new ImportError(
      `ledger "${ledger.name}": its last log is ${last}, not ${after}: a part of the import is missing or something else wrote to the ledger`,
    );
  return new ImportChain(newest);
}

/** The entry's date as a clock reading; a date the clock cannot give back exactly (sub-millisecond) cannot be replayed. */
function replayableDate(entry: LogEntry): number {
  const instant = guardedSync(entry, () => parseInstant(entry.date, 'date'));
  if (formatInstant({ ms: instant.ms, micros: 0 }) !== entry.date) {
    throw new ImportError(
      `log ${entry.id}: date ${entry.date} is not one this platform writes (UTC, millisecond precision): it cannot be replayed as is`,
    );
  }
  return instant.ms;
}

/** The request with its decision compared to the imported entry before anything is written. */
function checked<T>(request: WriteRequest<T>, entry: LogEntry): WriteRequest<T> {
  return {
    ...request,
    decide(state, context) {
      const decision = request.decide(state, context);
      if (!sameLog({ ...decision.change.log, date: entry.date }, entry)) {
        throw new ImportError(
          `log ${entry.id}: replaying it through the ledger gives different data (${entry.type})`,
        );
      }
      return decision;
    },
  };
}

const transactionSchema = v.object({
  postings: v.array(v.unknown()),
  metadata: v.optional(v.unknown()),
  timestamp: v.string(),
  reference: v.optional(v.string()),
});
const newTransactionSchema = v.object({
  transaction: transactionSchema,
  accountMetadata: v.optional(v.unknown()),
});
const revertedSchema = v.object({
  revertedTransaction: v.object({ id: v.bigint() }),
  transaction: v.object({ metadata: metadataMap, timestamp: v.string() }),
});
const target = v.variant('targetType', [
  v.object({ targetType: v.literal('TRANSACTION'), targetId: v.bigint() }),
  v.object({
    targetType: v.literal('ACCOUNT'),
    // The routes check a path's address; an imported one is checked here, as the same rule.
    targetId: v.pipe(
      v.string(),
      v.maxLength(MAX_ADDRESS_LENGTH, 'must be an account address'),
      v.regex(ACCOUNT_ADDRESS, 'must be an account address'),
    ),
  }),
]);
const setMetadataSchema = v.intersect([target, v.object({ metadata: metadataMap })]);
const deleteMetadataSchema = v.intersect([target, v.object({ key: v.string() })]);

/** The write that logs the entry: its data read back into the command it came from. */
export function operationOf(entry: LogEntry): LedgerOperation {
  const idempotency = {
    ...(entry.idempotencyKey !== '' ? { idempotencyKey: entry.idempotencyKey } : {}),
    // The version the entry was checked against is recorded again; its rules were applied when it was written.
    ...(entry.schemaVersion !== undefined ? { schemaVersion: entry.schemaVersion } : {}),
  };
  const pending = pendingOperationOf(entry, idempotency, (schema, value) =>
    parseData(entry, schema, value),
  );
  if (pending) return pending;
  switch (entry.type) {
    case 'CREATED_PENDING':
    case 'VOIDED_PENDING':
      throw new ImportError(`log ${entry.id}: ${entry.type} is not replayable here`);
    case 'NEW_TRANSACTION': {
      const { transaction: tx, accountMetadata } = parseData(entry, newTransactionSchema);
      const input = parseData(entry, replayedTransaction, {
        postings: tx.postings,
        metadata: tx.metadata ?? {},
        timestamp: tx.timestamp,
        ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
        accountMetadata: accountMetadata ?? {},
      });
      // The log records what was decided: a transaction that was forced past a balance is replayed as such.
      return { kind: 'create', input, options: { dryRun: false, force: true, ...idempotency } };
    }
    case 'REVERTED_TRANSACTION': {
      const { revertedTransaction, transaction } = parseData(entry, revertedSchema);
      const { [REVERTS_KEY]: _marker, ...metadata } = transaction.metadata;
      // A revert dated other than its log entry was made at the original's effective date.
      const atEffectiveDate = transaction.timestamp !== entry.date;
      return {
        kind: 'revert',
        id: Number(revertedTransaction.id),
        body: { metadata },
        options: { force: true, atEffectiveDate, dryRun: false, ...idempotency },
      };
    }
    case 'SET_METADATA':
    case 'DELETE_METADATA': {
      const data =
        entry.type === 'SET_METADATA'
          ? parseData(entry, setMetadataSchema)
          : parseData(entry, deleteMetadataSchema);
      const targetOf =
        data.targetType === 'ACCOUNT'
          ? { type: 'ACCOUNT' as const, address: data.targetId }
          : { type: 'TRANSACTION' as const, id: Number(data.targetId) };
      const change =
        'metadata' in data
          ? { kind: 'save' as const, metadata: data.metadata }
          : { kind: 'delete' as const, key: data.key };
      return {
        kind: 'metadata',
        target: targetOf,
        change,
        options: { dryRun: false, ...idempotency },
      };
    }
  }
}

function parseData<S extends v.GenericSchema>(
  entry: LogEntry,
  schema: S,
  value: unknown = entry.data,
): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  throw new ImportError(`log ${entry.id}: data${path ? `.${path}` : ''}: ${issue.message}`);
}

/** Any refusal of the ledger's rules, as the import's error naming the entry. */
async function guarded<T>(entry: LogEntry, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asImportError(entry, err);
  }
}

function guardedSync<T>(entry: LogEntry, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw asImportError(entry, err);
  }
}

function asImportError(entry: LogEntry, err: unknown): unknown {
  if (err instanceof ImportError) return err;
  // Throttling and unanswered writes keep their own answers (503): the entry was not refused.
  if (
    err instanceof PlatformError &&
    err.kind !== 'dependency_throttled' &&
    err.kind !== 'not_committed'
  )
    return new ImportError(`log ${entry.id}: ${err.message}`);
  return err;
}
