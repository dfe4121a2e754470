import type { Reads } from '../domain/change.js';
import { type Expectation, expectationPairs } from '../domain/expectations.js';

/** A write's reads with the pairs its expectations name (and their accounts). */
export function withExpectationReads(
  reads: Reads,
  expectations: readonly Expectation[] | undefined,
): Reads {
  if (!expectations || expectations.length === 0) return reads;
  const known = new Set((reads.pairs ?? []).map(([a, s]) => `${a}\u0000${s}`));
  const extra = expectationPairs(expectations).filter(([a, s]) => !known.has(`${a}\u0000${s}`));
  return { ...reads, pairs: [...(reads.pairs ?? []), ...extra] };
}
