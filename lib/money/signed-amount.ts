import * as v from 'valibot';
import { amountSchema } from './amounts.js';

/** A signed integer (a balance or a bound on one): the magnitude follows the amounts' own rules. */
export const signedAmountSchema = v.pipe(
  v.union(
    [v.bigint(), v.number(), v.string()],
    'must be an integer (JSON number or decimal string)',
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value = dataset.value;
    const negative =
      (typeof value === 'bigint' && value < 0n) ||
      (typeof value === 'number' && value < 0) ||
      (typeof value === 'string' && value.startsWith('-'));
    const magnitude = !negative
      ? value
      : typeof value === 'string'
        ? value.slice(1)
        : typeof value === 'bigint'
          ? -value
          : Math.abs(value);
    const parsed = v.safeParse(amountSchema, magnitude);
    if (!parsed.success) {
      addIssue({ message: parsed.issues[0].message });
      return NEVER;
    }
    return negative ? -parsed.output : parsed.output;
  }),
);
