import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let ledger: string;
const send = (source: string, destination: string, amount = 1n) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});
const ids = (res: { body: { cursor: { data: Array<{ id: bigint }> } } }) =>
  res.body.cursor.data.map((t) => Number(t.id));
const list = (query: unknown, extra = '') =>
  call(
    'GET',
    `/v2/${ledger}/transactions?query=${encodeURIComponent(JSON.stringify(query))}${extra}`,
  );

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  ledger = 'filters';
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  const txs = [
    { postings: [send('world', 'alice', 10n)], timestamp: '2026-01-01T00:00:00Z', reference: 'r1' },
    { postings: [send('alice', 'bob')], timestamp: '2026-01-02T00:00:00Z' },
    { postings: [send('world', 'bob', 5n)], timestamp: '2026-01-03T00:00:00Z' },
    { postings: [send('bob', 'carol'), send('alice', 'carol')], timestamp: '2026-01-04T00:00:00Z' },
    { postings: [send('world', 'dave')], timestamp: '2025-12-31T00:00:00Z' },
  ];
  for (const body of txs)
    expect((await call('POST', `/v2/${ledger}/transactions`, body)).status).toBe(200);
});

describe('transaction filters', () => {
  it('filters by account, source and destination through the per-account index', async () => {
    expect(ids(await list({ $match: { account: 'alice' } }))).toEqual([4, 2, 1]);
    expect(ids(await list({ $match: { source: 'alice' } }))).toEqual([4, 2]);
    expect(ids(await list({ $match: { destination: 'alice' } }))).toEqual([1]);
    expect(ids(await list({ $match: { destination: 'bob' } }, '&reverse=true'))).toEqual([2, 3]);
    expect(ids(await list({ $match: { account: 'nobody' } }))).toEqual([]);
  });

  it('pages a filtered list with cursors that keep the filter', async () => {
    const first = await list({ $match: { source: 'world' } }, '&pageSize=2');
    expect(ids(first)).toEqual([5, 3]);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await call('GET', `/v2/${ledger}/transactions?cursor=${first.body.cursor.next}`);
    expect(ids(second)).toEqual([1]);
    expect(second.body.cursor.hasMore).toBe(false);
  });

  it('filters by reference', async () => {
    expect(ids(await list({ $match: { reference: 'r1' } }))).toEqual([1]);
    expect(ids(await list({ $match: { reference: 'none' } }))).toEqual([]);
  });

  it('filters by metadata through the per-pair index, kept in step with metadata changes and reverts', async () => {
    expect((await call('POST', '/v2/mdfilter')).status).toBe(204);
    const create = (metadata: Record<string, string>) =>
      call('POST', '/v2/mdfilter/transactions', { postings: [send('world', 'a')], metadata });
    expect((await create({ order: 'o-1', kind: 'sale' })).status).toBe(200); // 1
    expect((await create({ order: 'o-2', kind: 'sale' })).status).toBe(200); // 2
    expect((await create({ kind: 'refund' })).status).toBe(200); // 3
    const md = (key: string, value: string, extra = '') =>
      list({ $match: { [`metadata[${key}]`]: value } }, extra).then((r) => ids(r));
    ledger = 'mdfilter';
    try {
      expect(await md('kind', 'sale')).toEqual([2, 1]);
      expect(await md('kind', 'sale', '&reverse=true')).toEqual([1, 2]);
      expect(await md('order', 'o-2')).toEqual([2]);
      expect(await md('kind', 'Sale')).toEqual([]);
      // A changed value moves the transaction from one pair's index to the other; a deleted key leaves it.
      expect(
        (await call('POST', '/v2/mdfilter/transactions/1/metadata', { kind: 'refund' })).status,
      ).toBe(204);
      expect(await md('kind', 'sale')).toEqual([2]);
      expect(await md('kind', 'refund')).toEqual([3, 1]);
      expect((await call('DELETE', '/v2/mdfilter/transactions/2/metadata/order')).status).toBe(204);
      expect(await md('order', 'o-2')).toEqual([]);
      // A revert carries the reference platform's marker, which is indexed like any metadata.
      expect((await call('POST', '/v2/mdfilter/transactions/3/revert?force=true')).status).toBe(
        201,
      );
      expect(await md('com.formance.spec/state/reverts', '3')).toEqual([4]);
      // Cursors keep the filter.
      const first = await list({ $match: { 'metadata[kind]': 'refund' } }, '&pageSize=1');
      expect(ids(first)).toEqual([3]);
      expect(
        ids(await call('GET', `/v2/mdfilter/transactions?cursor=${first.body.cursor.next}`)),
      ).toEqual([1]);
      // A long value still pages: the cursor carries the whole filter.
      const long = 'v'.repeat(4096);
      for (let i = 0; i < 2; i++) expect((await create({ long })).status).toBe(200); // 5, 6
      const longFirst = await list({ $match: { 'metadata[long]': long } }, '&pageSize=1');
      expect(ids(longFirst)).toEqual([6]);
      expect(
        ids(await call('GET', `/v2/mdfilter/transactions?cursor=${longFirst.body.cursor.next}`)),
      ).toEqual([5]);
      const tooLong = await list({ $match: { 'metadata[kind]': 'x'.repeat(4097) } });
      expect(tooLong.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'query.$match.metadata[kind]: must be a string of at most 4096 characters',
      });
    } finally {
      ledger = 'filters';
    }
  });

  it('filters by a time range on the effective timestamp, newest first', async () => {
    expect(ids(await list({ $gte: { timestamp: '2026-01-02T00:00:00Z' } }))).toEqual([4, 3, 2]);
    expect(ids(await list({ $gt: { timestamp: '2026-01-02T00:00:00Z' } }))).toEqual([4, 3]);
    expect(ids(await list({ $lt: { timestamp: '2026-01-02T00:00:00Z' } }))).toEqual([1, 5]);
    expect(
      ids(
        await list(
          {
            $and: [
              { $gte: { timestamp: '2026-01-01T00:00:00Z' } },
              { $lte: { timestamp: '2026-01-03T00:00:00Z' } },
            ],
          },
          '&reverse=true',
        ),
      ),
    ).toEqual([1, 2, 3]);
  });

  it('serves combinations, $or, $not, $in, $like, prefixes and segment patterns: an index for one part, the rest in memory', async () => {
    // alice: 1 (in), 2 (out), 4 (out); bob: 2 (in), 3 (in), 4 (out); carol: 4; dave: 5.
    expect(
      ids(
        await list({
          $and: [{ $match: { account: 'alice' } }, { $gte: { timestamp: '2026-01-02T00:00:00Z' } }],
        }),
      ),
    ).toEqual([4, 2]);
    expect(
      ids(
        await list({
          $and: [{ $match: { source: 'world' } }, { $not: { $match: { destination: 'alice' } } }],
        }),
      ),
    ).toEqual([5, 3]);
    expect(
      ids(
        await list({
          $or: [{ $match: { reference: 'r1' } }, { $match: { destination: 'carol' } }],
        }),
      ),
    ).toEqual([4, 1]);
    expect(ids(await list({ $in: { id: [2, 5, 99] } }))).toEqual([5, 2]);
    expect(ids(await list({ $like: { destination: '%o%' } }))).toEqual([4, 3, 2]);
    expect(ids(await list({ $match: { account: 'users:' } }))).toEqual([]);
    expect(ids(await list({ $gte: { id: 4 } }))).toEqual([5, 4]);
    expect(ids(await list({ $exists: { metadata: 'nope' } }))).toEqual([]);
    expect(ids(await list({ $match: { reverted: false } }))).toEqual([5, 4, 3, 2, 1]);
    // HEAD counts exactly what the list holds.
    const head = await call(
      'HEAD',
      `/v2/${ledger}/transactions?query=${encodeURIComponent(JSON.stringify({ $like: { destination: '%o%' } }))}`,
    );
    expect(head.headers.get('count')).toBe('3');
    // A combination pages with cursors that keep it.
    const first = await list(
      { $or: [{ $match: { source: 'world' } }, { $match: { destination: 'carol' } }] },
      '&pageSize=2',
    );
    expect(ids(first)).toEqual([5, 4]);
    expect(
      ids(await call('GET', `/v2/${ledger}/transactions?cursor=${first.body.cursor.next}`)),
    ).toEqual([3, 1]);
    // By effective time, a filter on an account is evaluated on the timestamp listing.
    expect(ids(await list({ $match: { account: 'alice' } }, '&order=effective'))).toEqual([
      4, 2, 1,
    ]);
  });

  it('refuses malformed filters, naming the problem', async () => {
    const cases: Array<[unknown, string]> = [
      [{ $match: { metadata: 'x' } }, 'operator $match is not supported on this field'],
      [{ $or: [] }, 'must be a non-empty array'],
      [{ $regex: { account: 'alice' } }, 'unknown operator "$regex"'],
      [{ $match: { colour: 'red' } }, 'transactions have no field "colour"'],
      [{ $gte: { timestamp: 'yesterday' } }, 'RFC 3339'],
      [
        { $gte: { timestamp: '2026-01-01T00:00:00Z' }, $lt: { timestamp: '2026-02-01T00:00:00Z' } },
        'one operator',
      ],
    ];
    for (const [query, message] of cases) {
      const res = await list(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(message);
    }
    const notJson = await call('GET', `/v2/${ledger}/transactions?query=%7Bnope`);
    expect(notJson.body.errorMessage).toBe('query: must be valid JSON');
  });

  it('serves account filters by a scan when INDEX_TRANSACTION_ACCOUNTS is OFF', async () => {
    expect(
      (await call('POST', '/v2/noindex', { features: { INDEX_TRANSACTION_ACCOUNTS: 'OFF' } }))
        .status,
    ).toBe(204);
    expect(
      (await call('POST', '/v2/noindex/transactions', { postings: [send('world', 'a')] })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/v2/noindex/transactions', { postings: [send('world', 'b')] })).status,
    ).toBe(200);
    const res = await call(
      'GET',
      `/v2/noindex/transactions?query=${encodeURIComponent('{"$match":{"account":"a"}}')}`,
    );
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([1]);
    const time = await call(
      'GET',
      `/v2/noindex/transactions?query=${encodeURIComponent('{"$gte":{"timestamp":"2000-01-01T00:00:00Z"}}')}`,
    );
    expect(ids(time)).toEqual([2, 1]);
  });
});

describe('a scan reads a bounded number of items per page', () => {
  it('answers short pages with hasMore and cursors that resume where the read stopped, finding every match once', async () => {
    const { runtime: small } = await testTables({ LEDGER_SCAN_READS: '100' });
    const { call: smallCall } = await ledgerClient(small);
    expect((await smallCall('POST', '/v2/scan')).status).toBe(204);
    // 250 transactions, every 60th a match: 60, 120, 180, 240.
    const bulk = Array.from({ length: 250 }, (_, i) => ({
      action: 'CREATE_TRANSACTION',
      data: {
        postings: [send('world', (i + 1) % 60 === 0 ? 'target' : `filler:${i + 1}`)],
        metadata: {},
      },
    }));
    for (let i = 0; i < bulk.length; i += 100) {
      const created = await smallCall('POST', '/v2/scan/_bulk', bulk.slice(i, i + 100));
      expect(created.status, created.text).toBe(200);
    }
    const query = encodeURIComponent(JSON.stringify({ $like: { destination: 'targ%' } }));
    const seen: number[] = [];
    const pageSizes: number[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const res = await smallCall(
        'GET',
        `/v2/scan/transactions?pageSize=3&${next ? `cursor=${next}` : `query=${query}`}`,
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...ids(res));
      pageSizes.push(res.body.cursor.data.length);
      next = res.body.cursor.hasMore ? res.body.cursor.next : undefined;
      pages++;
    } while (next && pages < 20);
    expect(seen).toEqual([240, 180, 120, 60]);
    // 250 items at most 100 per page: at least three pages, some short (fewer than pageSize while hasMore).
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(pageSizes.slice(0, -1).some((n) => n < 3)).toBe(true);
    const head = await smallCall('HEAD', `/v2/scan/transactions?query=${query}`);
    expect(head.headers.get('count')).toBe('4');
  });
});

describe('forged cursors', () => {
  it('answers 400, never a DynamoDB error, for a start key of another partition or another shape', async () => {
    const first = await call('GET', `/v2/${ledger}/transactions?pageSize=1`);
    const cursor = JSON.parse(Buffer.from(first.body.cursor.next, 'base64url').toString());
    const forge = (k: Record<string, string>) =>
      Buffer.from(JSON.stringify({ ...cursor, k })).toString('base64url');
    for (const k of [
      { pk: 'E#default#L#other#TX', sk: '000000000000001' },
      { pk: 'E#default#L#other#TX#0', sk: '000000000000001' },
      // This ledger's partition in the layout before blocks, and a block that is not a number.
      { pk: `E#default#L#${ledger}#TX`, sk: '000000000000001' },
      { pk: `E#default#L#${ledger}#TX#x`, sk: '000000000000001' },
      { pk: `E#default#L#${ledger}#TX`, sk: '1', extra: 'x' },
      { nope: 'x' },
    ] as Array<Record<string, string>>) {
      const res = await call('GET', `/v2/${ledger}/transactions?cursor=${forge(k)}`);
      expect(res.status, JSON.stringify(k)).toBe(400);
      expect(res.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'cursor: not a cursor of this list',
      });
    }
    const volumes = await call('GET', `/v2/${ledger}/volumes?pageSize=1`);
    const vc = JSON.parse(Buffer.from(volumes.body.cursor.next, 'base64url').toString());
    const res = await call(
      'GET',
      `/v2/${ledger}/volumes?cursor=${Buffer.from(JSON.stringify({ ...vc, k: { ...vc.k, gsi1pk: 'E#default#L#other#ACCOUNTS' } })).toString('base64url')}`,
    );
    expect(res.status).toBe(400);
  });
});
