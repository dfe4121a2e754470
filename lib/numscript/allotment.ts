import { add, compare, floorTimes, ONE, type Rational, subtract, ZERO } from './rational.js';

export type AllotmentError = { kind: 'sum'; total: Rational };

/**
 * Splits `amount` by portions as the reference does: every part is floored, then the units left over go one
 * each to the first parts in the order written (not to the largest remainders, not to `remaining`).
 * `remaining` (index `remainingIndex`) takes 1 minus the others; without it the portions must sum to exactly 1.
 */
export function allot(
  amount: bigint,
  portions: Array<Rational | 'remaining'>,
): bigint[] | AllotmentError {
  let total = ZERO;
  for (const portion of portions) if (portion !== 'remaining') total = add(total, portion);
  const hasRemaining = portions.includes('remaining');
  if (hasRemaining ? compare(total, ONE) > 0 : compare(total, ONE) !== 0)
    return { kind: 'sum', total };
  const rest = subtract(ONE, total);

  const parts = portions.map((portion) =>
    floorTimes(portion === 'remaining' ? rest : portion, amount),
  );
  let allocated = parts.reduce((sum, part) => sum + part, 0n);
  for (let i = 0; i < parts.length && allocated < amount; i++) {
    parts[i]! += 1n;
    allocated += 1n;
  }
  return parts;
}
