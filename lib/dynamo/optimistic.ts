import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DependencyThrottledError } from '../errors/index.js';
import { classifyWriteFailure, isThrottling } from './errors.js';

export type TransactItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];

/**
 * Optimistic writes: a record is read with its version, a transaction is written conditionally on that version
 * (its FIRST item carries the condition), and a lost race is read and decided again, a bounded number of times.
 */

/** True when the transaction committed; false when another writer got there first. Throttling is thrown. */
export async function commitUnlessRaced(
  doc: DynamoDBDocumentClient,
  items: TransactItem[],
): Promise<boolean> {
  try {
    await doc.send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (err) {
    if (isThrottling(err) || !lostRace(err)) throw err;
    return false;
  }
}

export interface RetryOptions {
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  /** The 503 message when every attempt lost its race. */
  busy: string;
  /** First backoff window (ms), doubled after each lost race (default 10). */
  baseDelayMs?: number;
  /** Largest backoff window (ms) (default 500). */
  maxDelayMs?: number;
  /** Time budget (ms) from the first attempt: no new attempt starts after it (default: none, attempts only). */
  budgetMs?: number;
  now?: () => number;
}

/**
 * Runs `step` until it reports done; after a lost race it waits (full jitter over a window that doubles with each
 * lost race, capped) and runs it again, until `maxAttempts` or the time budget is spent (then 503, retry later).
 */
export async function retryRaces<T>(
  step: () => Promise<{ done: true; value: T } | { done: false }>,
  options: RetryOptions,
): Promise<T> {
  const { baseDelayMs = 10, maxDelayMs = 500, budgetMs, now = Date.now } = options;
  const deadline = budgetMs === undefined ? Infinity : now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    const outcome = await step();
    if (outcome.done) return outcome.value;
    if (attempt >= options.maxAttempts) throw new DependencyThrottledError(options.busy);
    const wait = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    if (now() + wait >= deadline) throw new DependencyThrottledError(options.busy);
    await options.sleep(wait);
  }
}

/** Another writer got there first: the first item's condition (the version) failed, or DynamoDB saw a conflict. */
function lostRace(err: unknown): boolean {
  const failure = classifyWriteFailure(err);
  return (
    failure.kind === 'conflict' ||
    ((err as Error).name === 'TransactionCanceledException' && failure.index === 0)
  );
}
