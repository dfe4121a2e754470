import * as v from 'valibot';
import { ASSET } from '../../money/asset.js';
import { signedAmountSchema } from '../../money/signed-amount.js';
import type { Reads } from '../domain/change.js';
import { type Expectation, expectationPairs } from '../domain/expectations.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';

/** Expectations one write may carry: each is a pair read, and a short list keeps a write's reads small. */
export const MAX_EXPECTATIONS = 20;

const signedAmount = signedAmountSchema;

const comparisons = v.pipe(
  v.strictObject({
    $eq: v.optional(signedAmount),
    $ne: v.optional(signedAmount),
    $gt: v.optional(signedAmount),
    $gte: v.optional(signedAmount),
    $lt: v.optional(signedAmount),
    $lte: v.optional(signedAmount),
  }),
  v.check(
    (c) => Object.keys(c).length > 0,
    'must hold at least one of $eq, $ne, $gt, $gte, $lt, $lte',
  ),
);

const expectationSchema = v.pipe(
  v.strictObject({
    account: v.pipe(
      v.string('must be a string'),
      v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
      v.regex(ACCOUNT_ADDRESS, 'must be an account address'),
    ),
    asset: v.pipe(
      v.string('must be a string'),
      v.regex(ASSET, 'must be an asset such as USD or USD/2'),
    ),
    at: v.optional(v.picklist(['before', 'after'], 'must be before or after')),
    balance: v.optional(comparisons),
    input: v.optional(comparisons),
    output: v.optional(comparisons),
  }),
  v.check(
    (e) => e.balance !== undefined || e.input !== undefined || e.output !== undefined,
    'must compare at least one of balance, input, output',
  ),
);

/** `expect` on a write's body (docs/api.md §3.6). */
export const expectationsSchema = v.pipe(
  v.array(expectationSchema, 'must be an array of expectations'),
  v.maxLength(MAX_EXPECTATIONS, `must have at most ${MAX_EXPECTATIONS} expectations`),
);

/** A write's body schema with `expect` beside its own fields (holds: domain/pending-schema.ts has no commands). */
export function withExpect<TEntries extends v.ObjectEntries>(
  body: v.StrictObjectSchema<TEntries, undefined>,
) {
  return v.strictObject({ ...body.entries, expect: v.optional(expectationsSchema) });
}

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
