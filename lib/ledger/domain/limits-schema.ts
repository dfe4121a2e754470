import * as v from 'valibot';
import { ASSET } from '../../money/asset.js';
import { signedAmountSchema } from '../../money/signed-amount.js';
import type { LimitRule } from './limits.js';

/**
 * Rules per ledger. Here, not in limits.ts: limits.ts reaches this file back through the mapping, and a constant
 * read while that loop is still loading would not be initialised yet.
 */
export const MAX_LIMIT_RULES = 100;

/** An address pattern as v1 contracts take it: address segments, `*` any run of characters. */
const PATTERN = /^[a-zA-Z0-9_*-]+(:[a-zA-Z0-9_*-]+)*$/;

const ruleSchema = v.pipe(
  v.strictObject({
    account: v.pipe(
      v.string('must be a string'),
      v.maxLength(256, 'must be at most 256 characters'),
      v.regex(PATTERN, 'must be an address pattern (segments of a-z A-Z 0-9 _ - and *)'),
    ),
    asset: v.optional(
      v.pipe(v.string('must be a string'), v.regex(ASSET, 'must be an asset such as USD or USD/2')),
    ),
    min: v.optional(signedAmountSchema),
    max: v.optional(signedAmountSchema),
    debitsMustNotExceedCredits: v.optional(v.boolean('must be a boolean')),
    creditsMustNotExceedDebits: v.optional(v.boolean('must be a boolean')),
    forceAllowed: v.optional(v.boolean('must be a boolean')),
  }),
  v.check(
    (r) =>
      r.min !== undefined ||
      r.max !== undefined ||
      r.debitsMustNotExceedCredits === true ||
      r.creditsMustNotExceedDebits === true,
    'must set min, max, debitsMustNotExceedCredits or creditsMustNotExceedDebits',
  ),
  v.check(
    (r) => r.min === undefined || r.max === undefined || r.min <= r.max,
    'min must not be above max',
  ),
);

/** The body of PUT /v2/<ledger>/limits, and the stored form of the rules (docs/api.md §3.6). */
export const limitsBodySchema = v.strictObject({
  rules: v.pipe(
    v.array(ruleSchema, 'must be an array of rules'),
    v.maxLength(MAX_LIMIT_RULES, `must have at most ${MAX_LIMIT_RULES} rules`),
  ),
});

/** Rules as the API shows them (and stores them): only the fields set. */
export function limitsView(rules: readonly LimitRule[]): { rules: LimitRule[] } {
  return { rules: rules.map((r) => ({ ...r })) };
}
