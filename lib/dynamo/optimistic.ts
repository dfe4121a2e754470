import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DependencyThrottledError } from '../errors/index.js';
import { classifyWriteFailure, isThrottling } from './errors.js';
import { type Attempt, type RetryPolicy, retryWithBackoff } from './retry.js';
import type { TransactItem } from './transact-item.js';

// Stores that import the item type from here (lib/webhooks) move to ./transact-item.js with their own change.
export type { TransactItem } from './transact-item.js';

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

export interface RetryOptions extends RetryPolicy {
  /** The 503 message when every attempt lost its race. */
  busy: string;
}

/**
 * Runs `step` until it reports done; after a lost race it waits (lib/dynamo/retry.ts: full jitter over a window
 * that doubles with each lost race, capped) and runs it again, until `maxAttempts` or the time budget is spent
 * (then 503, retry later).
 */
export function retryRaces<T>(step: () => Promise<Attempt<T>>, options: RetryOptions): Promise<T> {
  return retryWithBackoff(step, options, () => {
    throw new DependencyThrottledError(options.busy);
  });
}

/** Another writer got there first: the first item's condition (the version) failed, or DynamoDB saw a conflict. */
function lostRace(err: unknown): boolean {
  const failure = classifyWriteFailure(err);
  return (
    failure.kind === 'conflict' ||
    ((err as Error).name === 'TransactionCanceledException' && failure.index === 0)
  );
}
