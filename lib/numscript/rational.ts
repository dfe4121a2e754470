/** Exact fractions over bigint, enough for portions and allotments (the reference uses Go's big.Rat). */
export interface Rational {
  readonly numerator: bigint;
  readonly denominator: bigint; // always > 0, coprime with numerator
}

const abs = (n: bigint) => (n < 0n ? -n : n);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rational(numerator: bigint, denominator: bigint): Rational {
  if (denominator === 0n) throw new RangeError('zero denominator');
  if (denominator < 0n) [numerator, denominator] = [-numerator, -denominator];
  const divisor = gcd(numerator, denominator) || 1n;
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

export const ZERO = rational(0n, 1n);
export const ONE = rational(1n, 1n);

export const add = (a: Rational, b: Rational) =>
  rational(
    a.numerator * b.denominator + b.numerator * a.denominator,
    a.denominator * b.denominator,
  );
export const subtract = (a: Rational, b: Rational) => add(a, rational(-b.numerator, b.denominator));
export const compare = (a: Rational, b: Rational) => {
  const difference = a.numerator * b.denominator - b.numerator * a.denominator;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
};

/** floor(r * amount), as the reference's allotment does (big.Int.Div floors for a positive divisor). */
export function floorTimes(r: Rational, amount: bigint): bigint {
  const product = r.numerator * amount;
  const quotient = product / r.denominator;
  return product < 0n && quotient * r.denominator !== product ? quotient - 1n : quotient;
}

/** Go's big.Rat String(): always "a/b", "1/1" for one. */
export const renderRational = (r: Rational) => `${r.numerator}/${r.denominator}`;
