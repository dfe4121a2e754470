/**
 * A config's rate limit (`rateLimitPerSecond`): at most that many attempts start per second to its endpoint.
 * Each attempt takes the next number of its second's window; one past the limit waits for the window its number
 * would fall in if every second carried `limit` attempts, so a burst drains at the limit instead of every held-back
 * message retrying in the very next second.
 */
export const MAX_RATE_LIMIT_PER_SECOND = 10_000;

/** A held-back attempt never waits longer than one SQS delay: it takes a new number when it comes back. */
const MAX_WAIT_SECONDS = 900;

/** How long the attempt numbered `taken` in its second waits (0: it may go now). */
export function rateLimitWaitSeconds(taken: number, limitPerSecond: number): number {
  if (taken <= limitPerSecond) return 0;
  return Math.min(MAX_WAIT_SECONDS, Math.ceil(taken / limitPerSecond) - 1);
}
