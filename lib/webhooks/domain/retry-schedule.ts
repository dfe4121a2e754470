// The retry schedule of docs/api.md §4.1 (Svix's hosted schedule): attempt 1 at once, then after each failure
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — eight attempts over about 32.6 h — then the delivery is `failed`
// and kept for replay.
import { retryAfterMs } from './retry-after.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n - 1] is the wait after attempt n fails. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** ±20 %: spreads the retries of many deliveries that failed together (one receiver outage) apart again. */
export const JITTER = 0.2;

/**
 * A receiver may ask for more time with Retry-After, but not for ever: a day at most, so a mistaken or hostile
 * header cannot park a delivery indefinitely.
 */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

export interface NextAttemptInput {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  /** Epoch milliseconds when it failed. */
  nowMs: number;
  /** The response's Retry-After header, if any (delta-seconds or an HTTP-date). */
  retryAfter?: string | undefined;
  /** Uniform in [0, 1); injectable so tests can pin the jitter. 0.5 means no jitter. */
  random?: () => number;
}

/** When the next attempt is due (`atMs`, epoch milliseconds), or that the delivery has failed. */
export type NextAttempt = { atMs: number } | { give: 'failed' };

export function nextAttempt({
  attempt,
  nowMs,
  retryAfter,
  random = Math.random,
}: NextAttemptInput): NextAttempt {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new Error(`attempt must be a positive integer: ${attempt}`);
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return { give: 'failed' };
  const jittered = Math.round(base * (1 + JITTER * (2 * random() - 1)));
  const asked = retryAfter === undefined ? undefined : retryAfterMs(retryAfter, nowMs);
  // Retry-After only ever lengthens the wait: a receiver cannot make us retry faster than the schedule.
  const delayMs =
    asked === undefined ? jittered : Math.max(jittered, Math.min(asked, MAX_RETRY_AFTER_MS));
  return { atMs: nowMs + delayMs };
}
