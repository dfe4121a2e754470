import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyThrottledError } from '../errors/index.js';
import { isThrottling } from './errors.js';

export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * Optimistic writes: a record is read with its version, a transaction is written conditionally on that version
 * (its FIRST item carries the condition), and a lost race is read and decided again, a bounded number of times.
 */

/** True when the transaction committed; false when another writer got there first. Throttling is thrown. */
export async function commitUnlessRaced(doc: DynamoDBDocumentClient, items: TransactItem[]): Promise<boolean> {
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
  /** The first wait's ceiling, doubled after each lost race (default 20 ms: `10 * 2 ** attempt`). */
  firstDelayMs?: number;
  /** The ceiling no wait exceeds (default 500 ms). Records written by many at once need a wider window. */
  maxDelayMs?: number;
}

/** Runs `step` until it reports done; after a lost race it waits (full jitter, capped) and runs it again. */
export async function retryRaces<T>(step: () => Promise<{ done: true; value: T } | { done: false }>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await step();
    if (outcome.done) return outcome.value;
    if (attempt >= options.maxAttempts) throw new DependencyThrottledError(options.busy);
    const first = options.firstDelayMs ?? 20;
    await options.sleep(Math.random() * Math.min(options.maxDelayMs ?? 500, (first / 2) * 2 ** attempt));
  }
}

/** Another writer got there first: the first item's condition (the version) failed, or DynamoDB saw a conflict. */
function lostRace(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TransactionConflictException') return true;
  if (err.name !== 'TransactionCanceledException') return false;
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons[0]?.Code === 'ConditionalCheckFailed' || reasons.some((r) => r.Code === 'TransactionConflict');
}
