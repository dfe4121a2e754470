import { PreconditionFailedError } from '../../errors/index.js';
import type { Volume } from './postings.js';

/**
 * Balance preconditions (`expect`, docs/api.md §3.6): what a write expects of a pair's volumes just before it or
 * right after it. Decided inside the write's decision, on the state it decides from — under group commit the
 * batch's overlay, so the exact volumes the writes committed before it left — and a failure refuses the write
 * whole.
 */

/** Expectations one write may carry: each is a pair read, and a short list keeps a write's reads small. */
export const MAX_EXPECTATIONS = 20;

export const COMPARATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'] as const;
export type Comparator = (typeof COMPARATORS)[number];
export type Comparisons = Partial<Record<Comparator, bigint>>;

export const EXPECTED_FIELDS = ['balance', 'input', 'output'] as const;
type ExpectedField = (typeof EXPECTED_FIELDS)[number];

export interface Expectation {
  account: string;
  asset: string;
  /** `before` (the default): the volumes this write starts from; `after`: those it leaves. */
  at?: 'before' | 'after';
  balance?: Comparisons;
  input?: Comparisons;
  output?: Comparisons;
}

/** The pairs expectations name (each must be read, touched by the write or not). */
export function expectationPairs(expectations: readonly Expectation[]): Array<[string, string]> {
  const seen = new Map<string, [string, string]>();
  for (const e of expectations) seen.set(`${e.account}\u0000${e.asset}`, [e.account, e.asset]);
  return [...seen.values()];
}

const HOLDS: Record<Comparator, (value: bigint, bound: bigint) => boolean> = {
  $eq: (value, bound) => value === bound,
  $ne: (value, bound) => value !== bound,
  $gt: (value, bound) => value > bound,
  $gte: (value, bound) => value >= bound,
  $lt: (value, bound) => value < bound,
  $lte: (value, bound) => value <= bound,
};

/**
 * The failed expectations, in order, each described with what was found: `expect[1]: users:1 USD/2 balance is
 * 480 after the write, expected $gte 500`. A pair with no volume has volumes 0.
 */
export function failedExpectations(
  expectations: readonly Expectation[],
  volumes: {
    before: (account: string, asset: string) => Volume | undefined;
    after: (account: string, asset: string) => Volume | undefined;
  },
): string[] {
  const failures: string[] = [];
  expectations.forEach((e, index) => {
    const when = e.at ?? 'before';
    const volume = volumes[when](e.account, e.asset) ?? { input: 0n, output: 0n };
    const values: Record<ExpectedField, bigint> = {
      balance: volume.input - volume.output,
      input: volume.input,
      output: volume.output,
    };
    for (const field of EXPECTED_FIELDS) {
      for (const [comparator, bound] of Object.entries(e[field] ?? {}) as Array<
        [Comparator, bigint]
      >) {
        if (HOLDS[comparator](values[field], bound)) continue;
        failures.push(
          `expect[${index}]: ${e.account} ${e.asset} ${field} is ${values[field]} ${when} the write, expected ${comparator} ${bound}`,
        );
      }
    }
  });
  return failures;
}

/** Refuses the write (409 PRECONDITION_FAILED) naming every expectation that does not hold. */
export function checkExpectations(
  expectations: readonly Expectation[] | undefined,
  volumes: Parameters<typeof failedExpectations>[1],
): void {
  if (!expectations || expectations.length === 0) return;
  const failures = failedExpectations(expectations, volumes);
  if (failures.length > 0) throw new PreconditionFailedError(failures.join('; '));
}
