import * as v from 'valibot';
import { ASSET } from '../../money/asset.js';
import { signedAmountSchema } from '../../money/signed-amount.js';
import { LIMIT_RULE_MEANING, type LimitRule, MAX_LIMIT_RULES } from '../domain/limits.js';

/**
 * The body of PUT /v2/<ledger>/limits (docs/api.md §3.6): the rules the command takes (domain/limits.ts's LimitRule),
 * each checked for what it means as the domain says. The store reads the stored rules back with its own decoder.
 */

/** An address pattern as v1 contracts take it: address segments, `*` any run of characters. */
const PATTERN = /^[a-zA-Z0-9_*-]+(:[a-zA-Z0-9_*-]+)*$/;

const { bounds, order } = LIMIT_RULE_MEANING;

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
  v.check(bounds.holds, bounds.message),
  v.check(order.holds, order.message),
) satisfies v.GenericSchema<unknown, LimitRule>;

/** Also the answer's shape (GET and PUT answer the rules as given). */
export const limitsBodySchema = v.strictObject({
  rules: v.pipe(
    v.array(ruleSchema, 'must be an array of rules'),
    v.maxLength(MAX_LIMIT_RULES, `must have at most ${MAX_LIMIT_RULES} rules`),
  ),
});
