/**
 * The v1 account, balance, log, info and write routes (the SDK's ledger.v1 operations beyond transactions
 * lists) over HTTP and DynamoDB Local: exact shapes, filters alone and combined, cursors, counts, and bad input.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

const fresh = async (body?: unknown) => {
  const name = `va${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`, body);
  expect(res.status, res.text).toBe(204);
  return name;
};
const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const create = async (ledger: string, body: unknown) => {
  const res = await call('POST', `/${ledger}/transactions`, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data[0];
};
const addresses = (res: { body: any }) =>
  res.body.cursor.data.map((a: { address: string }) => a.address);

/** users:1 (USD 70, tier gold), users:2 (USD 30, EUR 5, tier silver), shop:1 (USD 0 after a spend), world. */
async function seeded(features?: Record<string, string>): Promise<string> {
  const ledger = await fresh(features ? { features } : undefined);
  await create(ledger, {
    postings: [
      send('world', 'users:1', 100n),
      send('world', 'users:2', 30n),
      send('world', 'users:2', 5n, 'EUR'),
    ],
  });
  await create(ledger, { postings: [send('users:1', 'shop:1', 30n)] });
  await create(ledger, { postings: [send('shop:1', 'world', 30n)] });
  expect(
    (await call('POST', `/${ledger}/accounts/users:1/metadata`, { tier: 'gold', region: 'eu' }))
      .status,
  ).toBe(204);
  expect(
    (await call('POST', `/${ledger}/accounts/users:2/metadata`, { tier: 'silver', region: 'eu' }))
      .status,
  ).toBe(204);
  return ledger;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('v1 accounts', () => {
  it('lists by address ascending, with every filter alone and combined, and counts the same', async () => {
    const ledger = await seeded();
    const all = await call('GET', `/${ledger}/accounts`);
    expect(all.status, all.text).toBe(200);
    expect(addresses(all)).toEqual(['shop:1', 'users:1', 'users:2', 'world']);
    expect(all.body.cursor.data[1]).toEqual({
      address: 'users:1',
      metadata: { tier: 'gold', region: 'eu' },
      firstUsage: expect.any(String),
      insertionDate: expect.any(String),
      updatedAt: expect.any(String),
    });
    for (const [query, expected] of [
      ['address=users:1', ['users:1']],
      ['address=users:', ['users:1', 'users:2']],
      ['address=users:.*', ['users:1', 'users:2']],
      ['address=.*:1', ['shop:1', 'users:1']],
      ['address=users:[2-9]', ['users:2']],
      ['metadata[tier]=gold', ['users:1']],
      ['metadata[region]=eu&metadata[tier]=silver', ['users:2']],
      ['metadata[region]=eu&address=.*1', ['users:1']],
      // gte without an operator, as the SDK documents.
      ['balance=30', ['users:1', 'users:2']],
      ['balance=31&balanceOperator=gte', ['users:1']],
      ['balance=70&balanceOperator=e', ['users:1']],
      ['balance=70&balanceOperator=eq', ['users:1']],
      ['balance=0&balanceOperator=lt', ['world']],
      ['balance=5&balanceOperator=lte', ['shop:1', 'users:2', 'world']],
      ['balance=0&balanceOperator=ne', ['users:1', 'users:2', 'world']],
      ['balance=0&balanceOperator=gt&address=users:', ['users:1', 'users:2']],
      ['balance=40&balanceOperator=gt&metadata[region]=eu', ['users:1']],
      ['after=shop:1', ['users:1', 'users:2', 'world']],
      ['after=users:1&address=users:', ['users:2']],
      ['after=users:1&metadata[region]=eu', ['users:2']],
    ] as Array<[string, string[]]>) {
      const res = await call('GET', `/${ledger}/accounts?${query}`);
      expect(res.status, `${query} ${res.text}`).toBe(200);
      expect(addresses(res), query).toEqual(expected);
      const count = await call('HEAD', `/${ledger}/accounts?${query}`);
      expect([count.status, count.headers.get('count')], query).toEqual([
        204,
        String(expected.length),
      ]);
    }
    expect((await call('HEAD', `/${ledger}/accounts`)).headers.get('count')).toBe('4');
  });

  it('pages with cursors that carry the filters; a page may be short while hasMore', async () => {
    const ledger = await seeded();
    const first = await call('GET', `/${ledger}/accounts?address=.*:[0-9]&pageSize=2`);
    expect([addresses(first), first.body.cursor.hasMore]).toEqual([['shop:1', 'users:1'], true]);
    const second = await call('GET', `/${ledger}/accounts?cursor=${first.body.cursor.next}`);
    // users:2 matches; world is read and does not.
    expect([addresses(second), second.body.cursor.hasMore]).toEqual([['users:2'], false]);
    const legacy = await call(
      'GET',
      `/${ledger}/accounts?pagination_token=${first.body.cursor.next}`,
    );
    expect(addresses(legacy)).toEqual(['users:2']);
    const byBalance = await call(
      'GET',
      `/${ledger}/accounts?balance=1&balanceOperator=gte&pageSize=1`,
    );
    expect([addresses(byBalance), byBalance.body.cursor.hasMore]).toEqual([[], true]);
    const v2Cursor = (await call('GET', `/v2/${ledger}/accounts?pageSize=1`)).body.cursor.next;
    const refused = await call('GET', `/${ledger}/accounts?cursor=${v2Cursor}`);
    expect([refused.status, refused.body.errorMessage]).toEqual([
      400,
      'cursor: not a cursor of this list',
    ]);
  });

  it('serves a prefix without INDEX_ADDRESS_SEGMENTS from the listing', async () => {
    const ledger = await seeded({ INDEX_ADDRESS_SEGMENTS: 'OFF' });
    expect(addresses(await call('GET', `/${ledger}/accounts?address=users:`))).toEqual([
      'users:1',
      'users:2',
    ]);
    expect((await call('GET', `/${ledger}/aggregate/balances?address=users:`)).body.data).toEqual({
      EUR: 5n,
      USD: 100n,
    });
  });

  it('reads one account with volumes and balances; an account never used is answered empty', async () => {
    const ledger = await seeded();
    const res = await call('GET', `/${ledger}/accounts/users:2`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      address: 'users:2',
      metadata: { tier: 'silver', region: 'eu' },
      firstUsage: expect.any(String),
      insertionDate: expect.any(String),
      updatedAt: expect.any(String),
      volumes: {
        EUR: { input: 5n, output: 0n, balance: 5n },
        USD: { input: 30n, output: 0n, balance: 30n },
      },
      balances: { EUR: 5n, USD: 30n },
    });
    expect((await call('GET', `/${ledger}/accounts/nobody`)).body).toEqual({
      data: { address: 'nobody', metadata: {}, volumes: {}, balances: {} },
    });
  });

  it('refuses bad input with 400 VALIDATION', async () => {
    const ledger = await seeded();
    for (const [path, message] of [
      ['/accounts?balance=abc', 'balance: must be an integer of at most 1000 digits'],
      [
        '/accounts?balance=1&balanceOperator=between',
        'balanceOperator: must be one of e, eq, ne, lt, lte, gt, gte',
      ],
      ['/accounts?balanceOperator=gt', 'balanceOperator: only with balance'],
      ['/accounts?address=(users)%2B', 'address: a quantifier on a group is not supported'],
      ['/accounts?reverse=true', 'reverse: unknown query parameter'],
      ['/accounts?cursor=abc&address=a', 'address: only pageSize may accompany cursor'],
      ['/accounts/bad%20address', 'address: must be an account address'],
      ['/balances?metadata[a]=b', 'metadata[a]: unknown query parameter'],
      ['/aggregate/balances?pit=2026-01-01T00:00:00Z', 'pit: unknown query parameter'],
      ['/aggregate/balances?useInsertionDate=maybe', 'useInsertionDate'],
    ] as Array<[string, string]>) {
      const res = await call('GET', `/${ledger}${path}`);
      expect([res.status, res.body.errorCode], path).toEqual([400, 'VALIDATION']);
      expect(res.body.errorMessage, path).toContain(message);
    }
    const notJson = await call('POST', `/${ledger}/accounts/users:1/metadata`, '{', {
      'content-type': 'application/json',
    });
    expect([notJson.status, notJson.body.errorCode]).toEqual([400, 'VALIDATION']);
    const badAddress = await call('POST', `/${ledger}/accounts/a%20b/metadata`, { k: 'v' });
    expect([badAddress.status, badAddress.body.errorCode]).toEqual([400, 'VALIDATION']);
    expect((await call('GET', '/no-such-ledger/accounts')).status).toBe(404);
  });
});

describe('v1 balances', () => {
  it('lists balances by account, filtered by address, and aggregates them', async () => {
    const ledger = await seeded();
    const all = await call('GET', `/${ledger}/balances`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.cursor.data).toEqual([
      { 'shop:1': { USD: 0n } },
      { 'users:1': { USD: 70n } },
      { 'users:2': { EUR: 5n, USD: 30n } },
      { world: { EUR: -5n, USD: -100n } },
    ]);
    expect((await call('GET', `/${ledger}/balances?address=users:`)).body.cursor.data).toEqual([
      { 'users:1': { USD: 70n } },
      { 'users:2': { EUR: 5n, USD: 30n } },
    ]);
    expect((await call('GET', `/${ledger}/balances?address=users:2`)).body.cursor.data).toEqual([
      { 'users:2': { EUR: 5n, USD: 30n } },
    ]);
    const paged = await call('GET', `/${ledger}/balances?pageSize=3&after=shop:1`);
    expect(paged.body.cursor.data.map((b: object) => Object.keys(b)[0])).toEqual([
      'users:1',
      'users:2',
      'world',
    ]);

    expect((await call('GET', `/${ledger}/aggregate/balances`)).body).toEqual({
      data: { EUR: 0n, USD: 0n },
    });
    expect((await call('GET', `/${ledger}/aggregate/balances?address=users:`)).body.data).toEqual({
      EUR: 5n,
      USD: 100n,
    });
    expect((await call('GET', `/${ledger}/aggregate/balances?address=users:1`)).body.data).toEqual({
      USD: 70n,
    });
    expect((await call('GET', `/${ledger}/aggregate/balances?address=.*:1`)).body.data).toEqual({
      USD: 70n,
    });
    expect(
      (await call('GET', `/${ledger}/aggregate/balances?address=.*:1&useInsertionDate=true`)).body
        .data,
    ).toEqual({ USD: 70n });
  });
});

describe('v1 transaction writes and reads', () => {
  it('reads one transaction, adds metadata, reverts (disableChecks), through the v2 commands and log', async () => {
    const ledger = await fresh();
    await create(ledger, { postings: [send('world', 'a', 10n)] });
    await create(ledger, { postings: [send('a', 'b', 10n)] });
    const got = await call('GET', `/${ledger}/transactions/2`);
    expect(got.body.data).toEqual({
      txid: 2n,
      postings: [send('a', 'b', 10n)],
      metadata: {},
      timestamp: expect.any(String),
      reverted: false,
      preCommitVolumes: {
        a: { USD: { input: 10n, output: 0n, balance: 10n } },
        b: { USD: { input: 0n, output: 0n, balance: 0n } },
      },
      postCommitVolumes: {
        a: { USD: { input: 10n, output: 10n, balance: 0n } },
        b: { USD: { input: 10n, output: 0n, balance: 10n } },
      },
    });
    expect((await call('GET', `/${ledger}/transactions/9`)).body.errorCode).toBe('NOT_FOUND');

    const meta = await call(
      'POST',
      `/${ledger}/transactions/2/metadata`,
      { checked: 'yes' },
      { 'Idempotency-Key': 'm-1' },
    );
    expect(meta.status).toBe(204);
    const replay = await call(
      'POST',
      `/${ledger}/transactions/2/metadata`,
      { checked: 'yes' },
      { 'Idempotency-Key': 'm-1' },
    );
    expect([replay.status, replay.headers.get('idempotency-hit')]).toEqual([204, 'true']);
    expect((await call('GET', `/v2/${ledger}/transactions/2`)).body.data.metadata).toEqual({
      checked: 'yes',
    });
    expect((await call('POST', `/${ledger}/transactions/9/metadata`, { k: 'v' })).status).toBe(404);
    // `preview` decides without writing, on transactions and accounts alike.
    expect(
      (await call('POST', `/${ledger}/transactions/2/metadata?preview=true`, { other: 'x' }))
        .status,
    ).toBe(204);
    expect(
      (await call('POST', `/${ledger}/accounts/b/metadata?preview=true`, { other: 'x' })).status,
    ).toBe(204);
    expect((await call('GET', `/v2/${ledger}/transactions/2`)).body.data.metadata).toEqual({
      checked: 'yes',
    });
    expect((await call('GET', `/v2/${ledger}/accounts/b`)).body.data.metadata).toEqual({});

    // b spent its 10: reverting 1 (world→a) needs a to pay back 10, which it no longer has.
    const refused = await call('POST', `/${ledger}/transactions/1/revert`);
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'INSUFFICIENT_FUND']);
    const reverted = await call('POST', `/${ledger}/transactions/1/revert?disableChecks=true`);
    expect(reverted.status, reverted.text).toBe(201);
    expect(reverted.body.data).toMatchObject({
      txid: 3n,
      postings: [send('a', 'world', 10n)],
      metadata: { 'com.formance.spec/state/reverts': '1' },
    });
    expect(reverted.body.data.postCommitVolumes.a.USD).toEqual({
      input: 10n,
      output: 20n,
      balance: -10n,
    });
    const again = await call('POST', `/${ledger}/transactions/1/revert?disableChecks=true`);
    expect([again.status, again.body.errorCode]).toEqual([400, 'VALIDATION']);

    const logs = await call('GET', `/${ledger}/logs`);
    expect(
      logs.body.cursor.data.map((l: { id: bigint; type: string }) => [Number(l.id), l.type]),
    ).toEqual([
      [4, 'NEW_TRANSACTION'],
      [3, 'SET_METADATA'],
      [2, 'NEW_TRANSACTION'],
      [1, 'NEW_TRANSACTION'],
    ]);
    // The revert's v2 data is kept: it names the reverted transaction.
    expect(logs.body.cursor.data[0].data.revertedTransaction.id).toBe(1n);
    const events = await ledgerEventsOf(runtime, ledger);
    expect(events.map((e) => e.type)).toEqual([
      'ledger.committed_transactions',
      'ledger.committed_transactions',
      'ledger.saved_metadata',
      'ledger.reverted_transaction',
    ]);
  });

  it('creates a batch in one commit, or nothing', async () => {
    const ledger = await fresh();
    const batch = await call('POST', `/${ledger}/transactions/batch`, {
      transactions: [
        { postings: [send('world', 'a', 10n)], reference: 'b-1', metadata: null },
        { postings: [send('a', 'b', 4n)], metadata: { n: '2' }, timestamp: '2026-02-01T00:00:00Z' },
      ],
    });
    expect(batch.status, batch.text).toBe(200);
    expect(
      batch.body.data.map((t: { txid: bigint; reference?: string; metadata: object }) => [
        t.txid,
        t.reference,
        t.metadata,
      ]),
    ).toEqual([
      [1n, 'b-1', {}],
      [2n, undefined, { n: '2' }],
    ]);
    expect(batch.body.data[1].preCommitVolumes.a.USD).toEqual({
      input: 10n,
      output: 0n,
      balance: 10n,
    });
    expect(batch.body.data[1].timestamp).toBe('2026-02-01T00:00:00Z');

    const poor = await call('POST', `/${ledger}/transactions/batch`, {
      transactions: [{ postings: [send('world', 'c', 1n)] }, { postings: [send('b', 'c', 100n)] }],
    });
    expect([poor.status, poor.body.errorCode]).toEqual([400, 'INSUFFICIENT_FUND']);
    expect((await call('HEAD', `/${ledger}/transactions`)).headers.get('count')).toBe('2');
    for (const [body, message] of [
      [{ transactions: [] }, 'body.transactions: must hold at least one transaction'],
      [
        { transactions: [{ postings: [] }] },
        'body.transactions.0.postings: must hold at least one posting',
      ],
      [
        { transactions: [{ postings: [send('world', 'a', 1n)], script: { plain: '' } }] },
        'body.transactions.0',
      ],
      [{}, 'body.transactions'],
    ] as Array<[unknown, string]>) {
      const res = await call('POST', `/${ledger}/transactions/batch`, body);
      expect([res.status, res.body.errorCode], message).toEqual([400, 'VALIDATION']);
      expect(res.body.errorMessage, message).toContain(message);
    }
    const keyed = await call(
      'POST',
      `/${ledger}/transactions/batch`,
      { transactions: [{ postings: [send('world', 'a', 1n)] }] },
      { 'Idempotency-Key': 'k' },
    );
    expect([keyed.status, keyed.body.errorMessage]).toEqual([
      400,
      expect.stringContaining('Idempotency-Key: not supported on the v1 batch'),
    ]);
    expect((await call('HEAD', `/${ledger}/transactions`)).headers.get('count')).toBe('2');
  });
});

describe('v1 logs, info, stats', () => {
  it('lists logs newest first with after, a time range and cursors that keep it', async () => {
    const ledger = await fresh();
    for (let i = 0; i < 4; i++) await create(ledger, { postings: [send('world', `a${i}`, 1n)] });
    const all = await call('GET', `/${ledger}/logs`);
    expect(all.body.cursor.data.map((l: { id: bigint }) => Number(l.id))).toEqual([4, 3, 2, 1]);
    expect(Object.keys(all.body.cursor.data[0])).toEqual(['id', 'type', 'data', 'date', 'hash']);
    expect(
      (await call('GET', `/${ledger}/logs?after=3`)).body.cursor.data.map((l: { id: bigint }) =>
        Number(l.id),
      ),
    ).toEqual([2, 1]);
    const page = await call('GET', `/${ledger}/logs?after=4&pageSize=2`);
    expect(page.body.cursor.data.map((l: { id: bigint }) => Number(l.id))).toEqual([3, 2]);
    expect(
      (await call('GET', `/${ledger}/logs?cursor=${page.body.cursor.next}`)).body.cursor.data.map(
        (l: { id: bigint }) => Number(l.id),
      ),
    ).toEqual([1]);
    const third = all.body.cursor.data[1].date as string;
    expect(
      (await call('GET', `/${ledger}/logs?startTime=${third}`)).body.cursor.data.map(
        (l: { id: bigint }) => Number(l.id),
      ),
    ).toEqual(expect.arrayContaining([4, 3]));
    const before = await call('GET', `/${ledger}/logs?endTime=2000-01-01T00:00:00Z&pageSize=2`);
    expect([before.body.cursor.data, before.body.cursor.hasMore]).toEqual([[], true]);
    expect(
      (await call('GET', `/${ledger}/logs?cursor=${before.body.cursor.next}`)).body.cursor.data,
    ).toEqual([]);
    expect(
      (await call('GET', `/${ledger}/logs?start_time=2999-01-01T00:00:00Z`)).body.cursor.data,
    ).toEqual([]);
    for (const query of ['after=x', 'startTime=soon', 'reverse=true']) {
      expect((await call('GET', `/${ledger}/logs?${query}`)).body.errorCode, query).toBe(
        'VALIDATION',
      );
    }
  });

  it('answers _info with the ledger names, the ledger info and its stats', async () => {
    const ledger = await seeded();
    const info = await call('GET', '/_info');
    expect(info.body.data).toMatchObject({
      server: 'ledger',
      version: expect.any(String),
      config: { storage: { driver: 'dynamodb' } },
    });
    expect(info.body.data.config.storage.ledgers).toContain(ledger);
    expect((await call('GET', `/${ledger}/_info`)).body).toEqual({
      data: { name: ledger, storage: { migrations: [] } },
    });
    expect((await call('GET', `/${ledger}/stats`)).body).toEqual({
      data: { accounts: 4n, transactions: 3n },
    });
    expect((await call('GET', '/no-such-ledger/stats')).body.errorCode).toBe('NOT_FOUND');
    // The v2 routes are unchanged.
    expect((await call('GET', `/v2/${ledger}/stats`)).body).toEqual({
      data: { accounts: 4n, transactions: 3n },
    });
    expect((await call('GET', '/v2/_info')).body.data.config.storage).toEqual({
      driver: 'dynamodb',
    });
  });
});
