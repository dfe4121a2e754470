/**
 * Failure budgets for client authentication (RFC 6749 §2.3.1 asks for brute-force protection). Counted in
 * fixed windows per client id and per source address; over budget, the token endpoint answers 429 with
 * `Retry-After` until the window ends, before it looks at the secret.
 */
export interface ThrottlePolicy {
  windowSeconds: number;
  maxFailuresPerClient: number;
  maxFailuresPerAddress: number;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = { windowSeconds: 60, maxFailuresPerClient: 10, maxFailuresPerAddress: 50 };

export const windowStart = (nowMs: number, windowSeconds: number): number =>
  Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;

export const secondsLeftInWindow = (nowMs: number, windowSeconds: number): number =>
  Math.max(1, Math.ceil(windowStart(nowMs, windowSeconds) + windowSeconds - nowMs / 1000));

export function overBudget(failures: { client: number; address: number }, policy: ThrottlePolicy): boolean {
  return failures.client >= policy.maxFailuresPerClient || failures.address >= policy.maxFailuresPerAddress;
}
