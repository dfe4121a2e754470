import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let clock = Date.parse('2026-04-01T00:00:00Z');
const send = (destination: string) => ({ source: 'world', destination, amount: 1n, asset: 'USD' });
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
const ids = (res: { body: any }) => res.body.cursor.data.map((l: { id: bigint }) => Number(l.id));
/** Every page of a filtered listing, followed by its cursors (pages may be short while hasMore). */
async function all(query: unknown): Promise<number[]> {
  const seen: number[] = [];
  let next: string | undefined;
  do {
    const res = await call('GET', `/v2/logq/logs?${next ? `cursor=${next}` : q(query)}`);
    expect(res.status, res.text).toBe(200);
    seen.push(...ids(res));
    next = res.body.cursor.hasMore ? res.body.cursor.next : undefined;
  } while (next);
  return seen;
}

beforeAll(async () => {
  // A small scan budget, so that the bounded pages show on a small log.
  const { runtime } = await testTables({ LEDGER_SCAN_READS: '100' });
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  expect((await call('POST', '/v2/logq')).status).toBe(204);
  // Log 1..120: transactions one minute apart; every 50th write is a metadata change instead.
  for (let i = 1; i <= 120; i++) {
    clock += 60_000;
    const res =
      i % 50 === 0
        ? await call('POST', '/v2/logq/transactions/1/metadata', { n: String(i) })
        : await call('POST', '/v2/logq/transactions', { postings: [send(`a:${i}`)] });
    expect(res.status, res.text).toBeLessThan(300);
  }
});

describe('log filters (id, date, type)', () => {
  it('narrows by id through the log key, by date and type in memory', async () => {
    expect(
      ids(
        await call(
          'GET',
          `/v2/logq/logs?${q({ $and: [{ $gt: { id: 115 } }, { $lte: { id: 118 } }] })}`,
        ),
      ),
    ).toEqual([118, 117, 116]);
    expect(await all({ $match: { type: 'SET_METADATA' } })).toEqual([100, 50]);
    expect(ids(await call('GET', `/v2/logq/logs?${q({ $in: { id: [3, 1, 5] } })}`))).toEqual([
      5, 3, 1,
    ]);
    const window = {
      $and: [{ $gte: { date: '2026-04-01T00:03:00Z' } }, { $lt: { date: '2026-04-01T00:05:00Z' } }],
    };
    expect(await all(window)).toEqual([4, 3]);
    expect(await all({ $not: { $match: { type: 'NEW_TRANSACTION' } } })).toEqual([100, 50]);
    const head = await call('HEAD', `/v2/logq/logs?${q({ $match: { type: 'NEW_TRANSACTION' } })}`);
    expect(head.headers.get('count')).toBe('118');
  });

  it('reads at most the budget per page: short pages with hasMore, cursors resuming where the read stopped', async () => {
    const seen: number[] = [];
    const sizes: number[] = [];
    const pages: any[] = [];
    let next: string | undefined;
    do {
      const res = await call(
        'GET',
        `/v2/logq/logs?pageSize=5&${next ? `cursor=${next}` : q({ $lte: { date: '2026-04-01T00:02:00Z' } })}`,
      );
      expect(res.status, res.text).toBe(200);
      pages.push(res.body.cursor);
      seen.push(...ids(res));
      sizes.push(res.body.cursor.data.length);
      next = res.body.cursor.hasMore ? res.body.cursor.next : undefined;
    } while (next && sizes.length < 10);
    expect(seen).toEqual([2, 1]);
    // 120 entries, at most 100 read a page: the first reads 120..21 and finds none, yet says there is more.
    expect(sizes).toEqual([0, 2]);
    expect(pages[0].hasMore).toBe(true);
    expect(pages[1].hasMore).toBe(false);
    // Back from the second page: entries above it, read from 3 upwards (none match), never the second page's own.
    const back = await call('GET', `/v2/logq/logs?cursor=${pages[1].previous}`);
    expect(back.status).toBe(200);
    expect(ids(back)).toEqual([]);
    const forward = await call('GET', `/v2/logq/logs?cursor=${back.body.cursor.next}`);
    expect(ids(forward)).toEqual([2, 1]);
  });

  it('refuses unknown fields and operators, and bad operands, in the contract shape', async () => {
    for (const [query, message] of [
      [{ $match: { hash: 'x' } }, 'query.$match: logs have no field "hash"'],
      [
        { $like: { id: '1%' } },
        'query.$like.id: operator $like is not supported on this field (supported: $match, $in, $lt, $lte, $gt, $gte)',
      ],
      [{ $gte: { date: 'soon' } }, 'query.$gte.date: must be an RFC 3339 date-time'],
    ] as const) {
      const res = await call('GET', `/v2/logq/logs?${q(query)}`);
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(message);
    }
  });
});
