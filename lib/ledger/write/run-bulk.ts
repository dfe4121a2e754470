import { PlatformError } from '../../errors/index.js';
import { type BulkElement, operationOf } from '../commands/bulk.js';
import { type LedgerOperation, operationRequest } from '../commands/operations.js';
import { revertIdempotency, revertTransactionWrite } from '../commands/revert-transaction.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import type { ScriptStateReads } from '../domain/script-state.js';
import type { Transaction } from '../domain/transaction.js';
import { MAX_STAGED_ACTIONS } from '../store/staged-bulk.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import type { CommandOutcome, GroupOutcome, LedgerCommands } from './ledger-commands.js';

/** What became of one element of a bulk: applied (how), failed (why), or not applied (after another failed). */
export type ElementOutcome =
  | { kind: 'applied'; outcome: CommandOutcome }
  | { kind: 'failed'; error: PlatformError }
  | { kind: 'not-applied'; why: string };

export interface BulkOptions {
  /** All elements in one DynamoDB transaction: all written, or none. */
  atomic: boolean;
  /** Up to PARALLELISM elements at once (only when writes can be group-committed). */
  parallel: boolean;
  /** Non-atomic: elements after a failed one are still applied. */
  continueOnFailure: boolean;
}

export interface BulkDeps {
  commands: LedgerCommands;
  writer: LedgerWriter;
  reads: TransactionReads;
  scriptState: (ledger: LedgerRecord) => ScriptStateReads;
  now?: () => number;
  /**
   * Where an API gateway times a request out (the ledger behind one, relaying busy writes): how long a bulk
   * committed element by element starts new elements (BULK_TIME_BUDGET_MS); absent, no limit.
   */
  timeBudgetMs?: number;
}

/**
 * How long a non-atomic bulk committed element by element starts new elements: the rest are answered not
 * applied. An element started just before may take the relay's whole wait (8 s and 3 s of grace), and the API
 * gateway answers 504 at 29 s: so the bulk always answers, with each element's true outcome, and never times out
 * after committing part of itself.
 */
export const BULK_TIME_BUDGET_MS = 15_000;

/**
 * Elements of a `parallel` bulk in flight at once. Every write of a ledger commits through its HEAD, so running
 * them at once only pays when they can be group-committed (a relay is configured, as on AWS and `npm start`);
 * without one they run one at a time, a schedule the reference's parallel mode allows too.
 */
const PARALLELISM = 10;

/**
 * The elements of POST /v2/<ledger>/_bulk (docs/api.md §3.2), validated, carried out: one outcome per element, in
 * order. Non-atomic: one by one — or up to PARALLELISM at once with `parallel` —, and after the first failure the
 * rest are not applied unless `continueOnFailure`. Atomic: all elements are one DynamoDB transaction, so either
 * all are written or none; an element may revert or add metadata to a transaction an earlier element creates.
 */
export async function runBulk(
  ledger: LedgerRecord,
  elements: BulkElement[],
  options: BulkOptions,
  deps: BulkDeps,
): Promise<ElementOutcome[]> {
  if (options.atomic) {
    // With the embedded engine, a bulk that fits one TransactWriteItems is decided and committed in a batch.
    const operations = elements.map(operationOf);
    const grouped = surelyTooLarge(operations)
      ? undefined
      : await deps.commands.executeAtomic(ledger, operations);
    if (grouped) return atomicOutcomes(grouped);
    const readTransaction = async (id: number) => (await deps.reads.get(ledger, id))?.tx;
    return oneAtATime(ledger, () =>
      runAtomic(ledger, elements, deps.writer, readTransaction, deps.scriptState(ledger)),
    );
  }
  // With the embedded engine, all elements are handed over at once and decided in order in as few commits as fit.
  const inOrder = await deps.commands.executeInOrder(ledger, elements.map(operationOf), {
    stopOnFailure: !options.continueOnFailure,
  });
  if (inOrder) return inOrder.map(elementOutcome);
  const now = deps.now ?? Date.now;
  const deadlineMs = now() + (deps.timeBudgetMs ?? Number.POSITIVE_INFINITY);
  return runEach(elements, (element) => deps.commands.execute(ledger, operationOf(element)), {
    parallel: options.parallel && deps.commands.groupCommits,
    continueOnFailure: options.continueOnFailure,
    outOfTime: () => now() >= deadlineMs,
  });
}

function elementOutcome(outcome: GroupOutcome): ElementOutcome {
  switch (outcome.kind) {
    case 'done':
      return { kind: 'applied', outcome: outcome.outcome };
    case 'failed':
      return { kind: 'failed', error: outcome.error };
    case 'skipped':
      return { kind: 'not-applied', why: `element ${outcome.afterIndex} failed` };
  }
}

/**
 * Whether an atomic bulk cannot fit the engine's largest staged batch whatever it decides: each new transaction
 * writes its item and each idempotency key its record, beside HEAD. Such a bulk goes straight to the direct path
 * (staged on its own) instead of being decided by the engine first only to be answered too large.
 */
function surelyTooLarge(operations: readonly LedgerOperation[]): boolean {
  const atLeast = operations.reduce(
    (n, o) => n + (o.kind === 'create' ? 1 : 0) + (o.options.idempotencyKey ? 1 : 0),
    1,
  );
  return atLeast > MAX_STAGED_ACTIONS;
}

/** An atomic group's answers: all applied, or the failed element's error and every other not applied. */
function atomicOutcomes(outcomes: GroupOutcome[]): ElementOutcome[] {
  const failed = outcomes.findIndex((o) => o.kind === 'failed');
  if (failed < 0) return outcomes.map(elementOutcome);
  return outcomes.map(
    (o, i): ElementOutcome =>
      i === failed && o.kind === 'failed'
        ? { kind: 'failed', error: o.error }
        : { kind: 'not-applied', why: `the atomic bulk failed at element ${failed}` },
  );
}

/** The atomic bulks of each ledger running in this process, as a chain: the last one's end. */
const atomicLines = new Map<string, Promise<unknown>>();

/**
 * Atomic bulks of one ledger run one at a time in this process. Each commits directly over HEAD's version, so
 * many at once (one process serving many clients, as `npm start` does) mostly lose their commits to one another
 * and retry until they give up; in line, each commits at its first attempt.
 */
async function oneAtATime<T>(ledger: LedgerRecord, run: () => Promise<T>): Promise<T> {
  const key = `${ledger.environment}\u0000${ledger.name}`;
  const before = atomicLines.get(key) ?? Promise.resolve();
  const mine = before.then(run, run);
  const settled = mine.catch(() => undefined);
  atomicLines.set(key, settled);
  try {
    return await mine;
  } finally {
    if (atomicLines.get(key) === settled) atomicLines.delete(key);
  }
}

/** Raised inside an atomic bulk so the response can say which element failed. */
class ElementFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: PlatformError,
  ) {
    super(error.message);
  }
}

/** All elements in one commit, never relayed (a sequenced writer decides requests one by one): all or none. */
async function runAtomic(
  ledger: LedgerRecord,
  elements: BulkElement[],
  writer: LedgerWriter,
  readTransaction: (id: number) => Promise<Transaction | undefined>,
  scriptState: ScriptStateReads,
): Promise<ElementOutcome[]> {
  try {
    const requests = await Promise.all(
      elements.map(async (e, i) => {
        const operation = operationOf(e);
        try {
          // A revert of a transaction an earlier element creates is built when decided, from the bulk's own items.
          if (
            operation.kind === 'revert' &&
            !(await readTransaction(operation.id)) &&
            createsEarlier(elements, i)
          )
            return tagged(i, revertInBulk(ledger, operation));
          return tagged(i, await operationRequest(ledger, operation, readTransaction, scriptState));
        } catch (err) {
          throw err instanceof PlatformError ? new ElementFailure(i, err) : err;
        }
      }),
    );
    const outcomes = await writer.writeAtomic(ledger, requests);
    return outcomes.map(
      (o): ElementOutcome => ({
        kind: 'applied',
        outcome:
          o.kind === 'committed' ? { kind: 'committed', result: o.result, logId: o.log.id } : o,
      }),
    );
  } catch (err) {
    if (!(err instanceof ElementFailure)) throw err;
    return elements.map(
      (_, i): ElementOutcome =>
        i === err.index
          ? { kind: 'failed', error: err.error }
          : { kind: 'not-applied', why: `the atomic bulk failed at element ${err.index}` },
    );
  }
}

/**
 * Elements one by one, or `parallel`: up to PARALLELISM at once, results in element order. After a failure,
 * elements not started yet are not applied unless `continueOnFailure`; once `outOfTime`, none is started.
 */
async function runEach(
  elements: BulkElement[],
  execute: (element: BulkElement) => Promise<CommandOutcome>,
  options: { parallel: boolean; continueOnFailure: boolean; outOfTime: () => boolean },
): Promise<ElementOutcome[]> {
  const results: ElementOutcome[] = new Array(elements.length);
  let failedAt: number | undefined;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < elements.length; i = next++) {
      if (failedAt !== undefined && !options.continueOnFailure) {
        results[i] = { kind: 'not-applied', why: `element ${failedAt} failed` };
        continue;
      }
      if (options.outOfTime()) {
        results[i] = {
          kind: 'not-applied',
          why: 'the bulk ran out of time; send this element again',
        };
        continue;
      }
      try {
        results[i] = { kind: 'applied', outcome: await execute(elements[i]!) };
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        results[i] = { kind: 'failed', error: err };
        failedAt ??= i;
      }
    }
  };
  await Promise.all(
    Array.from({ length: options.parallel ? Math.min(PARALLELISM, elements.length) : 1 }, worker),
  );
  return results;
}

/** Whether an element before `index` creates a transaction (so a revert may name one that does not exist yet). */
const createsEarlier = (elements: BulkElement[], index: number) =>
  elements.slice(0, index).some((e) => e.action === 'CREATE_TRANSACTION');

/** A revert decided over the bulk's items: the original is the one the snapshot or an earlier element holds. */
function revertInBulk(
  ledger: LedgerRecord,
  operation: Extract<LedgerOperation, { kind: 'revert' }>,
): WriteRequest<unknown> {
  return {
    ledger,
    reads: { transactions: [operation.id] },
    dryRun: false,
    ...revertIdempotency(operation.id, operation.body, operation.options),
    decide(state, context) {
      return revertTransactionWrite(
        ledger,
        operation.id,
        state.transaction(operation.id)?.tx,
        operation.body,
        operation.options,
      ).decide(state, context);
    },
  };
}

/** Wraps a request so an error in its decision names the element (atomic bulks decide all elements at once). */
function tagged(index: number, request: WriteRequest<unknown>): WriteRequest<unknown> {
  return {
    ...request,
    decide(state, context) {
      try {
        return request.decide(state, context);
      } catch (err) {
        throw err instanceof PlatformError ? new ElementFailure(index, err) : err;
      }
    },
  };
}
