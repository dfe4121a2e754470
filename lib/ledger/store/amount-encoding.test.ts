import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  amountAttribute,
  amountOfAttribute,
  balanceOfSortable,
  sortableBalance,
} from './amount-encoding.js';

const MAX38 = 10n ** 38n - 1n;
const MAX300 = 10n ** 300n - 1n;
const order = (a: string | bigint, b: string | bigint) => (a < b ? -1 : a > b ? 1 : 0);

describe('sortableBalance', () => {
  it('sorts as text exactly like the balances as numbers, over 300 digits either way', () => {
    const balance = fc.oneof(
      fc.bigInt({ min: -MAX38, max: MAX38 }),
      fc.bigInt({ min: -MAX300, max: MAX300 }),
      // Around the Number boundary and across digit counts, where encodings change.
      fc
        .tuple(fc.integer({ min: 36, max: 300 }), fc.bigInt({ min: -3n, max: 3n }), fc.boolean())
        .map(
          ([digits, offset, negative]) => (negative ? -1n : 1n) * (10n ** BigInt(digits) + offset),
        ),
      fc.constantFrom(-MAX300, -(10n ** 38n), -MAX38, -1n, 0n, 1n, MAX38, 10n ** 38n, MAX300),
      fc.bigInt({ min: -1000n, max: 1000n }),
    );
    fc.assert(
      fc.property(balance, balance, (a, b) => {
        const [x, y] = [sortableBalance(a), sortableBalance(b)];
        expect(order(x, y)).toBe(order(a, b));
        // A key is followed by `#<address>`: one balance's key is never a prefix of another's.
        if (a !== b) expect(order(`${x}#~`, `${y}#`)).toBe(order(a, b));
        expect(balanceOfSortable(x)).toBe(a);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the 38-digit keys as they always were, and writes the larger ones as documented', () => {
    expect(sortableBalance(0n)).toBe(`P${'0'.repeat(38)}`);
    expect(sortableBalance(-1n)).toBe(`N${'9'.repeat(38)}`);
    expect(sortableBalance(-MAX38)).toBe(`N${'0'.repeat(37)}1`);
    expect(sortableBalance(MAX38)).toBe(`P${'9'.repeat(38)}`);
    expect(sortableBalance(10n ** 38n)).toBe(`Q0391${'0'.repeat(38)}`);
    expect(sortableBalance(-(10n ** 38n))).toBe(`M9608${'9'.repeat(38)}`);
    expect(sortableBalance(-123456789012345678901234567890123456789n)).toBe(
      'M960876543210987654321098765432109876543210',
    );
    expect(sortableBalance(MAX300)).toBe(`Q300${'9'.repeat(300)}`);
  });

  it('reads back nothing but its own keys', () => {
    for (const text of [
      '',
      'P12',
      `X${'0'.repeat(38)}`,
      'Q0391',
      `Q039${'0'.repeat(39)}`,
      'M9619',
      'N1',
    ])
      expect(balanceOfSortable(text)).toBeUndefined();
  });
});

describe('amount attributes', () => {
  it('are Numbers while they fit 38 digits, decimal text beyond, and read back exactly', () => {
    expect(amountAttribute(MAX38)).toBe(MAX38);
    expect(amountAttribute(-MAX38)).toBe(-MAX38);
    expect(amountAttribute(10n ** 38n)).toBe(`1${'0'.repeat(38)}`);
    expect(amountAttribute(-(10n ** 87n) - 1n)).toBe(`-1${'0'.repeat(86)}1`);
    fc.assert(
      fc.property(fc.bigInt({ min: -MAX300, max: MAX300 }), (a) => {
        expect(amountOfAttribute(amountAttribute(a))).toBe(a);
      }),
    );
    expect(() => amountOfAttribute('12a')).toThrow('not an amount attribute');
    expect(() => amountOfAttribute(undefined)).toThrow('not an amount attribute');
  });
});
