import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allot } from '../allotment.js';
import { compile, execute, NumscriptError } from '../index.js';
import { rational } from '../rational.js';

const accounts = ['a', 'b', 'c', 'd'];
const account = fc.constantFrom(...accounts.map((name) => `@${name}`));

/** Random sources: plain, world, bounded/unbounded overdraft, max, ordered, allotment; nested. */
const source = fc.letrec<{ source: string }>((tie) => ({
  source: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    account,
    fc.constant('@world'),
    fc
      .tuple(account, fc.bigInt(0n, 50n))
      .map(([a, n]) => `${a} allowing overdraft up to [COIN ${n}]`),
    account.map((a) => `${a} allowing unbounded overdraft`),
    fc.tuple(fc.bigInt(0n, 80n), tie('source')).map(([n, s]) => `max [COIN ${n}] from ${s}`),
    fc
      .array(tie('source'), { minLength: 1, maxLength: 3 })
      .map((items) => `{ ${items.join(' ')} }`),
    fc
      .array(tie('source'), { minLength: 1, maxLength: 3 })
      .map(
        (items) =>
          `{ ${items.map((s, i) => (i === items.length - 1 ? `remaining from ${s}` : `1/${items.length + 1} from ${s}`)).join(' ')} }`,
      ),
  ),
}));

/** Random destinations without `kept`, so everything sent must arrive somewhere. */
const destination = fc.letrec<{ destination: string }>((tie) => ({
  destination: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    account,
    fc
      .array(tie('destination'), { minLength: 1, maxLength: 3 })
      .map(
        (items) =>
          `{ ${items.map((d, i) => (i === items.length - 1 ? `remaining to ${d}` : `${i + 1}/${items.length * 3} to ${d}`)).join(' ')} }`,
      ),
    fc
      .array(fc.tuple(fc.bigInt(0n, 60n), tie('destination')), { minLength: 0, maxLength: 3 })
      .chain((clauses) =>
        tie('destination').map(
          (rest) =>
            `{ ${clauses.map(([n, d]) => `max [COIN ${n}] to ${d}`).join(' ')} remaining to ${rest} }`,
        ),
      ),
  ),
}));

const balances = fc.record(
  Object.fromEntries(accounts.map((name) => [name, fc.bigInt(-20n, 200n)])) as Record<
    string,
    fc.Arbitrary<bigint>
  >,
);

describe('properties', () => {
  it('a script never creates or destroys money, and sends exactly the amount asked', () => {
    fc.assert(
      fc.property(
        fc.bigInt(0n, 300n),
        source.source,
        destination.destination,
        balances,
        (amount, src, dest, start) => {
          const script = `send [COIN ${amount}] ( source = ${src} destination = ${dest} )`;
          let result;
          try {
            result = execute(
              compile(script),
              {},
              { balance: (a) => start[a] ?? 0n, metadata: () => undefined, assets: () => [] },
            );
          } catch (error) {
            // Only a shortfall may stop a well-formed script.
            expect(error).toBeInstanceOf(NumscriptError);
            expect((error as NumscriptError).code).toBe('INSUFFICIENT_FUND');
            return;
          }
          const net = new Map<string, bigint>();
          let moved = 0n;
          for (const posting of result.postings) {
            expect(posting.amount > 0n).toBe(true);
            expect(posting.asset).toBe('COIN');
            net.set(posting.source, (net.get(posting.source) ?? 0n) - posting.amount);
            net.set(posting.destination, (net.get(posting.destination) ?? 0n) + posting.amount);
            moved += posting.amount;
          }
          expect([...net.values()].reduce((sum, n) => sum + n, 0n)).toBe(0n);
          // Self-transfers aside, what left the sources is what was asked for.
          expect(moved).toBe(amount);
          // An account without overdraft in this script never goes below where it started (or zero).
          for (const name of accounts) {
            if (src.includes(`@${name} allowing`)) continue;
            const end = (start[name] ?? 0n) + (net.get(name) ?? 0n);
            expect(end >= (start[name]! < 0n ? start[name]! : 0n)).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('allotments always sum to the amount, each part within one unit of its exact share', () => {
    const portions = fc
      .array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 6 })
      .filter((weights) => weights.some((w) => w > 0));
    fc.assert(
      fc.property(portions, fc.bigInt(0n, 10n ** 30n), (weights, amount) => {
        const total = BigInt(weights.reduce((sum, w) => sum + w, 0));
        const shares = weights.map((w) => rational(BigInt(w), total));
        const parts = allot(amount, shares);
        if (!Array.isArray(parts)) throw new Error('portions summing to 1 were refused');
        expect(parts.reduce((sum, p) => sum + p, 0n)).toBe(amount);
        parts.forEach((part, i) => {
          const floor = (BigInt(weights[i]!) * amount) / total;
          expect(part === floor || part === floor + 1n).toBe(true);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('the compiler throws nothing but a NumscriptError on arbitrary input', () => {
    const tokens = fc.constantFrom(
      'send',
      'save',
      'vars',
      'source',
      'destination',
      '=',
      '(',
      ')',
      '{',
      '}',
      '[',
      ']',
      '*',
      '@a',
      '@',
      ':',
      '$x',
      'COIN',
      'USD/2',
      '12',
      '-',
      '+',
      '/',
      '%',
      '50%',
      '"s"',
      '"',
      'max',
      'from',
      'to',
      'kept',
      'remaining',
      'allowing',
      'overdraft',
      'unbounded',
      'up',
      'oneof',
      'meta',
      'balance',
      ',',
      '//',
      '/*',
      '*/',
      '#!',
      '\\',
      '\n',
      ' ',
      'é',
      '🚀',
      'monetary',
      'account',
      'portion',
    );
    const inputs = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.array(tokens, { maxLength: 60 }).map((t) => t.join(' ')),
    );
    fc.assert(
      fc.property(inputs, (input) => {
        try {
          compile(input);
        } catch (error) {
          expect(error).toBeInstanceOf(NumscriptError);
          expect((error as NumscriptError).code).toBe('COMPILATION_FAILED');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
