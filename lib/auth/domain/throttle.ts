import ipaddr from 'ipaddr.js';

/**
 * Failure budgets of the token endpoint (RFC 6749 §2.3.1 asks for brute-force protection), counted in fixed
 * windows. The model and its numbers are in docs/decisions/auth.md ("Token endpoint failure budgets").
 *
 * - A **source** is one client id presented from one address group (an IPv4 address, or an IPv6 /64, which one
 *   subscriber usually holds whole). Each source has its own budget, so failures from address X never spend the
 *   budget of address Y: a guesser cannot keep the genuine client out, and a noisy client behind a shared NAT
 *   does not lock out the other clients behind it.
 * - A **client** budget counts every source of one client id, to bound guessing from many addresses at once.
 *   Once it is spent, the client is not locked: each source may still hold one attempt (so a genuine secret from
 *   an address that has not been failing keeps working), and any source that has failed is refused.
 *
 * An attempt is reserved in every budget it counts against before its secret is compared, by an atomic
 * conditional increment; an attempt that authenticates gives its reservations back. However many requests
 * arrive at once, at most the budget is ever compared.
 */
export interface ThrottlePolicy {
  windowSeconds: number;
  /** Failed (or in-flight) attempts per client id and source address group per window. */
  maxFailuresPerSource: number;
  /** Failed (or in-flight) attempts per client id from all sources per window. */
  maxFailuresPerClient: number;
  /** What each source may still hold once the client budget is spent. */
  maxFailuresPerSourceOnceClientSpent: number;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = {
  windowSeconds: 60,
  maxFailuresPerSource: 10,
  maxFailuresPerClient: 300,
  maxFailuresPerSourceOnceClientSpent: 1,
};

export const windowStart = (nowMs: number, windowSeconds: number): number =>
  Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;

export const secondsLeftInWindow = (nowMs: number, windowSeconds: number): number =>
  Math.max(1, Math.ceil(windowStart(nowMs, windowSeconds) + windowSeconds - nowMs / 1000));

/**
 * The address group a budget is keyed by: IPv4 as is (IPv4-mapped IPv6 included), IPv6 by its /64 prefix — an
 * IPv6 subscriber gets at least a /64, so keying by full address would give a guesser 2^64 fresh budgets.
 * Anything unparseable (no address known) shares one group.
 */
export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/** The outcome of the two reservations an attempt makes: the count each reached, or undefined when refused. */
export interface Reservations {
  client: number | undefined;
  source: number | undefined;
}

/**
 * Whether an attempt whose reservations came out as `reserved` may be evaluated. The source reservation is
 * conditional on `maxFailuresPerSource`; when the client budget refused, the source must also be within the
 * smaller allowance (its own count, this attempt included).
 */
export function mayEvaluate(reserved: Reservations, policy: ThrottlePolicy): boolean {
  if (reserved.source === undefined) return false;
  if (reserved.client === undefined)
    return reserved.source <= policy.maxFailuresPerSourceOnceClientSpent;
  return true;
}
