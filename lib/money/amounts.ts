import * as v from 'valibot';

/** DynamoDB Numbers hold 38 significant digits: amounts, volumes and balances stay within them (rule 1). */
export const MAX_DIGITS = 38;
export const MAX_AMOUNT = 10n ** BigInt(MAX_DIGITS) - 1n;

/**
 * An amount as the API accepts it: a JSON integer (parsed to bigint by `lib/json`), a safe JS integer, or a
 * decimal string. Never negative, never fractional, at most 38 digits.
 */
export const amountSchema = v.pipe(
  v.union(
    [v.bigint(), v.number(), v.string()],
    'must be an integer (JSON number or decimal string)',
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value = dataset.value;
    let amount: bigint;
    if (typeof value === 'bigint') amount = value;
    else if (typeof value === 'number') {
      if (!Number.isInteger(value)) {
        addIssue({ message: 'must be a whole number' });
        return NEVER;
      }
      if (!Number.isSafeInteger(value)) {
        addIssue({ message: 'must be written without an exponent when above 2^53' });
        return NEVER;
      }
      amount = BigInt(value);
    } else if (/^\d+$/.test(value)) amount = BigInt(value);
    else {
      addIssue({
        message: /^-\d+$/.test(value) ? 'must not be negative' : 'must be a decimal integer string',
      });
      return NEVER;
    }
    if (amount < 0n) {
      addIssue({ message: 'must not be negative' });
      return NEVER;
    }
    if (amount > MAX_AMOUNT) {
      addIssue({ message: `must have at most ${MAX_DIGITS} digits` });
      return NEVER;
    }
    return amount;
  }),
);
