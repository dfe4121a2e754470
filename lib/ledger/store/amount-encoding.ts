/**
 * How amounts, volumes and balances of any size (up to LEDGER_MAX_DIGITS) become item attributes and keys, and
 * back. A DynamoDB Number holds 38 significant digits: what fits is written as a Number (bigint), exactly as
 * before, so ordinary amounts cost what they always did; anything larger is written as its decimal text (a
 * String attribute). Readers accept both.
 */

/** The largest magnitude written as a DynamoDB Number. */
const NUMBER_SPAN = 10n ** 38n;

/** An amount as an item attribute: a Number while it fits 38 digits, its decimal text beyond. */
export function amountAttribute(amount: bigint): bigint | string {
  return amount < NUMBER_SPAN && amount > -NUMBER_SPAN ? amount : amount.toString();
}

/** An amount attribute read back (a Number read as bigint, or the decimal text of a larger one). */
export function amountOfAttribute(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new TypeError(`not an amount attribute: ${String(value)}`);
}

/**
 * A balance as text that sorts like the number (the balance index's sort key):
 * - |b| < 10^38, as it always was: `N` + (10^38 − |b|) for negatives, `P` + b otherwise, both 38 digits;
 * - b ≥ 10^38: `Q` + its digit count (3 digits) + its digits;
 * - b ≤ −10^38: `M` + (999 − its digit count) + each digit's nines' complement.
 * `M` < `N` < `P` < `Q`; within `Q` more digits sort later, within `M` earlier, and equal counts compare digit by
 * digit (complemented for negatives, so a larger magnitude is smaller). Balances up to 999 digits.
 */
export function sortableBalance(balance: bigint): string {
  if (balance >= NUMBER_SPAN) {
    const digits = balance.toString();
    return `Q${String(digits.length).padStart(3, '0')}${digits}`;
  }
  if (balance <= -NUMBER_SPAN) {
    const digits = (-balance).toString();
    const complement = digits.replace(/\d/g, (d) => String(9 - Number(d)));
    return `M${String(999 - digits.length).padStart(3, '0')}${complement}`;
  }
  return balance < 0n
    ? `N${(NUMBER_SPAN + balance).toString().padStart(38, '0')}`
    : `P${balance.toString().padStart(38, '0')}`;
}

/** The balance a sortable text encodes (the inverse of sortableBalance); undefined for any other text. */
export function balanceOfSortable(text: string): bigint | undefined {
  const body = text.slice(1);
  switch (text[0]) {
    case 'P':
      return /^\d{38}$/.test(body) ? BigInt(body) : undefined;
    case 'N':
      return /^\d{38}$/.test(body) ? BigInt(body) - NUMBER_SPAN : undefined;
    case 'Q': {
      const digits = body.slice(3);
      return /^\d{3}[1-9]\d*$/.test(body) && digits.length === Number(body.slice(0, 3))
        ? BigInt(digits)
        : undefined;
    }
    case 'M': {
      const complement = body.slice(3);
      if (!/^\d{3}[0-8]\d*$/.test(body) || complement.length !== 999 - Number(body.slice(0, 3)))
        return undefined;
      return -BigInt(complement.replace(/\d/g, (d) => String(9 - Number(d))));
    }
    default:
      return undefined;
  }
}
