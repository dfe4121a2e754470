/**
 * Reference ledger v2.4 behaviours over raw HTTP on the in-process ledger app: the 501s for what is not served,
 * `/_/info`, aggregate balances over the full query language, `sort`, and `previous` cursors that keep their page
 * size. (The same through the official SDK: test/interop/sdk-parity.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json/bigint-json.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
let counter = 0;

const fresh = async () => {
  const name = `p${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
};

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call, app } = await ledgerClient(runtime));
});

describe('operations the platform does not serve', () => {
  it('answer 501 NOT_IMPLEMENTED with the reason, with or without a token', async () => {
    for (const [method, path] of [['GET', '/_/metrics']] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(501);
      expect(res.body.errorCode).toBe('NOT_IMPLEMENTED');
      expect(res.body.errorMessage).toMatch(/not implemented by this platform: /);
      const anonymous = await app.request(`/api/ledger${path}`, { method });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(501);
    }
    // A path that is no operation of the reference stays a 404.
    expect((await call('GET', '/v2/_/nothing-here')).status).toBe(404);
  });
});

describe('server info', () => {
  it('answers /_/info as the reference V2ConfigInfo, with experimentalFeatures', async () => {
    const res = await call('GET', '/_/info');
    expect(res.body).toEqual({
      server: 'ledger',
      version: expect.any(String),
      experimentalFeatures: [],
    });
    const wrapped = await call('GET', '/v2/_info');
    expect(wrapped.body.data.experimentalFeatures).toEqual([]);
  });
});

const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
const post = async (ledger: string, body: unknown) => {
  const res = await call('POST', `/v2/${ledger}/transactions`, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

describe('aggregated balances take the query language of the lists', () => {
  it('$in, $or, $and, $not, metadata, partial addresses and balances, also at a point in time', async () => {
    const ledger = await fresh();
    await post(ledger, {
      postings: [
        send('world', 'users:1', 10n),
        send('world', 'users:2', 20n),
        send('world', 'shop:1', 5n),
        send('world', 'shop:1', 3n, 'EUR'),
      ],
      timestamp: '2026-01-01T00:00:00Z',
    });
    for (const [address, tier] of [
      ['users:1', 'gold'],
      ['users:2', 'silver'],
      ['shop:1', 'gold'],
    ] as const) {
      const res = await call('POST', `/v2/${ledger}/accounts/${address}/metadata`, { tier });
      expect(res.status).toBe(204);
    }
    await post(ledger, {
      postings: [send('world', 'users:1', 100n)],
      timestamp: '2026-02-01T00:00:00Z',
    });
    const aggregate = async (query: unknown, extra = '') => {
      const res = await call('GET', `/v2/${ledger}/aggregate/balances?${q(query)}${extra}`);
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    expect(await aggregate({ $in: { address: ['users:1', 'shop:1'] } })).toEqual({
      USD: 115n,
      EUR: 3n,
    });
    expect(await aggregate({ $match: { 'metadata[tier]': 'gold' } })).toEqual({
      USD: 115n,
      EUR: 3n,
    });
    expect(
      await aggregate({
        $or: [{ $match: { address: 'users:2' } }, { $match: { 'metadata[tier]': 'gold' } }],
      }),
    ).toEqual({ USD: 135n, EUR: 3n });
    expect(
      await aggregate({
        $and: [{ $match: { address: 'users:' } }, { $not: { $match: { address: 'users:1' } } }],
      }),
    ).toEqual({ USD: 20n });
    expect(await aggregate({ $match: { address: ':1' } })).toEqual({ USD: 115n, EUR: 3n });
    expect(await aggregate({ $gt: { 'balance[USD]': 15 } })).toEqual({ USD: 130n });
    // Before the second transaction (effective time), and with the metadata as it was then (none).
    expect(await aggregate({ $match: { address: 'users:' } }, '&pit=2026-01-15T00:00:00Z')).toEqual(
      { USD: 30n },
    );
    expect(
      await aggregate({ $in: { address: ['users:1', 'users:2'] } }, '&pit=2026-01-15T00:00:00Z'),
    ).toEqual({ USD: 30n });
  });
});

describe('previous cursors keep the page size and walk back exactly', () => {
  it('on transactions filtered by account (v2, both orders) and v1 account lists', async () => {
    const ledger = await fresh();
    for (let i = 1; i <= 7; i++)
      await post(ledger, {
        postings: [
          send('world', `u:${i}`, BigInt(i)),
          send('world', 'bank', 1n, 'EUR'),
          send('bank', 'x', 1n, 'EUR'),
        ],
      });
    // `world` is a source of every transaction, in two asset streams (USD, EUR); `bank` too, in one.
    const ids = (res: { body: any }) =>
      res.body.cursor.data.map((t: { id?: bigint; txid?: bigint }) => Number(t.id ?? t.txid));
    const walk = async (first: string, base: string) => {
      const p1 = await call('GET', first);
      const p2 = await call('GET', `${base}?cursor=${p1.body.cursor.next}`);
      const p3 = await call('GET', `${base}?cursor=${p2.body.cursor.next}`);
      const back2 = await call('GET', `${base}?cursor=${p3.body.cursor.previous}`);
      const back1 = await call('GET', `${base}?cursor=${back2.body.cursor.previous}`);
      const again3 = await call('GET', `${base}?cursor=${back2.body.cursor.next}`);
      for (const r of [p1, p2, p3, back2, back1, again3]) expect(r.status, r.text).toBe(200);
      expect(Number(back2.body.cursor.pageSize)).toBe(2);
      return {
        pages: [p1, p2, p3].map(ids),
        back: [back2, back1].map(ids),
        again: ids(again3),
        firstHasPrevious: p1.body.cursor.previous !== undefined,
      };
    };
    const account = encodeURIComponent(JSON.stringify({ $match: { account: 'world' } }));
    const base = `/v2/${ledger}/transactions`;
    expect(await walk(`${base}?pageSize=2&query=${account}`, base)).toEqual({
      pages: [
        [7, 6],
        [5, 4],
        [3, 2],
      ],
      back: [
        [5, 4],
        [7, 6],
      ],
      again: [3, 2],
      firstHasPrevious: false,
    });
    const source = encodeURIComponent(JSON.stringify({ $match: { source: 'bank' } }));
    expect(await walk(`${base}?pageSize=2&reverse=true&query=${source}`, base)).toEqual({
      pages: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      back: [
        [3, 4],
        [1, 2],
      ],
      again: [5, 6],
      firstHasPrevious: false,
    });
    const v1 = `/${ledger}/transactions`;
    expect(await walk(`${v1}?pageSize=2&account=world`, v1)).toMatchObject({
      pages: [
        [7, 6],
        [5, 4],
        [3, 2],
      ],
      back: [
        [5, 4],
        [7, 6],
      ],
      again: [3, 2],
    });
  });
});

describe('sort=<field>:<asc|desc> on the lists', () => {
  it('pages transactions by timestamp, inserted_at and id, and refuses what no index serves', async () => {
    const ledger = await fresh();
    for (const timestamp of [
      '2026-03-01T00:00:00Z',
      '2026-01-01T00:00:00Z',
      '2026-02-01T00:00:00Z',
    ])
      await post(ledger, { postings: [send('world', 'a', 1n)], timestamp });
    const list = async (sort: string) => {
      const first = await call('GET', `/v2/${ledger}/transactions?pageSize=2&sort=${sort}`);
      expect(first.status, first.text).toBe(200);
      const second = await call(
        'GET',
        `/v2/${ledger}/transactions?cursor=${first.body.cursor.next}`,
      );
      return [...first.body.cursor.data, ...second.body.cursor.data].map((t: { id: bigint }) =>
        Number(t.id),
      );
    };
    expect(await list('timestamp:asc')).toEqual([2, 3, 1]);
    expect(await list('timestamp:desc')).toEqual([1, 3, 2]);
    expect(await list('inserted_at:asc')).toEqual([1, 2, 3]);
    expect(await list('id:desc')).toEqual([3, 2, 1]);
    const refused = await call('GET', `/v2/${ledger}/transactions?sort=updated_at:desc`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toMatch(/^sort: transactions are sorted by id, inserted_at/);
    const both = await call('GET', `/v2/${ledger}/transactions?sort=id:asc&reverse=true`);
    expect(both.body.errorMessage).toBe('sort: give sort, or order and reverse, not both');
    // Logs page newest first, accounts by address: `sort` may name that order, not another.
    expect((await call('GET', `/v2/${ledger}/logs?sort=date:desc`)).status).toBe(200);
    expect((await call('GET', `/v2/${ledger}/logs?sort=date:asc`)).body.errorMessage).toBe(
      'sort: logs are listed by date desc only',
    );
    expect((await call('GET', `/v2/${ledger}/accounts?sort=address:asc`)).status).toBe(200);
    expect((await call('GET', `/v2/${ledger}/accounts?sort=first_usage:asc`)).status).toBe(400);
  });
});

describe('schemas (v2.4)', () => {
  const schema = {
    chart: {
      world: {},
      users: { $id: { '.pattern': '^[0-9]+$', '.metadata': { tier: { default: 'basic' } } } },
    },
    queries: {
      rich: {
        resource: 'accounts',
        params: { pageSize: 1 },
        vars: { min: { type: 'int', default: '10' }, prefix: 'string' },
        body: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a query template's own ${var} placeholder, not JavaScript's
          $and: [{ $match: { address: '${prefix}' } }, { $gte: { 'balance[USD]': '${min}' } }],
        },
      },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a query template's own ${var} placeholder, not JavaScript's
      big: { resource: 'transactions', vars: { min: 'int' }, body: { $gte: { id: '${min}' } } },
      recent: { resource: 'logs', body: { $match: { type: 'NEW_TRANSACTION' } } },
      moves: { resource: 'volumes', params: { groupBy: 1 } },
    },
    transactions: {
      pay: { script: 'send [USD 1] (\n  source = @world\n  destination = @users:1\n)' },
    },
  };

  it('inserts versions once, reads and lists them by creation', async () => {
    const ledger = await fresh();
    expect((await call('POST', `/v2/${ledger}/schemas/v1`, schema)).status).toBe(204);
    const again = await call('POST', `/v2/${ledger}/schemas/v1`, { chart: {} });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      errorCode: 'SCHEMA_ALREADY_EXISTS',
      errorMessage: 'schema version "v1" already exists',
    });
    // The same insert retried with its Idempotency-Key is the insert that happened.
    const retried = await call('POST', `/v2/${ledger}/schemas/v1`, schema, {
      'idempotency-key': 'k',
    });
    expect(retried.status).toBe(204);
    const bad = await call('POST', `/v2/${ledger}/schemas/v2`, { chart: { $root: {} } });
    expect(bad.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'chart.$root: the root cannot have a variable segment',
    });
    expect((await call('POST', `/v2/${ledger}/schemas/v2`, { chart: { world: {} } })).status).toBe(
      204,
    );
    const got = await call('GET', `/v2/${ledger}/schemas/v1`);
    // As inserted (the test's reader gives integers as bigints).
    expect(got.body.data).toEqual({
      ...(parseJson(JSON.stringify(schema)) as object),
      version: 'v1',
      createdAt: expect.any(String),
    });
    expect((await call('GET', `/v2/${ledger}/schemas/v9`)).body.errorCode).toBe('NOT_FOUND');
    const listed = await call('GET', `/v2/${ledger}/schemas?pageSize=1`);
    expect(listed.body.cursor.data.map((s: { version: string }) => s.version)).toEqual(['v2']);
    const next = await call('GET', `/v2/${ledger}/schemas?cursor=${listed.body.cursor.next}`);
    expect(next.body.cursor.data.map((s: { version: string }) => s.version)).toEqual(['v1']);
    const oldest = await call('GET', `/v2/${ledger}/schemas?order=asc`);
    expect(oldest.body.cursor.data.map((s: { version: string }) => s.version)).toEqual([
      'v1',
      'v2',
    ]);
    expect((await call('GET', `/v2/${ledger}/schemas?sort=version`)).status).toBe(400);
  });

  it('runs query templates through the lists, with variables, defaults and cursors', async () => {
    const ledger = await fresh();
    await post(ledger, {
      postings: [
        send('world', 'users:1', 5n),
        send('world', 'users:2', 50n),
        send('world', 'users:3', 500n),
      ],
    });
    await post(ledger, { postings: [send('world', 'users:4', 1n)] });
    // Inserted after the writes: a version with transaction templates takes template writes only.
    expect((await call('POST', `/v2/${ledger}/schemas/v1`, schema)).status).toBe(204);
    const run = (id: string, body: unknown, extra = '') =>
      call('POST', `/v2/${ledger}/queries/${id}/run?schemaVersion=v1${extra}`, body);
    // The template's page size (1) and default (min 10); a page may be short while more follow (bounded reads).
    const found: string[] = [];
    let page = await run('rich', { vars: { prefix: 'users:' } });
    for (let i = 0; i < 10; i++) {
      expect(page.status, page.text).toBe(200);
      expect(page.body.cursor.pageSize).toBe(1n);
      found.push(...page.body.cursor.data.map((a: { address: string }) => a.address));
      if (!page.body.cursor.next) break;
      page = await run('rich', {}, `&cursor=${page.body.cursor.next}`);
    }
    expect(found).toEqual(['users:2', 'users:3']);
    const lowered = await run('rich', { vars: { prefix: 'users:', min: '1' } }, '&pageSize=10');
    expect(lowered.body.cursor.data.map((a: { address: string }) => a.address)).toEqual([
      'users:1',
      'users:2',
      'users:3',
      'users:4',
    ]);
    const txs = await run('big', { vars: { min: '2' } });
    expect(txs.body.cursor.data.map((t: { id: bigint }) => Number(t.id))).toEqual([2]);
    const logs = await run('recent', {});
    expect(logs.body.cursor.data).toHaveLength(2);
    const volumes = await run('moves', {});
    expect(volumes.status, volumes.text).toBe(200);
    expect(volumes.body.cursor.data.map((v: { account: string }) => v.account).sort()).toEqual([
      'users',
      'world',
    ]);
    expect((await run('big', {})).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'vars.min: missing (the query template has no default for it)',
    });
    expect((await run('nope', {})).body.errorCode).toBe('NOT_FOUND');
    expect(
      (await call('POST', `/v2/${ledger}/queries/rich/run?schemaVersion=v9`, {})).body.errorCode,
    ).toBe('NOT_FOUND');
  });
});
