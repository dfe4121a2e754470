/**
 * The v1 transaction routes (docs/api.md §3.4) over HTTP and DynamoDB Local: v1 shapes (`txid`, pre/post-commit
 * volumes always), filters, `after`, cursors, create with `preview` and Idempotency-Key, and that the v1
 * routes never take a v2 or `/_info` request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { authApp, READER, tokenFor } from '../../support/auth.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let readerToken: string;
let counter = 0;

const fresh = async (body?: unknown) => {
  const name = `v${++counter}-${Date.now() % 100000}`;
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
const v1Create = (
  ledger: string,
  body: unknown,
  query = '',
  headers: Record<string, string> = {},
) => call('POST', `/${ledger}/transactions${query}`, body, headers);
const v1List = (ledger: string, query = '') => call('GET', `/${ledger}/transactions${query}`);
const txids = (res: Awaited<ReturnType<typeof v1List>>) =>
  res.body.cursor.data.map((t: { txid: bigint }) => Number(t.txid));

/** Four transactions at known timestamps: 1 world→a, 2 a→b (ref r2), 3 b→c, 4 world→c. */
async function seeded(): Promise<string> {
  const ledger = await fresh();
  const bodies = [
    { postings: [send('world', 'a', 100n)], timestamp: '2026-01-01T00:00:00Z' },
    {
      postings: [send('a', 'b', 40n)],
      timestamp: '2026-01-02T00:00:00Z',
      reference: 'r2',
      metadata: { order: '2' },
    },
    { postings: [send('b', 'c', 10n)], timestamp: '2026-01-03T00:00:00Z' },
    { postings: [send('world', 'c', 5n)], timestamp: '2026-01-04T00:00:00Z' },
  ];
  for (const body of bodies) expect((await v1Create(ledger, body)).status).toBe(200);
  return ledger;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  readerToken = await tokenFor(authApp(runtime), READER);
});

describe('v1 create', () => {
  it('answers {data: [Transaction]} in the v1 shape, with pre- and post-commit volumes', async () => {
    const ledger = await fresh();
    const res = await v1Create(ledger, {
      postings: [send('world', 'users:1', 12345678901234567890123456789n)],
      reference: 'first',
      metadata: { k: 'v' },
    });
    expect(res.status, res.text).toBe(200);
    const [tx] = res.body.data;
    expect(res.body.data).toHaveLength(1);
    expect(Object.keys(tx)).toEqual([
      'txid',
      'postings',
      'reference',
      'metadata',
      'timestamp',
      'reverted',
      'preCommitVolumes',
      'postCommitVolumes',
    ]);
    expect(tx).toEqual({
      txid: 1n,
      postings: [send('world', 'users:1', 12345678901234567890123456789n)],
      reference: 'first',
      metadata: { k: 'v' },
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/),
      reverted: false,
      preCommitVolumes: {
        world: { USD: { input: 0n, output: 0n, balance: 0n } },
        'users:1': { USD: { input: 0n, output: 0n, balance: 0n } },
      },
      postCommitVolumes: {
        world: {
          USD: {
            input: 0n,
            output: 12345678901234567890123456789n,
            balance: -12345678901234567890123456789n,
          },
        },
        'users:1': {
          USD: {
            input: 12345678901234567890123456789n,
            output: 0n,
            balance: 12345678901234567890123456789n,
          },
        },
      },
    });
    // The same transaction through v2 has `id`.
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data.id).toBe(1n);
  });

  it('previews without writing, replays an Idempotency-Key, refuses insufficient funds', async () => {
    const ledger = await fresh();
    const preview = await v1Create(ledger, { postings: [send('world', 'a', 5n)] }, '?preview=true');
    expect(preview.status).toBe(200);
    expect(preview.body.data[0].txid).toBe(1n);
    expect((await v1List(ledger)).body.cursor.data).toEqual([]);

    const first = await v1Create(ledger, { postings: [send('world', 'a', 5n)] }, '', {
      'Idempotency-Key': 'v1-key',
    });
    const replay = await v1Create(ledger, { postings: [send('world', 'a', 5n)] }, '', {
      'Idempotency-Key': 'v1-key',
    });
    expect(replay.headers.get('idempotency-hit')).toBe('true');
    expect(replay.text).toBe(first.text);

    const poor = await v1Create(ledger, { postings: [send('a', 'b', 6n)] });
    expect(poor.status).toBe(400);
    expect(poor.body.errorCode).toBe('INSUFFICIENT_FUND');
    const empty = await v1Create(ledger, { postings: [] });
    // v1's error enum (closed in the SDK) has no NO_POSTINGS or LEDGER_NOT_FOUND: the reference's v1 codes.
    expect([empty.status, empty.body.errorCode]).toEqual([400, 'VALIDATION']);
    const missing = await v1Create('no-such-ledger', { postings: [send('world', 'a', 1n)] });
    expect([missing.status, missing.body]).toEqual([
      404,
      { errorCode: 'NOT_FOUND', errorMessage: 'ledger "no-such-ledger" not found' },
    ]);
  });

  it('needs ledger:write to create; ledger:read lists', async () => {
    const ledger = await fresh();
    const reader = { authorization: `Bearer ${readerToken}` };
    const refused = await call(
      'POST',
      `/${ledger}/transactions`,
      { postings: [send('world', 'a', 1n)] },
      reader,
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="ledger:write"',
    );
    expect((await call('GET', `/${ledger}/transactions`, undefined, reader)).status).toBe(200);
    expect((await call('GET', `/${ledger}/mapping`, undefined, reader)).status).toBe(200);
    expect((await call('PUT', `/${ledger}/mapping`, { contracts: [] }, reader)).status).toBe(403);
    expect(
      (await call('GET', `/${ledger}/transactions`, undefined, { authorization: '' })).status,
    ).toBe(401);
  });
});

describe('v1 list', () => {
  it('lists newest first, every transaction with its volumes, and pages with cursors', async () => {
    const ledger = await seeded();
    const all = await v1List(ledger);
    expect(all.status).toBe(200);
    expect(txids(all)).toEqual([4, 3, 2, 1]);
    const second = all.body.cursor.data[2];
    expect(second).toEqual({
      txid: 2n,
      postings: [send('a', 'b', 40n)],
      reference: 'r2',
      metadata: { order: '2' },
      timestamp: '2026-01-02T00:00:00Z',
      reverted: false,
      preCommitVolumes: {
        a: { USD: { input: 100n, output: 0n, balance: 100n } },
        b: { USD: { input: 0n, output: 0n, balance: 0n } },
      },
      postCommitVolumes: {
        a: { USD: { input: 100n, output: 40n, balance: 60n } },
        b: { USD: { input: 40n, output: 0n, balance: 40n } },
      },
    });

    const page1 = await v1List(ledger, '?pageSize=3');
    expect(txids(page1)).toEqual([4, 3, 2]);
    expect(page1.body.cursor).toMatchObject({ pageSize: 3n, hasMore: true });
    const page2 = await v1List(ledger, `?cursor=${page1.body.cursor.next}`);
    expect(txids(page2)).toEqual([1]);
    expect(page2.body.cursor.hasMore).toBe(false);
    expect(txids(await v1List(ledger, `?cursor=${page2.body.cursor.previous}`))).toEqual([4, 3, 2]);
    expect(txids(await v1List(ledger, '?page_size=1'))).toEqual([4]);
  });

  it('reads after (txid < after), alone or with an account filter or a reference', async () => {
    const ledger = await seeded();
    expect(txids(await v1List(ledger, '?after=3'))).toEqual([2, 1]);
    expect(txids(await v1List(ledger, '?after=1'))).toEqual([]);
    expect(txids(await v1List(ledger, '?after=100'))).toEqual([4, 3, 2, 1]);
    const paged = await v1List(ledger, '?after=4&pageSize=2');
    expect(txids(paged)).toEqual([3, 2]);
    expect(txids(await v1List(ledger, `?cursor=${paged.body.cursor.next}`))).toEqual([1]);
    expect(txids(await v1List(ledger, '?after=3&account=b'))).toEqual([2]);
    expect(txids(await v1List(ledger, '?after=3&reference=r2'))).toEqual([2]);
    expect(txids(await v1List(ledger, '?after=2&reference=r2'))).toEqual([]);
  });

  it('filters by reference, account, source, destination and a time range (startTime inclusive, endTime exclusive)', async () => {
    const ledger = await seeded();
    expect(txids(await v1List(ledger, '?reference=r2'))).toEqual([2]);
    expect(txids(await v1List(ledger, '?reference=nope'))).toEqual([]);
    expect(txids(await v1List(ledger, '?metadata[order]=2'))).toEqual([2]);
    expect(txids(await v1List(ledger, '?metadata[order]=2&after=2'))).toEqual([]);
    expect(txids(await v1List(ledger, '?metadata[order]=3'))).toEqual([]);
    expect(txids(await v1List(ledger, '?account=b'))).toEqual([3, 2]);
    expect(txids(await v1List(ledger, '?source=b'))).toEqual([3]);
    expect(txids(await v1List(ledger, '?destination=c'))).toEqual([4, 3]);
    expect(
      txids(await v1List(ledger, '?startTime=2026-01-02T00:00:00Z&endTime=2026-01-04T00:00:00Z')),
    ).toEqual([3, 2]);
    expect(txids(await v1List(ledger, '?start_time=2026-01-03T00:00:00Z'))).toEqual([4, 3]);
    expect(txids(await v1List(ledger, '?endTime=2026-01-02T00:00:00Z'))).toEqual([1]);
    const paged = await v1List(ledger, '?account=c&pageSize=1');
    expect(txids(paged)).toEqual([4]);
    expect(txids(await v1List(ledger, `?cursor=${paged.body.cursor.next}`))).toEqual([3]);
  });

  it('combines every filter with every other (as the reference ANDs them), whichever index drives the read', async () => {
    const ledger = await seeded();
    for (const [query, expected] of [
      ['?account=b&startTime=2026-01-03T00:00:00Z', [3]],
      ['?account=b&endTime=2026-01-03T00:00:00Z', [2]],
      ['?source=a&destination=b', [2]],
      ['?source=world&destination=c', [4]],
      ['?source=world&destination=a', [1]],
      ['?account=c&metadata[order]=2', []],
      ['?account=a&metadata[order]=2', [2]],
      ['?reference=r2&account=a', [2]],
      ['?reference=r2&account=c', []],
      ['?reference=r2&startTime=2026-01-03T00:00:00Z', []],
      ['?metadata[order]=2&startTime=2026-01-02T00:00:00Z&endTime=2026-01-03T00:00:00Z', [2]],
      ['?metadata[order]=2&endTime=2026-01-02T00:00:00Z', []],
      ['?after=3&startTime=2026-01-01T00:00:00Z', [2, 1]],
      ['?after=4&account=c&startTime=2026-01-02T00:00:00Z', [3]],
      [
        '?source=b&destination=c&startTime=2026-01-01T00:00:00Z&endTime=2026-01-05T00:00:00Z&after=4',
        [3],
      ],
      // Patterns (v1 read them as regular expressions between ^ and $): served by the listing, matched on each page.
      ['?account=[ab]', [3, 2, 1]],
      ['?destination=c|b', [4, 3, 2]],
      ['?source=w.*', [4, 1]],
      ['?source=w.*&destination=c', [4]],
    ] as Array<[string, number[]]>) {
      const res = await v1List(ledger, query);
      expect(res.status, `${query} ${res.text}`).toBe(200);
      expect(txids(res), query).toEqual(expected);
      const count = await call('HEAD', `/${ledger}/transactions${query}`);
      expect([count.status, count.headers.get('count')], query).toEqual([
        200,
        String(expected.length),
      ]);
    }
    const all = await call('HEAD', `/${ledger}/transactions`);
    expect(all.headers.get('count')).toBe('4');
  });

  it('pages a filter no index serves: short pages while hasMore, cursors that keep every filter', async () => {
    const ledger = await seeded();
    // Read by id, two a page: 4 and 3 do not match, 2 does, 1 does not.
    const first = await v1List(ledger, '?destination=[b]&pageSize=2');
    expect(txids(first)).toEqual([]);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await v1List(ledger, `?cursor=${first.body.cursor.next}`);
    expect(txids(second)).toEqual([2]);
    expect(second.body.cursor.hasMore).toBe(false);
    // A driven read with a checked filter: the account index of c, then the time range on each.
    const c1 = await v1List(ledger, '?account=c&startTime=2026-01-04T00:00:00Z&pageSize=1');
    expect(txids(c1)).toEqual([4]);
    const c2 = await v1List(ledger, `?cursor=${c1.body.cursor.next}`);
    expect([txids(c2), c2.body.cursor.hasMore]).toEqual([[], false]);
    // Without the account index, an exact account is matched on the listing by id: still served.
    const off = await fresh({ features: { INDEX_TRANSACTION_ACCOUNTS: 'OFF' } });
    for (const body of [
      { postings: [send('world', 'a', 3n)] },
      { postings: [send('a', 'b', 1n)] },
      { postings: [send('world', 'z', 1n)] },
    ])
      expect((await v1Create(off, body)).status).toBe(200);
    expect(txids(await v1List(off, '?account=a'))).toEqual([2, 1]);
    expect(txids(await v1List(off, '?source=a&destination=b'))).toEqual([2]);
  });

  it('refuses what it cannot serve with 400 VALIDATION in the contract shape', async () => {
    const ledger = await seeded();
    const v2Cursor = (await call('GET', `/v2/${ledger}/transactions?pageSize=1`)).body.cursor.next;
    for (const [query, message] of [
      ['?pageSize=abc', 'pageSize: must be a positive integer'],
      ['?after=-1', 'after: must be a transaction id'],
      ['?account=(a)*', 'account: a quantifier on a group is not supported'],
      ['?source=a.*b.*c.*', 'source: at most 2 unbounded quantifiers'],
      ['?destination=(?=a)a', 'destination: lookarounds and special groups are not supported'],
      ['?account=a[', 'account: not a valid regular expression'],
      [`?reference=${'r'.repeat(257)}`, 'reference: must be 1-256 characters'],
      ['?metadata[]=2', 'metadata[]: must be metadata[<key>]'],
      [`?metadata[k]=${'x'.repeat(1025)}`, 'metadata[k]: must be at most 1024 characters'],
      ['?pageSize=2&page_size=3', 'page_size: given twice'],
      ['?startTime=yesterday', 'startTime'],
      ['?reverse=true', 'reverse: unknown query parameter'],
      [`?cursor=${v2Cursor}`, 'cursor: not a cursor of this list'],
      ['?cursor=abc&account=a', 'account: only pageSize may accompany cursor'],
    ] as Array<[string, string]>) {
      const res = await v1List(ledger, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errorCode, query).toBe('VALIDATION');
      expect(res.body.errorMessage, query).toContain(message);
    }
    expect((await v1List('no-such-ledger')).body.errorCode).toBe('NOT_FOUND');
  });

  it('never shadows v2 or /_info', async () => {
    const ledger = await seeded();
    const v2 = await call('GET', `/v2/${ledger}/transactions?pageSize=1`);
    expect(Object.keys(v2.body.cursor.data[0])).toContain('id');
    expect(Object.keys(v2.body.cursor.data[0])).not.toContain('txid');
    // POST /v2/transactions creates the ledger "transactions" (v2), it is not a v1 create on ledger "v2".
    expect((await call('POST', '/v2/transactions')).status).toBe(204);
    expect((await call('GET', '/v2/transactions')).body.data.name).toBe('transactions');
    // GET /v2/mapping is v2's "get ledger mapping", not the v1 mapping of a ledger "v2".
    expect((await call('POST', '/v2/v2')).status).toBe(204);
    expect((await call('GET', '/v2/mapping')).body.errorCode).toBe('NOT_FOUND');
    expect((await call('GET', '/_info')).body.data.server).toBe('ledger');
    expect((await call('GET', '/v2/_info')).body.data.server).toBe('ledger');
    expect((await call('GET', '/_/info')).body.server).toBe('ledger');
  });
});
