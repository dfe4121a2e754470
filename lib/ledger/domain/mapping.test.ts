import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { updatedMappingPayloadSchema } from '../../../events/ledger-mapping.js';
import { ValidationError } from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import { matchesPattern } from './account-pattern.js';
import { contractFor, evaluate } from './contract-eval.js';
import { type Expr, MAX_CONTRACTS, mappingJson, mappingView, parseMapping } from './mapping.js';
import { applyPostings, type Posting, type VolumeMap } from './postings.js';

/** Parses a mapping written as JSON text, as the PUT route does (integers exact). */
const mapping = (json: string) => parseMapping(parseJson(json));
const refusal = (json: string) => {
  try {
    mapping(json);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${json}`);
};
const expr = (json: string): Expr =>
  mapping(`{"contracts": [{"account": "*", "expr": ${json}}]}`).contracts[0]!.expr;

describe('mapping validation', () => {
  it('accepts the documented forms and answers them unchanged, integers exact', () => {
    const text =
      '{"contracts":[{"name":"overdraft","account":"users:*","expr":{"$or":[{"$gte":["$balance",-1000]},{"$and":[{"$eq":[{"$meta":"tier"},"gold"]},{"$gte":["$balance",{"$meta":"floor"}]}]}]}},{"account":"bank","expr":{"$lte":[-123456789012345678901234567890123456,"$balance"]}}]}';
    const parsed = mapping(text);
    expect(mappingJson(parsed)).toBe(text);
    expect(mappingView(parsed).contracts[1]!.expr).toEqual({
      $lte: [-123456789012345678901234567890123456n, '$balance'],
    });
    expect(mapping('{"contracts": []}')).toEqual({ contracts: [] });
    // What the ledger.updated_mapping event carries satisfies the catalog's payload schema.
    expect(
      v.safeParse(
        updatedMappingPayloadSchema,
        parseJson(`{"ledger": "main", "mapping": ${mappingJson(parsed)}}`),
      ).success,
    ).toBe(true);
    expect(
      v.safeParse(updatedMappingPayloadSchema, {
        ledger: 'main',
        mapping: { contracts: [{ account: 'a' }] },
      }).success,
    ).toBe(false);
  });

  it('refuses bad nodes naming their path', () => {
    const cases: Array<[string, string]> = [
      ['[]', 'body: must be an object'],
      ['{"contracts": {}}', 'body.contracts: must be an array'],
      ['{"contracts": [], "x": 1}', 'body.x: unknown field'],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", 0]}, "extra": 1}]}',
        'body.contracts[0].extra: unknown field',
      ],
      [
        '{"contracts": [{"expr": {"$gte": ["$balance", 0]}}]}',
        'body.contracts[0].account: must be an account pattern',
      ],
      [
        '{"contracts": [{"account": "users:**:x y", "expr": {"$gte": ["$balance", 0]}}]}',
        'body.contracts[0].account: must be an account pattern',
      ],
      [
        '{"contracts": [{"account": "users:", "expr": {"$gte": ["$balance", 0]}}]}',
        'body.contracts[0].account',
      ],
      ['{"contracts": [{"account": "a"}]}', 'body.contracts[0].expr: is required'],
      [
        '{"contracts": [{"account": "a", "name": "", "expr": {"$gte": ["$balance", 0]}}]}',
        'body.contracts[0].name: must be a string of 1-128',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", 0]}}, {"account": "b", "expr": {"$foo": [1, 2]}}]}',
        'body.contracts[1].expr: unknown operator "$foo"',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", 0], "$lte": ["$balance", 9]}}]}',
        'body.contracts[0].expr: must have exactly one operator, found 2',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {}}]}',
        'body.contracts[0].expr: must have exactly one operator, found 0',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$and": [{"$gte": ["$balance"]}]}}]}',
        'body.contracts[0].expr.$and[0].$gte: must have exactly 2 operands, found 1',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": "$balance"}}]}',
        'body.contracts[0].expr.$gte: must have exactly 2 operands, found a string',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$or": []}}]}',
        'body.contracts[0].expr.$or: must be a non-empty array of expressions',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", 1.5]}}]}',
        'body.contracts[0].expr.$gte[1]: numeric constants must be integers',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", true]}}]}',
        'body.contracts[0].expr.$gte[1]: must be "$balance", {"$meta": "<key>"}, an integer or a string, not a boolean',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", "10"]}}]}',
        'body.contracts[0].expr.$gte[1]: $gte compares integers; a string constant cannot be ordered',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$eq": ["$balance", "10"]}}]}',
        'body.contracts[0].expr.$eq: compares a string with an integer',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": ["$bal", 0]}}]}',
        'body.contracts[0].expr.$gte[0]: unknown variable "$bal"',
      ],
      [
        '{"contracts": [{"account": "a", "expr": {"$gte": [{"$meta": 1}, 0]}}]}',
        'body.contracts[0].expr.$gte[0].$meta: must be a metadata key',
      ],
      [
        `{"contracts": [{"account": "a", "expr": {"$gte": ["$balance", ${10n ** 300n}]}}]}`,
        'body.contracts[0].expr.$gte[1]: integer constants have at most 300 digits',
      ],
      [
        '{"contracts": [{"account": "a", "expr": "$balance"}]}',
        'body.contracts[0].expr: must be an object with one operator',
      ],
    ];
    for (const [json, message] of cases) expect(refusal(json), json).toContain(message);
  });

  it('bounds the number of contracts, the size and the depth', () => {
    const contract = '{"account": "a", "expr": {"$gte": ["$balance", 0]}}';
    expect(
      refusal(
        `{"contracts": [${Array(MAX_CONTRACTS + 1)
          .fill(contract)
          .join(',')}]}`,
      ),
    ).toBe('body.contracts: must have at most 100 contracts');
    const big = `{"account": "a", "expr": {"$eq": [{"$meta": "k"}, "${'x'.repeat(1000)}"]}}`;
    expect(refusal(`{"contracts": [${Array(70).fill(big).join(',')}]}`)).toMatch(
      /^body\.contracts: the mapping is \d+ bytes; at most 65536$/,
    );
    let deep = '{"$gte": ["$balance", 0]}';
    for (let i = 0; i < 16; i++) deep = `{"$and": [${deep}]}`;
    expect(refusal(`{"contracts": [{"account": "a", "expr": ${deep}}]}`)).toContain(
      'expressions may nest at most 16 levels',
    );
  });
});

describe('contract evaluation', () => {
  it('matches patterns on the whole address, * across segments', () => {
    expect(matchesPattern('users:*', 'users:1')).toBe(true);
    expect(matchesPattern('users:*', 'users:1:main')).toBe(true);
    expect(matchesPattern('users:*', 'xusers:1')).toBe(false);
    expect(matchesPattern('users:*', 'users')).toBe(false);
    expect(matchesPattern('*:main', 'users:1:main')).toBe(true);
    expect(matchesPattern('a-b', 'a-b')).toBe(true);
    expect(matchesPattern('a-b', 'a_b')).toBe(false);
    expect(matchesPattern('*', 'anything:at:all')).toBe(true);
  });

  it('takes the first matching contract, else the default balance >= 0', () => {
    const m = mapping(
      '{"contracts": [{"account": "users:vip:*", "expr": {"$gte": ["$balance", -5000]}}, {"account": "users:*", "expr": {"$gte": ["$balance", -1000]}}]}',
    );
    expect(contractFor(m, 'users:vip:1').index).toBe(0);
    expect(contractFor(m, 'users:1').index).toBe(1);
    const fallback = contractFor(m, 'shop');
    expect(fallback.index).toBeUndefined();
    expect(evaluate(fallback.contract.expr, -1n, {})).toBe(false);
    expect(evaluate(fallback.contract.expr, 0n, {})).toBe(true);
    expect(contractFor(undefined, 'users:1').index).toBeUndefined();
  });

  it('reads $meta as an integer against integers (missing or non-integer: false) and as a string otherwise', () => {
    const floor = expr('{"$gte": ["$balance", {"$meta": "floor"}]}');
    expect(evaluate(floor, -500n, { floor: '-500' })).toBe(true);
    expect(evaluate(floor, -501n, { floor: '-500' })).toBe(false);
    expect(evaluate(floor, 10n ** 37n, { floor: '99999999999999999999999999999999999999' })).toBe(
      false,
    );
    expect(evaluate(floor, 0n, {})).toBe(false);
    expect(evaluate(floor, 0n, { floor: '-5.5' })).toBe(false);
    expect(evaluate(floor, 0n, { floor: 'abc' })).toBe(false);
    const tier = expr('{"$eq": [{"$meta": "tier"}, "gold"]}');
    expect(evaluate(tier, 0n, { tier: 'gold' })).toBe(true);
    expect(evaluate(tier, 0n, { tier: 'Gold' })).toBe(false);
    expect(evaluate(tier, 0n, {})).toBe(false);
    expect(
      evaluate(expr('{"$eq": [{"$meta": "a"}, {"$meta": "b"}]}'), 0n, { a: '007', b: '007' }),
    ).toBe(true);
    expect(evaluate(expr('{"$eq": [{"$meta": "a"}, 7]}'), 0n, { a: '7' })).toBe(true);
    expect(evaluate(expr('{"$eq": [{"$meta": "toString"}, "x"]}'), 0n, {})).toBe(false);
  });

  it('evaluates comparisons exactly like bigint arithmetic (property)', () => {
    const big = fc.bigInt({ min: -(10n ** 300n) + 1n, max: 10n ** 300n - 1n });
    const ops = {
      $eq: (a: bigint, b: bigint) => a === b,
      $gt: (a: bigint, b: bigint) => a > b,
      $gte: (a: bigint, b: bigint) => a >= b,
      $lt: (a: bigint, b: bigint) => a < b,
      $lte: (a: bigint, b: bigint) => a <= b,
    };
    fc.assert(
      fc.property(
        big,
        big,
        fc.constantFrom(...(Object.keys(ops) as Array<keyof typeof ops>)),
        fc.boolean(),
        (balance, constant, op, viaMeta) => {
          const right = viaMeta ? '{"$meta": "k"}' : String(constant);
          const e = expr(`{"${op}": ["$balance", ${right}]}`);
          expect(evaluate(e, balance, { k: String(constant) })).toBe(ops[op](balance, constant));
        },
      ),
    );
  });

  it('combines with $and / $or like every / some (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -100n, max: 100n }), { minLength: 1, maxLength: 5 }),
        fc.bigInt({ min: -100n, max: 100n }),
        (floors, balance) => {
          const args = floors.map((f) => `{"$gte": ["$balance", ${f}]}`).join(',');
          expect(evaluate(expr(`{"$and": [${args}]}`), balance, {})).toBe(
            floors.every((f) => balance >= f),
          );
          expect(evaluate(expr(`{"$or": [${args}]}`), balance, {})).toBe(
            floors.some((f) => balance >= f),
          );
        },
      ),
    );
  });
});

describe('applyPostings with a mapping', () => {
  const post = (source: string, destination: string, amount: bigint): Posting => ({
    source,
    destination,
    amount,
    asset: 'USD',
  });
  const funded = (account: string, balance: bigint): VolumeMap =>
    new Map([[account, new Map([['USD', { input: balance, output: 0n }]])]]);
  const m = mapping(
    '{"contracts": [{"name": "overdraft", "account": "users:*", "expr": {"$gte": ["$balance", -1000]}}, {"account": "floors:*", "expr": {"$gte": ["$balance", {"$meta": "floor"}]}}]}',
  );

  it('lets users:* go down to -1000 and no further, naming the contract', () => {
    const after = applyPostings([post('users:1', 'shop', 1000n)], new Map(), {
      force: false,
      mapping: m,
    });
    expect(after.get('users:1')!.get('USD')).toEqual({ input: 0n, output: 1000n });
    expect(() =>
      applyPostings([post('users:1', 'shop', 1001n)], new Map(), { force: false, mapping: m }),
    ).toThrow(
      'account "users:1" has insufficient funds for posting 0 (1001 USD): balance would be -1001, which breaks contract 0 "overdraft" (account "users:*", expr {"$gte":["$balance",-1000]})',
    );
  });

  it('keeps the default message for accounts no contract matches, and exempts world and force', () => {
    expect(() =>
      applyPostings([post('shop', 'x', 1n)], new Map(), { force: false, mapping: m }),
    ).toThrow('account "shop" has insufficient funds for posting 0 (1 USD): balance would be -1');
    expect(() =>
      applyPostings([post('world', 'x', 5n)], new Map(), {
        force: false,
        mapping: mapping('{"contracts": [{"account": "*", "expr": {"$gte": ["$balance", 0]}}]}'),
      }),
    ).not.toThrow();
    expect(() =>
      applyPostings([post('users:1', 'x', 5000n)], new Map(), { force: true, mapping: m }),
    ).not.toThrow();
  });

  it('checks after each debiting posting, in order, with the metadata given', () => {
    const metadataOf = (a: string) => (a === 'floors:1' ? { floor: '-10' } : undefined);
    // -10 then back to 0: the intermediate step is checked.
    expect(() =>
      applyPostings([post('floors:1', 'x', 10n), post('x', 'floors:1', 10n)], new Map(), {
        force: false,
        mapping: m,
        metadataOf,
      }),
    ).not.toThrow();
    expect(() =>
      applyPostings([post('floors:1', 'x', 11n), post('x', 'floors:1', 11n)], new Map(), {
        force: false,
        mapping: m,
        metadataOf,
      }),
    ).toThrow('breaks contract 1');
    // No floor metadata: the comparison is false, the contract fails closed even with funds.
    expect(() =>
      applyPostings([post('floors:2', 'x', 1n)], funded('floors:2', 100n), {
        force: false,
        mapping: m,
        metadataOf,
      }),
    ).toThrow('breaks contract 1');
    // A credit is never checked, even when the contract does not hold.
    expect(() =>
      applyPostings([post('x', 'floors:2', 0n)], new Map(), {
        force: false,
        mapping: m,
        metadataOf,
      }),
    ).not.toThrow();
  });
});
