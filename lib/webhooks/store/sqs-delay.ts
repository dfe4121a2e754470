// SQS holds a message back for at most 900 s (DelaySeconds), but most of the retry schedule is longer. A longer
// wait is taken in hops: send with the maximum delay, and when the message arrives early, send it on again
// with whatever remains until its `at`.

export const SQS_MAX_DELAY_SECONDS = 900;

export interface SqsHop {
  /** DelaySeconds for the message to send now. */
  delaySeconds: number;
  /** True when the message will arrive before its due time and must be re-scheduled, not delivered. */
  anotherHop: boolean;
}

/** Rounded up, so a hop never arrives a fraction of a second early and costs a needless extra hop. */
export function sqsDelaySeconds(delayMs: number): SqsHop {
  const seconds = Math.max(0, Math.ceil(delayMs / 1000));
  return {
    delaySeconds: Math.min(SQS_MAX_DELAY_SECONDS, seconds),
    anotherHop: seconds > SQS_MAX_DELAY_SECONDS,
  };
}

/** The hop for an attempt due at `atMs`, as seen at `nowMs` (both epoch milliseconds). */
export function sqsHop(atMs: number, nowMs: number): SqsHop {
  return sqsDelaySeconds(atMs - nowMs);
}
