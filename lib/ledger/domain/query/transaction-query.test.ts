import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../errors/index.js';
import { DEFAULT_FEATURES, resolveFeatures } from '../features.js';
import type { Transaction } from '../transaction.js';
import { planTransactionQuery } from './transaction-query.js';
import { likeMatches } from './values.js';

const q = (query: unknown) => JSON.stringify(query);
const byId = { order: 'id' as const };
const tx = (over: Partial<Transaction> = {}): Transaction => ({
  id: 7,
  postings: [{ source: 'world', destination: 'users:1:eur', amount: 10n, asset: 'EUR/2' }],
  // JSON.parse makes `__proto__` an own key, as the body parser does.
  metadata: JSON.parse('{"kind": "payout", "__proto__": "x"}') as Record<string, string>,
  timestamp: '2026-05-01T10:00:00Z',
  insertedAt: '2026-05-01T10:00:01Z',
  updatedAt: '2026-05-01T10:00:01Z',
  reverted: false,
  ...over,
});

describe('transaction query plans: the most selective index, the rest in memory', () => {
  it('serves a single indexed condition by its index alone', () => {
    expect(
      planTransactionQuery(q({ $match: { reference: 'r1' } }), DEFAULT_FEATURES, byId),
    ).toEqual({ access: { kind: 'reference', reference: 'r1' } });
    expect(
      planTransactionQuery(q({ $match: { source: 'world' } }), DEFAULT_FEATURES, byId),
    ).toEqual({ access: { kind: 'account', address: 'world', role: 'source' } });
    expect(
      planTransactionQuery(q({ $match: { 'metadata[kind]': 'payout' } }), DEFAULT_FEATURES, byId),
    ).toEqual({ access: { kind: 'metadata', key: 'kind', value: 'payout' } });
    const range = planTransactionQuery(
      q({
        $and: [
          { $gte: { timestamp: '2026-05-01T00:00:00Z' } },
          { $gt: { timestamp: '2026-05-01T05:00:00Z' } },
          { $lt: { timestamp: '2026-06-01T00:00:00Z' } },
        ],
      }),
      DEFAULT_FEATURES,
      byId,
    );
    // The tightest bounds of each side.
    expect(range).toEqual({
      access: {
        kind: 'time',
        from: { at: '2026-05-01T05:00:00.000000Z', inclusive: false },
        to: { at: '2026-06-01T00:00:00.000000Z', inclusive: false },
      },
    });
  });

  it('prefers a reference over an account over metadata over time, and evaluates the whole query on what it reads', () => {
    const plan = planTransactionQuery(
      q({
        $and: [
          { $gte: { timestamp: '2026-01-01T00:00:00Z' } },
          { $match: { 'metadata[kind]': 'payout' } },
          { $match: { account: 'users:1:eur' } },
        ],
      }),
      DEFAULT_FEATURES,
      byId,
    );
    expect(plan.access).toEqual({ kind: 'account', address: 'users:1:eur', role: 'any' });
    expect(plan.keep!(tx())).toBe(true);
    expect(plan.keep!(tx({ metadata: { kind: 'refund' } }))).toBe(false);
    expect(plan.keep!(tx({ timestamp: '2025-12-31T23:59:59Z' }))).toBe(false);
  });

  it('falls back to the time index or a scan when no index fits, instead of refusing', () => {
    const off = resolveFeatures({ INDEX_TRANSACTION_ACCOUNTS: 'OFF' });
    const scan = planTransactionQuery(q({ $match: { account: 'users:1:eur' } }), off, byId);
    expect(scan.access).toBeUndefined();
    expect(scan.keep!(tx())).toBe(true);
    // By effective time, only gsi1 lists in that order: the account condition is evaluated in memory.
    const effective = planTransactionQuery(
      q({ $match: { account: 'users:1:eur' } }),
      DEFAULT_FEATURES,
      { order: 'effective' },
    );
    expect(effective.access).toBeUndefined();
    expect(effective.keep).toBeDefined();
    // At a point in time with metadata history, the metadata index (current values) is not used.
    const pit = planTransactionQuery(
      q({ $match: { 'metadata[kind]': 'payout' } }),
      DEFAULT_FEATURES,
      { order: 'id', pit: '2026-05-01T00:00:00.000000Z' },
    );
    expect(pit.access).toBeUndefined();
    expect(pit.keep).toBeDefined();
  });

  it('evaluates $or, $not, $in, $like, $exists, prefixes and segment patterns on addresses', () => {
    const keep = (query: unknown) => planTransactionQuery(q(query), DEFAULT_FEATURES, byId).keep!;
    expect(
      keep({ $or: [{ $match: { reference: 'nope' } }, { $match: { destination: 'users:' } }] })(
        tx(),
      ),
    ).toBe(true);
    expect(keep({ $not: { $match: { destination: 'users::eur' } } })(tx())).toBe(false);
    expect(keep({ $match: { destination: 'users::usd' } })(tx())).toBe(false);
    expect(keep({ $in: { id: [1, 7, 9] } })(tx())).toBe(true);
    expect(keep({ $in: { id: [1, 9] } })(tx())).toBe(false);
    expect(keep({ $like: { destination: 'users:_:%' } })(tx())).toBe(true);
    expect(keep({ $exists: { metadata: '__proto__' } })(tx())).toBe(true);
    expect(keep({ $exists: { metadata: 'constructor' } })(tx())).toBe(false);
    expect(keep({ $match: { reverted: true } })(tx())).toBe(false);
    expect(
      keep({ $exists: { reverted_at: true } })(
        tx({ reverted: true, revertedAt: '2026-05-02T00:00:00Z' }),
      ),
    ).toBe(true);
    expect(keep({ $gt: { inserted_at: '2026-05-01T10:00:00Z' } })(tx())).toBe(true);
  });

  it('refuses unknown operators and fields, wrong operand types, deep nesting and huge $in lists with a 400 naming the place', () => {
    const refused = (query: unknown) => {
      try {
        planTransactionQuery(typeof query === 'string' ? query : q(query), DEFAULT_FEATURES, byId);
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ $regex: { reference: 'a' } })).toMatch(/^query: unknown operator "\$regex"/);
    expect(refused({ $match: { colour: 'red' } })).toBe(
      'query.$match: transactions have no field "colour"',
    );
    expect(refused({ $like: { id: '1%' } })).toMatch(
      /^query.\$like.id: operator \$like is not supported on this field/,
    );
    expect(refused({ $gt: { timestamp: 12 } })).toBe(
      'query.$gt.timestamp: must be an RFC 3339 date-time string',
    );
    expect(refused({ $match: { id: 'x' } })).toBe(
      'query.$match.id: must be an integer of at most 1000 digits',
    );
    expect(refused({ $match: { reverted: 'yes' } })).toBe(
      'query.$match.reverted: must be true or false',
    );
    expect(refused({ $in: { id: Array.from({ length: 101 }, (_, i) => i) } })).toBe(
      'query.$in.id: $in takes a non-empty array of at most 100 values',
    );
    let deep: unknown = { $match: { id: 1 } };
    for (let i = 0; i < 10; i++) deep = { $not: deep };
    expect(refused(deep)).toMatch(/nested more than 8 deep/);
    expect(refused({ $and: Array.from({ length: 60 }, () => ({ $match: { id: 1 } })) })).toBe(
      'query: more than 50 conditions',
    );
    expect(refused({ $match: { account: 'a b' } })).toMatch(
      /must be an account address, a prefix ending with ":", or a segment pattern/,
    );
    expect(refused({ $like: { reference: 'x'.repeat(257) } })).toMatch(/at most 256 characters/);
  });
});

describe('$like', () => {
  it('matches SQL LIKE: % any run, _ one character, in linear passes whatever the pattern', () => {
    expect(likeMatches('users:%', 'users:1')).toBe(true);
    expect(likeMatches('%:eur', 'users:1:eur')).toBe(true);
    expect(likeMatches('u_ers', 'users')).toBe(true);
    expect(likeMatches('u_ers', 'uers')).toBe(false);
    expect(likeMatches('a%b%c', 'aXbYc')).toBe(true);
    expect(likeMatches('a%b%c', 'aXcYb')).toBe(false);
    expect(likeMatches('%', '')).toBe(true);
    expect(likeMatches('ab', 'abc')).toBe(false);
    expect(likeMatches('%%%%%%%%%%%%%%%%%%%%%%%%%b', 'a'.repeat(4096))).toBe(false);
  });
});
