import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortableBalance } from './keys.js';

const MAX = 10n ** 38n - 1n;

describe('sortableBalance', () => {
  it('sorts as text exactly like the balances as numbers, over the whole 38-digit range', () => {
    const balance = fc.oneof(
      fc.bigInt({ min: -MAX, max: MAX }),
      fc.constantFrom(-MAX, -1n, 0n, 1n, MAX),
      fc.bigInt({ min: -1000n, max: 1000n }),
    );
    fc.assert(
      fc.property(balance, balance, (a, b) => {
        const [x, y] = [sortableBalance(a), sortableBalance(b)];
        expect(x.length).toBe(39);
        expect(Math.sign(x < y ? -1 : x > y ? 1 : 0)).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the boundaries as documented', () => {
    expect(sortableBalance(0n)).toBe(`P${'0'.repeat(38)}`);
    expect(sortableBalance(-1n)).toBe(`N${'9'.repeat(38)}`);
    expect(sortableBalance(-MAX)).toBe(`N${'0'.repeat(37)}1`);
    expect(sortableBalance(MAX)).toBe(`P${'9'.repeat(38)}`);
  });
});
