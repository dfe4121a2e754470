/**
 * The one retry loop of every store: bounded (a number of attempts, and optionally a time budget) and jittered
 * (full jitter: each wait is uniform over a window that doubles with every failed attempt, up to a cap), so
 * writers that collided spread out instead of colliding again.
 */

/** First backoff window: the wait after the first failed attempt is uniform over twice this. */
export const DEFAULT_BASE_DELAY_MS = 10;
/** Largest backoff window. */
export const DEFAULT_MAX_DELAY_MS = 500;

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The window after failed attempt n is `baseDelayMs × 2^n`, capped (default DEFAULT_BASE_DELAY_MS). */
  baseDelayMs?: number;
  /** The cap on the window (default DEFAULT_MAX_DELAY_MS). */
  maxDelayMs?: number;
  /** Time budget from the first attempt: no attempt starts after it (default: none, attempts only). */
  budgetMs?: number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** What one attempt came to: done with a value, or to be tried again. */
export type Attempt<T> = { done: true; value: T } | { done: false };

/** The attempt a step that answers `'retry'` when it must be tried again came to. */
export const attemptOf = <T>(outcome: T | 'retry'): Attempt<T> =>
  outcome === 'retry' ? { done: false } : { done: true, value: outcome as T };

export const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The wait after `failedAttempts` failed attempts: full jitter over the capped, doubling window. */
export function backoffMs(
  failedAttempts: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> = {},
  random: () => number = Math.random,
): number {
  const { baseDelayMs = DEFAULT_BASE_DELAY_MS, maxDelayMs = DEFAULT_MAX_DELAY_MS } = policy;
  return random() * Math.min(maxDelayMs, baseDelayMs * 2 ** failedAttempts);
}

/**
 * Runs `step` until it is done, waiting `backoffMs` between attempts. Once `maxAttempts` attempts failed, or the
 * next one would start past the time budget, answers what `exhausted` answers (usually it throws: a 503 that
 * says to retry later).
 */
export async function retryWithBackoff<T>(
  step: (attempt: number) => Promise<Attempt<T>>,
  policy: RetryPolicy,
  exhausted: (attempts: number) => T,
): Promise<T> {
  const { budgetMs, now = Date.now, sleep = sleepMs } = policy;
  const deadline = budgetMs === undefined ? Infinity : now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    const outcome = await step(attempt);
    if (outcome.done) return outcome.value;
    if (attempt >= policy.maxAttempts) return exhausted(attempt);
    const wait = backoffMs(attempt, policy);
    if (now() + wait >= deadline) return exhausted(attempt);
    await sleep(wait);
  }
}
