import { sleepMs } from '../../dynamo/retry.js';
import { DependencyThrottledError } from '../../errors/index.js';
import type { LedgerRecord } from '../domain/change.js';
import type { LedgerRef } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { FINISH_PATIENCE_MS, finishStaged, type Patience, readHead } from './staged-bulk.js';

/** Reads tried again before giving up, each after a staged bulk ran beside it (then finished by the reader). */
const MAX_READ_ROUNDS = 8;

/**
 * A read that never shows part of a staged bulk (staged-bulk.ts): HEAD is read before it — a staged bulk is
 * finished first — and after it; a bulk staged in between (HEAD staged, or its count of staged bulks moved) may
 * have been half-applied while the read ran, so it is finished and the read made again. Two consistent reads of
 * HEAD per read: what all-or-nothing bulks beyond one DynamoDB transaction cost a reader.
 */
export async function readSettled<T>(
  port: LedgerTable,
  ledger: LedgerRef,
  read: () => Promise<T>,
  patience: Patience = { ms: FINISH_PATIENCE_MS, sleep: sleepMs },
): Promise<T> {
  for (let round = 0; round < MAX_READ_ROUNDS; round++) {
    const before = await finishStaged(port, ledger, undefined, patience);
    const value = await read();
    const after = await readHead(port, ledger);
    if (!after?.staged && (after?.stagedBulks ?? 0) === (before?.stagedBulks ?? 0)) return value;
  }
  throw new DependencyThrottledError('the ledger is busy applying bulks; retry shortly');
}

/** A reads object's method whose first argument is the ledger and which answers a promise. */
type LedgerRead = (ledger: LedgerRecord, ...rest: never[]) => Promise<unknown>;

/**
 * `reads` with each of `methods` made a settled read (readSettled) of the ledger it is given first; its other
 * methods unchanged. The read paths stay as they are; which of them serve ledger state is said where they are
 * wired (app.ts).
 */
export function settledReads<T extends object>(
  reads: T,
  methods: ReadonlyArray<{ [K in keyof T]: T[K] extends LedgerRead ? K : never }[keyof T]>,
  portOf: (ledger: LedgerRecord) => LedgerTable,
): T {
  const settled = Object.create(reads) as T;
  for (const method of methods) {
    const original = reads[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    const wrapped = (ledger: LedgerRecord, ...rest: unknown[]) =>
      readSettled(portOf(ledger), ledger, () => original.call(reads, ledger, ...rest));
    Object.defineProperty(settled, method, { value: wrapped });
  }
  return settled;
}
