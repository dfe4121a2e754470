import { beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../lib/pagination/cursor.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, stringify } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
/** The ledger's clock, set by each step so dates are exact. */
let clock = 0;
const T1 = '2026-01-02T03:04:05Z';
const T2 = '2026-01-02T03:04:06Z';
const T3 = '2026-01-02T03:04:07Z';
const at = (date: string) => (clock = Date.parse(date));

let counter = 0;
const fresh = async (body?: unknown) => {
  const name = `acc${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`, body);
  expect(res.status, res.text).toBe(204);
  return name;
};
const tx = async (ledger: string, body: unknown, query = '') => {
  const res = await call('POST', `/v2/${ledger}/transactions${query}`, body);
  expect(res.status, res.text).toBe(200);
  return res;
};
const send = (source: string, destination: string, amount: bigint, asset = 'USD/2') => ({
  source,
  destination,
  amount,
  asset,
});
const q = (filter: unknown) =>
  `query=${encodeURIComponent(typeof filter === 'string' ? filter : stringify(filter))}`;
const match = (address: string) => q({ $match: { address } });
const addresses = (res: { body: any }) =>
  res.body.cursor.data.map((a: { address: string }) => a.address);

const MAX = 10n ** 38n - 1n;
let ledger: string;

const volume = (input: bigint, output: bigint) => ({ input, output, balance: input - output });
/** Every account of `ledger` after the set-up below, with volumes, by address ascending. */
const ACCOUNTS = [
  {
    address: 'bank',
    metadata: {},
    firstUsage: T3,
    insertionDate: T3,
    updatedAt: T3,
    volumes: { COIN: volume(MAX, 0n) },
  },
  {
    address: 'merchant',
    metadata: { name: 'shop' },
    firstUsage: T3,
    insertionDate: T3,
    updatedAt: T3,
    volumes: {},
  },
  {
    address: 'users',
    metadata: {},
    firstUsage: T3,
    insertionDate: T3,
    updatedAt: T3,
    volumes: { 'USD/2': volume(30n, 0n) },
  },
  {
    address: 'users:1',
    metadata: { kind: 'user', tier: 'gold' },
    firstUsage: T1,
    insertionDate: T1,
    updatedAt: T3,
    volumes: { 'USD/2': volume(100n, 30n) },
  },
  {
    address: 'users:1:eur',
    metadata: {},
    firstUsage: T2,
    insertionDate: T2,
    updatedAt: T2,
    volumes: { 'EUR/2': volume(50n, 0n) },
  },
  {
    address: 'users:2',
    metadata: {},
    firstUsage: T2,
    insertionDate: T2,
    updatedAt: T2,
    volumes: { 'USD/2': volume(7n, 0n) },
  },
  {
    address: 'world',
    metadata: {},
    firstUsage: T1,
    insertionDate: T1,
    updatedAt: T3,
    volumes: { COIN: volume(0n, MAX), 'EUR/2': volume(0n, 50n), 'USD/2': volume(0n, 107n) },
  },
];
const withoutVolumes = ({ volumes: _v, ...account }: (typeof ACCOUNTS)[number]) => account;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  at(T1);
  // INDEX_ACCOUNT_BALANCES is opt-in: this ledger serves the balance filters below.
  ledger = await fresh({ features: { INDEX_ACCOUNT_BALANCES: 'ON' } });
  await tx(ledger, {
    postings: [send('world', 'users:1', 100n)],
    accountMetadata: { 'users:1': { kind: 'user' } },
  });
  at(T2);
  await tx(ledger, { postings: [send('world', 'users:1:eur', 50n, 'EUR/2')] });
  await tx(ledger, { postings: [send('world', 'users:2', 7n)] });
  at(T3);
  await tx(ledger, {
    postings: [send('users:1', 'users', 30n)],
    accountMetadata: { 'users:1': { tier: 'gold' } },
  });
  await tx(ledger, {
    postings: [send('world', 'bank', MAX, 'COIN')],
    accountMetadata: { merchant: { name: 'shop' } },
  });
});

describe('GET /v2/<ledger>/accounts/<address>', () => {
  it('reads an account, with its volumes on expand=volumes', async () => {
    const plain = await call('GET', `/v2/${ledger}/accounts/users:1`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ data: withoutVolumes(ACCOUNTS[3]!) });
    for (const account of ACCOUNTS) {
      const res = await call('GET', `/v2/${ledger}/accounts/${account.address}?expand=volumes`);
      expect(res.body, account.address).toEqual({ data: account });
    }
  });

  it('keeps 38-digit volumes exact, as strings on request', async () => {
    const res = await call('GET', `/v2/${ledger}/accounts/world?expand=volumes`);
    expect(res.text).toContain(`"COIN":{"input":0,"output":${MAX},"balance":-${MAX}}`);
    const strings = await call('GET', `/v2/${ledger}/accounts/bank?expand=volumes`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(strings.text).toContain(`"COIN":{"input":"${MAX}","output":"0","balance":"${MAX}"}`);
  });

  it('answers NOT_FOUND for an unknown or impossible address, LEDGER_NOT_FOUND for an unknown ledger', async () => {
    for (const address of [
      'nobody',
      'users:3',
      'users:',
      'a%20b',
      encodeURIComponent('x'.repeat(300)),
    ]) {
      const res = await call('GET', `/v2/${ledger}/accounts/${address}`);
      expect(res.status, address).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
    expect((await call('GET', `/v2/${ledger}/accounts/nobody`)).body.errorMessage).toBe(
      'account "nobody" not found',
    );
    const missing = await call('GET', '/v2/no-such-ledger/accounts/users:1');
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('answers effectiveVolumes (equal to volumes without a point in time), refuses unknown expand values and parameters', async () => {
    const effective = await call('GET', `/v2/${ledger}/accounts/users:1?expand=effectiveVolumes`);
    expect(effective.status).toBe(200);
    const both = await call(
      'GET',
      `/v2/${ledger}/accounts/users:1?expand=volumes&expand=effectiveVolumes`,
    );
    expect(both.status).toBe(200);
    expect(both.body.data.effectiveVolumes).toEqual(both.body.data.volumes);
    expect(effective.body.data.effectiveVolumes).toEqual(both.body.data.volumes);
    expect(effective.body.data.volumes).toBeUndefined();
    const unknown = await call('GET', `/v2/${ledger}/accounts/users:1?expand=balances`);
    expect(unknown.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'expand: "balances" is not supported (supported: volumes, effectiveVolumes)',
    });
    const pit = await call('GET', `/v2/${ledger}/accounts/users:1?pit=2026-13-01T00:00:00Z`);
    expect(pit.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)',
    });
    const listPit = await call('GET', `/v2/${ledger}/accounts?useInsertionDate=true`);
    expect(listPit.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        'useInsertionDate: not a parameter of this route (pit reads transactions and accounts by effective time; aggregated balances take useInsertionDate)',
    });
  });
});

describe('GET /v2/<ledger>/accounts', () => {
  it('lists every account by address ascending, with exact volumes on expand=volumes', async () => {
    const plain = await call('GET', `/v2/${ledger}/accounts`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      cursor: { pageSize: 15n, hasMore: false, data: ACCOUNTS.map(withoutVolumes) },
    });
    const expanded = await call('GET', `/v2/${ledger}/accounts?expand=volumes`);
    expect(expanded.body.cursor.data).toEqual(ACCOUNTS);
  });

  it('pages with cursors both ways, carrying expand in the cursor', async () => {
    const first = await call('GET', `/v2/${ledger}/accounts?pageSize=3&expand=volumes`);
    expect(first.body.cursor).toMatchObject({ pageSize: 3n, hasMore: true });
    expect(first.body.cursor.data).toEqual(ACCOUNTS.slice(0, 3));
    expect(first.body.cursor.previous).toBeUndefined();
    const second = await call('GET', `/v2/${ledger}/accounts?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data).toEqual(ACCOUNTS.slice(3, 6));
    const third = await call('GET', `/v2/${ledger}/accounts?cursor=${second.body.cursor.next}`);
    expect(third.body.cursor).toMatchObject({ pageSize: 3n, hasMore: false });
    expect(third.body.cursor.data).toEqual(ACCOUNTS.slice(6));
    expect(third.body.cursor.next).toBeUndefined();
    const back = await call('GET', `/v2/${ledger}/accounts?cursor=${third.body.cursor.previous}`);
    expect(back.body.cursor.data).toEqual(ACCOUNTS.slice(3, 6));
    expect(back.body.cursor.hasMore).toBe(true);
  });

  it('filters by address prefix (begins_with) and exact address; the cursor alone continues the filter', async () => {
    const prefix = await call('GET', `/v2/${ledger}/accounts?${match('users:')}&pageSize=2`);
    expect(prefix.status, prefix.text).toBe(200);
    expect(addresses(prefix)).toEqual(['users:1', 'users:1:eur']);
    expect(prefix.body.cursor.hasMore).toBe(true);
    const rest = await call('GET', `/v2/${ledger}/accounts?cursor=${prefix.body.cursor.next}`);
    expect(addresses(rest)).toEqual(['users:2']);
    expect(rest.body.cursor.hasMore).toBe(false);
    expect(addresses(await call('GET', `/v2/${ledger}/accounts?${match('users:1:')}`))).toEqual([
      'users:1:eur',
    ]);
    expect(addresses(await call('GET', `/v2/${ledger}/accounts?${match('users')}`))).toEqual([
      'users',
    ]);
    expect(
      (await call('GET', `/v2/${ledger}/accounts?${match('users:1')}&expand=volumes`)).body.cursor
        .data,
    ).toEqual([ACCOUNTS[3]]);
    expect(addresses(await call('GET', `/v2/${ledger}/accounts?${match('nobody')}`))).toEqual([]);
    expect(addresses(await call('GET', `/v2/${ledger}/accounts?${match('nobody:')}`))).toEqual([]);
    expect(addresses(await call('GET', `/v2/${ledger}/accounts?query=%7B%7D`))).toEqual(
      ACCOUNTS.map((a) => a.address),
    );
  });

  it('serves every filter: an index for one part, the rest judged on each account (balances from its volumes)', async () => {
    const list = async (filter: unknown) => {
      const res = await call('GET', `/v2/${ledger}/accounts?${q(filter)}`);
      expect(res.status, res.text).toBe(200);
      return addresses(res);
    };
    expect(
      await list({ $and: [{ $gt: { 'balance[USD/2]': 0 } }, { $match: { address: 'users:' } }] }),
    ).toEqual(['users:1', 'users:2']);
    // Served by the balance index: lowest balance first.
    expect(
      await list({ $and: [{ $gt: { 'balance[USD/2]': 0 } }, { $lt: { 'balance[USD/2]': 50 } }] }),
    ).toEqual(['users:2', 'users']);
    expect(await list({ $gt: { balance: 40 } })).toEqual(['bank', 'users:1', 'users:1:eur']);
    expect(
      await list({ $or: [{ $match: { address: 'users:1' } }, { $match: { address: 'bank' } }] }),
    ).toEqual(['bank', 'users:1']);
    expect(await list({ $not: { $like: { address: 'users%' } } })).toEqual([
      'bank',
      'merchant',
      'world',
    ]);
    expect(await list({ $exists: { metadata: 'tier' } })).toEqual(['users:1']);
    expect(await list({ $in: { address: ['world', 'merchant', 'nobody'] } })).toEqual([
      'merchant',
      'world',
    ]);
    expect(await list({ $lt: { first_usage: T3 } })).toEqual([
      'users:1',
      'users:1:eur',
      'users:2',
      'world',
    ]);
    expect(
      await list({ $and: [{ $match: { 'metadata[kind]': 'user' } }, { $gte: { updatedAt: T3 } }] }),
    ).toEqual(['users:1']);
    const head = await call('HEAD', `/v2/${ledger}/accounts?${q({ $gt: { balance: 40 } })}`);
    expect(head.headers.get('count')).toBe('3');
  });

  it('refuses malformed filters, naming the problem', async () => {
    const cases: Array<[string, string]> = [
      [
        q({ $match: { 'balance[USD/2]': '1.5' } }),
        'query.$match.balance[USD/2]: must be an integer of at most 1000 digits',
      ],
      [q({ $gt: { 'balance[usd]': 0 } }), 'query: "usd" is not an asset'],
      [
        q({ $gt: { 'balance[USD/2]': 10n ** 1000n } }),
        'query.$gt.balance[USD/2]: must be an integer of at most 1000 digits',
      ],
      [
        q({ $exists: { 'balance[USD/2]': true } }),
        'query.$exists.balance[USD/2]: operator $exists is not supported on this field (supported: $match, $in, $lt, $lte, $gt, $gte)',
      ],
      [q({ $match: { colour: 'red' } }), 'query.$match: accounts have no field "colour"'],
      [
        q({ $match: { address: 7 } }),
        'query.$match.address: must be an account address or pattern of at most 256 characters',
      ],
      [q('{"$match":'), 'query: must be valid JSON'],
      ['reverse=true', 'reverse: unknown query parameter'],
      [
        'expand=effectiveVolume',
        'expand: "effectiveVolume" is not supported (supported: volumes, effectiveVolumes)',
      ],
      ['pageSize=-1', 'pageSize: must be a positive integer'],
    ];
    for (const [query, message] of cases) {
      const res = await call('GET', `/v2/${ledger}/accounts?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
  });

  it('refuses a cursor with other parameters, from another list, or with a forged start key', async () => {
    const page = await call('GET', `/v2/${ledger}/accounts?pageSize=1`);
    const withFilter = await call(
      'GET',
      `/v2/${ledger}/accounts?cursor=${page.body.cursor.next}&${match('users:')}`,
    );
    expect(withFilter.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'query: only pageSize may accompany cursor',
    });
    const other = await fresh();
    const foreign = await call('GET', `/v2/${other}/accounts?cursor=${page.body.cursor.next}`);
    expect(foreign.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'cursor: not a cursor of this list',
    });
    const forged = (k: Record<string, string>, f?: Record<string, string>) =>
      encodeCursor({ l: `ledger.accounts.${ledger}`, p: 2, d: 'n', k, ...(f ? { f } : {}) });
    const key = (address: string, list = ledger) => ({
      pk: `E#default#L#${list}#A#${address}`,
      sk: 'A',
      gsi1pk: `E#default#L#${list}#ACCOUNTS`,
      gsi1sk: address,
    });
    for (const cursor of [
      forged(key('bank', other)),
      forged({ ...key('bank'), sk: 'V#COIN' }),
      forged({ ...key('bank'), extra: 'x' }),
      forged(key('bank'), { query: '{"$match":{"address":"users:"}}' }),
    ]) {
      const res = await call('GET', `/v2/${ledger}/accounts?cursor=${cursor}`);
      expect(res.body, cursor).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'cursor: not a cursor of this list',
      });
    }
    const badFilter = await call(
      'GET',
      `/v2/${ledger}/accounts?cursor=${forged(key('bank'), { query: '{"$match":{"address":"a b"}}' })}`,
    );
    expect(badFilter.body.errorMessage).toMatch(
      /^query.\$match.address: must be an account address, a prefix ending with ":", or a segment pattern/,
    );
    const valid = await call(
      'GET',
      `/v2/${ledger}/accounts?cursor=${forged(key('users:1'), { query: '{"$match":{"address":"users:"}}' })}`,
    );
    expect(addresses(valid)).toEqual(['users:1:eur', 'users:2']);
  });

  it('answers LEDGER_NOT_FOUND for an unknown ledger', async () => {
    const res = await call('GET', '/v2/no-such-ledger/accounts');
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });
});

describe('HEAD /v2/<ledger>/accounts', () => {
  it('counts every account from the HEAD item, and matching ones through the index', async () => {
    const count = async (query = '') => {
      const res = await call('HEAD', `/v2/${ledger}/accounts${query ? `?${query}` : ''}`);
      expect(res.status, res.text).toBe(204);
      expect(res.text).toBe('');
      return res.headers.get('count');
    };
    expect(await count()).toBe('7');
    expect(await count(match('users:'))).toBe('3');
    expect(await count(match('users'))).toBe('1');
    expect(await count(match('nobody'))).toBe('0');
    expect(await count('query=%7B%7D')).toBe('7');
  });

  it('refuses what GET refuses, and parameters a count does not take', async () => {
    const refused = await call(
      'HEAD',
      `/v2/${ledger}/accounts?${q({ $match: { 'balance[USD/2]': 'x' } })}`,
    );
    expect(refused.status).toBe(400);
    expect((await call('HEAD', `/v2/${ledger}/accounts?pageSize=2`)).status).toBe(400);
    expect((await call('HEAD', '/v2/no-such-ledger/accounts')).status).toBe(404);
  });
});

describe('balance filters (INDEX_ACCOUNT_BALANCES)', () => {
  const balances = (filter: unknown, extra = '') =>
    call('GET', `/v2/${ledger}/accounts?${q(filter)}${extra}`);
  it('lists accounts by balance of one asset, lowest first, bounds inclusive or not, exact beyond 2^53', async () => {
    // USD/2 balances: users 30, users:1 70, users:2 7, world -107. Accounts without USD/2 never match.
    expect(addresses(await balances({ $gte: { 'balance[USD/2]': 0 } }))).toEqual([
      'users:2',
      'users',
      'users:1',
    ]);
    expect(addresses(await balances({ $gt: { 'balance[USD/2]': 7 } }))).toEqual([
      'users',
      'users:1',
    ]);
    expect(addresses(await balances({ $lt: { 'balance[USD/2]': 30 } }))).toEqual([
      'world',
      'users:2',
    ]);
    expect(addresses(await balances({ $lte: { 'balance[USD/2]': '30' } }))).toEqual([
      'world',
      'users:2',
      'users',
    ]);
    expect(addresses(await balances({ $match: { 'balance[USD/2]': 70 } }))).toEqual(['users:1']);
    expect(
      addresses(
        await balances({
          $and: [{ $gt: { 'balance[USD/2]': -200 } }, { $lt: { 'balance[USD/2]': 30 } }],
        }),
      ),
    ).toEqual(['world', 'users:2']);
    expect(
      addresses(
        await balances({
          $and: [{ $gt: { 'balance[USD/2]': 50 } }, { $lt: { 'balance[USD/2]': 10 } }],
        }),
      ),
    ).toEqual([]);
    // 38-digit balances, positive and negative, compare exactly.
    expect(addresses(await balances({ $gte: { 'balance[COIN]': MAX } }))).toEqual(['bank']);
    expect(addresses(await balances({ $lt: { 'balance[COIN]': -(MAX - 1n) } }))).toEqual(['world']);
    expect(addresses(await balances({ $gt: { 'balance[COIN]': -MAX } }))).toEqual(['bank']);
    const counted = await call(
      'HEAD',
      `/v2/${ledger}/accounts?${q({ $gte: { 'balance[USD/2]': 0 } })}`,
    );
    expect(counted.headers.get('count')).toBe('3');
  });

  it('pages with cursors that keep the filter and expansion, and refuses a forged one', async () => {
    const first = await balances(
      { $gte: { 'balance[USD/2]': -1000 } },
      '&pageSize=2&expand=volumes',
    );
    expect(addresses(first)).toEqual(['world', 'users:2']);
    expect(first.body.cursor.data[1].volumes).toEqual({ 'USD/2': volume(7n, 0n) });
    const second = await call('GET', `/v2/${ledger}/accounts?cursor=${first.body.cursor.next}`);
    expect(addresses(second)).toEqual(['users', 'users:1']);
    expect(second.body.cursor.data[0].volumes).toEqual({ 'USD/2': volume(30n, 0n) });
    const back = await call('GET', `/v2/${ledger}/accounts?cursor=${second.body.cursor.previous}`);
    expect(addresses(back)).toEqual(['world', 'users:2']);
    const cursor = JSON.parse(Buffer.from(first.body.cursor.next, 'base64url').toString());
    const forged = Buffer.from(
      JSON.stringify({ ...cursor, k: { ...cursor.k, gsi1pk: 'E#default#L#other#BAL#USD/2' } }),
    ).toString('base64url');
    expect((await call('GET', `/v2/${ledger}/accounts?cursor=${forged}`)).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'cursor: not a cursor of this list',
    });
  });

  it('moves an account in the index as its balance changes, and is served from volumes when the feature is OFF (the default)', async () => {
    const name = await fresh({ features: { INDEX_ACCOUNT_BALANCES: 'ON' } });
    await tx(name, { postings: [send('world', 'a', 10n), send('world', 'b', 20n)] });
    const list = (filter: unknown) =>
      call('GET', `/v2/${name}/accounts?${q(filter)}`).then(addresses);
    expect(await list({ $gte: { 'balance[USD/2]': 15 } })).toEqual(['b']);
    await tx(name, { postings: [send('b', 'a', 20n)] });
    expect(await list({ $gte: { 'balance[USD/2]': 15 } })).toEqual(['a']);
    expect(await list({ $match: { 'balance[USD/2]': 0 } })).toEqual(['b']);
    expect((await call('POST', '/v2/nobalidx')).status).toBe(204);
    expect(
      (
        await call('POST', '/v2/nobalidx/transactions', {
          postings: [send('world', 'z', 5n), send('world', 'y', 1n)],
        })
      ).status,
    ).toBe(200);
    // Without the index, every account is read with its volumes (by address): a bounded scan.
    const scanned = await call(
      'GET',
      `/v2/nobalidx/accounts?${q({ $gte: { 'balance[USD/2]': 2 } })}`,
    );
    expect(addresses(scanned)).toEqual(['z']);
  });
});

describe('GET /v2/<ledger>/aggregate/balances', () => {
  it('sums balances over every account (zero per asset: double entry) or the matching ones', async () => {
    const all = await call('GET', `/v2/${ledger}/aggregate/balances`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ data: { COIN: 0n, 'EUR/2': 0n, 'USD/2': 0n } });
    expect((await call('GET', `/v2/${ledger}/aggregate/balances?${match('users:')}`)).body).toEqual(
      { data: { 'EUR/2': 50n, 'USD/2': 77n } },
    );
    expect((await call('GET', `/v2/${ledger}/aggregate/balances?${match('users')}`)).body).toEqual({
      data: { 'USD/2': 30n },
    });
    expect((await call('GET', `/v2/${ledger}/aggregate/balances?${match('world')}`)).body).toEqual({
      data: { COIN: -MAX, 'EUR/2': -50n, 'USD/2': -107n },
    });
    expect(
      (await call('GET', `/v2/${ledger}/aggregate/balances?${match('nobody:')}`)).body,
    ).toEqual({ data: {} });
  });

  it('refuses bad filters and parameters, and answers LEDGER_NOT_FOUND', async () => {
    const refused = await call(
      'GET',
      `/v2/${ledger}/aggregate/balances?${q({ $match: { 'balance[USD/2]': 'one' } })}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('VALIDATION');
    const pit = await call('GET', `/v2/${ledger}/aggregate/balances?useInsertionDate=maybe`);
    expect(pit.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'useInsertionDate: must be true or false',
    });
    expect((await call('GET', '/v2/no-such-ledger/aggregate/balances')).body.errorCode).toBe(
      'LEDGER_NOT_FOUND',
    );
  });

  it('keeps sums exact beyond 38 digits', async () => {
    const big = await fresh();
    await tx(
      big,
      { postings: [send('src:a', 'x:a', MAX, 'COIN'), send('src:b', 'x:b', MAX, 'COIN')] },
      '?force=true',
    );
    const res = await call('GET', `/v2/${big}/aggregate/balances?${match('x:')}`);
    expect(res.text).toBe(`{"data":{"COIN":${2n * MAX}}}`);
    expect((await call('GET', `/v2/${big}/aggregate/balances`)).body).toEqual({
      data: { COIN: 0n },
    });
  });
});

describe('segment patterns (INDEX_ADDRESS_SEGMENTS)', () => {
  it('match addresses with as many segments whose fixed segments are equal, in lists, counts and aggregates', async () => {
    const seg = await fresh();
    for (const address of [
      'users:1:eur',
      'users:1:usd',
      'users:2:eur',
      'users:2',
      'shops:1:eur',
      'users:1:eur:hold',
    ]) {
      await tx(seg, { postings: [send('world', address, 3n)] });
    }
    // An account created by metadata alone is indexed too.
    expect(
      (await call('POST', `/v2/${seg}/accounts/users:3:eur/metadata`, { kind: 'user' })).status,
    ).toBe(204);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match('users::eur')}`))).toEqual([
      'users:1:eur',
      'users:2:eur',
      'users:3:eur',
    ]);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match('::eur')}`))).toEqual([
      'shops:1:eur',
      'users:1:eur',
      'users:2:eur',
      'users:3:eur',
    ]);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match(':1')}`))).toEqual([]);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match(':2')}`))).toEqual(['users:2']);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match('users:1:')}`))).toEqual([
      'users:1:eur',
      'users:1:eur:hold',
      'users:1:usd',
    ]);
    expect(addresses(await call('GET', `/v2/${seg}/accounts?${match('users:1::')}`))).toEqual([
      'users:1:eur:hold',
    ]);
    expect(
      (await call('HEAD', `/v2/${seg}/accounts?${match('users::eur')}`)).headers.get('count'),
    ).toBe('3');
    expect((await call('GET', `/v2/${seg}/aggregate/balances?${match('::eur')}`)).body).toEqual({
      data: { 'USD/2': 9n },
    });
    // Cursors keep the pattern, with expansions.
    const first = await call(
      'GET',
      `/v2/${seg}/accounts?${match('::eur')}&pageSize=3&expand=volumes`,
    );
    expect(addresses(first)).toEqual(['shops:1:eur', 'users:1:eur', 'users:2:eur']);
    const next = await call('GET', `/v2/${seg}/accounts?cursor=${first.body.cursor.next}`);
    expect(addresses(next)).toEqual(['users:3:eur']);
    expect(next.body.cursor.data[0].volumes).toEqual({});
    const cursor = JSON.parse(Buffer.from(first.body.cursor.next, 'base64url').toString());
    const forged = Buffer.from(
      JSON.stringify({ ...cursor, k: { ...cursor.k, pk: `E#default#L#${seg}#SEG#3#0#users` } }),
    ).toString('base64url');
    expect((await call('GET', `/v2/${seg}/accounts?cursor=${forged}`)).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'cursor: not a cursor of this list',
    });
    // /volumes serves them too (judged per row on the accounts listed).
    const rows = await call('GET', `/v2/${seg}/volumes?${match('::eur')}`);
    expect(rows.body.cursor.data.map((r: { account: string }) => r.account)).toEqual([
      'shops:1:eur',
      'users:1:eur',
      'users:2:eur',
    ]);
  });
});

describe('INDEX_ADDRESS_SEGMENTS OFF', () => {
  it('serves prefix filters on list, count and aggregates by a scan, and exact addresses', async () => {
    const off = await fresh({ features: { INDEX_ADDRESS_SEGMENTS: 'OFF' } });
    await tx(off, { postings: [send('world', 'users:1', 5n)] });
    expect(addresses(await call('GET', `/v2/${off}/accounts?${match('users:')}`))).toEqual([
      'users:1',
    ]);
    expect(addresses(await call('GET', `/v2/${off}/accounts?${match(':1')}`))).toEqual(['users:1']);
    expect(
      (await call('HEAD', `/v2/${off}/accounts?${match('users:')}`)).headers.get('count'),
    ).toBe('1');
    // Aggregates take the list's query language, so its plan: without the index, accounts are read and matched.
    const aggregate = await call('GET', `/v2/${off}/aggregate/balances?${match('users:')}`);
    expect(aggregate.body).toEqual({ data: { 'USD/2': 5n } });
    expect(addresses(await call('GET', `/v2/${off}/accounts?${match('users:1')}`))).toEqual([
      'users:1',
    ]);
    expect(
      (await call('HEAD', `/v2/${off}/accounts?${match('users:1')}`)).headers.get('count'),
    ).toBe('1');
    expect((await call('GET', `/v2/${off}/aggregate/balances?${match('users:1')}`)).body).toEqual({
      data: { 'USD/2': 5n },
    });
  });
});

describe('a page wider than one BatchGetItem', () => {
  it('fetches 120 volume items for one page and sums them', async () => {
    const wide = await fresh();
    // 6 transactions x 10 accounts x 2 assets: 120 (account, asset) pairs besides world's. (Ten accounts per
    // transaction keeps each one under DynamoDB's 100 items per transaction, moves and indexes included.)
    for (let batch = 0; batch < 6; batch++) {
      const postings = Array.from({ length: 10 }, (_, i) => {
        const n = batch * 10 + i;
        const address = `p:${String(n).padStart(2, '0')}`;
        return [
          send('world', address, BigInt(n + 1), 'USD'),
          send('world', address, BigInt(1000 + n), 'EUR'),
        ];
      }).flat();
      await tx(wide, { postings });
    }
    const res = await call(
      'GET',
      `/v2/${wide}/accounts?${match('p:')}&pageSize=100&expand=volumes`,
    );
    const data = res.body.cursor.data as Array<{
      address: string;
      volumes: Record<string, unknown>;
    }>;
    expect(data).toHaveLength(60);
    data.forEach((account, n) => {
      expect(account.address).toBe(`p:${String(n).padStart(2, '0')}`);
      expect(account.volumes).toEqual({
        EUR: volume(BigInt(1000 + n), 0n),
        USD: volume(BigInt(n + 1), 0n),
      });
    });
    const sums = await call('GET', `/v2/${wide}/aggregate/balances?${match('p:')}`);
    expect(sums.body).toEqual({ data: { EUR: 61770n, USD: 1830n } });
  });
});

describe('a filter judged in memory reads a bounded number of accounts per page', () => {
  it('answers short pages with hasMore, and cursors that find every match once', async () => {
    const { runtime: small } = await testTables({ LEDGER_SCAN_READS: '100' });
    const { call: smallCall } = await ledgerClient(small);
    expect((await smallCall('POST', '/v2/acc-scan')).status).toBe(204);
    // 150 accounts besides world; the ones whose number ends in 7 get metadata `pick` (judged in memory with $exists).
    const bulk = Array.from({ length: 150 }, (_, i) => ({
      action: 'CREATE_TRANSACTION',
      data: {
        postings: [send('world', `n:${String(i).padStart(3, '0')}`, 1n)],
        metadata: {},
        ...(i % 10 === 7
          ? { accountMetadata: { [`n:${String(i).padStart(3, '0')}`]: { pick: 'yes' } } }
          : {}),
      },
    }));
    for (let i = 0; i < bulk.length; i += 100)
      expect((await smallCall('POST', '/v2/acc-scan/_bulk', bulk.slice(i, i + 100))).status).toBe(
        200,
      );
    const query = q({ $exists: { metadata: 'pick' } });
    const seen: string[] = [];
    const sizes: number[] = [];
    let next: string | undefined;
    do {
      const res = await smallCall(
        'GET',
        `/v2/acc-scan/accounts?pageSize=15&${next ? `cursor=${next}` : query}`,
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...addresses(res));
      sizes.push(res.body.cursor.data.length);
      next = res.body.cursor.hasMore ? res.body.cursor.next : undefined;
    } while (next && sizes.length < 20);
    expect(seen).toEqual(
      Array.from({ length: 15 }, (_, k) => `n:${String(k * 10 + 7).padStart(3, '0')}`),
    );
    // 151 accounts, 100 read a page at most: the first page stops short with the 10 matches among the first 100
    // read (fewer than pageSize, hasMore true); the next holds the other 5.
    expect(sizes).toEqual([10, 5]);
    expect((await smallCall('HEAD', `/v2/acc-scan/accounts?${query}`)).headers.get('count')).toBe(
      '15',
    );
  });
});
