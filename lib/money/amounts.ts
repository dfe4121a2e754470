import * as v from 'valibot';

/** DynamoDB Numbers hold 38 significant digits: payments' amounts stay within them (its store writes Numbers). */
export const MAX_DIGITS = 38;
export const MAX_AMOUNT = 10n ** BigInt(MAX_DIGITS) - 1n;

/**
 * The ledger's amounts, volumes and balances: any integer up to this many digits, held exactly (docs/decisions/ledger.md, "Amounts"). Beyond a DynamoDB
 * Number they are stored as text (lib/ledger/store/amount-encoding.ts). The bound is the item's: a transaction of
 * 100 postings at this size, its post-commit volumes and its revert still fit one DynamoDB item (400 KB), and a
 * balance's index key (with a 256-character address) stays under the 1024 bytes of a sort key.
 */
export const LEDGER_MAX_DIGITS = 300;
export const LEDGER_MAX_AMOUNT = 10n ** BigInt(LEDGER_MAX_DIGITS) - 1n;

/**
 * An amount as the API accepts it: a JSON integer (parsed to bigint by `lib/json`), a safe JS integer, or a
 * decimal string. Never negative, never fractional, at most `maxDigits` digits.
 */
function amountOfDigits(maxDigits: number) {
  const max = 10n ** BigInt(maxDigits) - 1n;
  return v.pipe(
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
      } else if (/^\d+$/.test(value)) {
        // Length first: a string of a million digits is refused without being parsed.
        if (value.replace(/^0+/, '').length > maxDigits) {
          addIssue({ message: `must have at most ${maxDigits} digits` });
          return NEVER;
        }
        amount = BigInt(value);
      } else {
        addIssue({
          message: /^-\d+$/.test(value)
            ? 'must not be negative'
            : 'must be a decimal integer string',
        });
        return NEVER;
      }
      if (amount < 0n) {
        addIssue({ message: 'must not be negative' });
        return NEVER;
      }
      if (amount > max) {
        addIssue({ message: `must have at most ${maxDigits} digits` });
        return NEVER;
      }
      return amount;
    }),
  );
}

/** A payment's amount: at most 38 digits. */
export const amountSchema = amountOfDigits(MAX_DIGITS);

/** A ledger posting's amount: at most LEDGER_MAX_DIGITS digits. */
export const ledgerAmountSchema = amountOfDigits(LEDGER_MAX_DIGITS);

/**
 * A comparison operand of a ledger filter (`balance[USD] > x`): up to this many digits, which bounds the cost of
 * parsing it. An operand beyond LEDGER_MAX_DIGITS is valid: it lies beyond every balance.
 */
export const LEDGER_OPERAND_MAX_DIGITS = 1000;
