/**
 * Transactions spread over partition keys (#28 item 6): items in blocks of ids, the by-time index in shards by id.
 * Test platforms create ledgers with blocks of 4 ids and 3 shards, so a few transactions cross many blocks; every
 * listing must read as one list — by id both ways, by time with back-dated transactions, through the filters that
 * evaluate in memory, with next and previous cursors, the count, v1's `after` — and a ledger created before blocks
 * keeps its single partitions.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { registryKeys } from '../../../lib/ledger/store/keys.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, storedTransactionItems } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';
import { chunks, idsOf, type ListBody, walkTransactions } from '../../support/transaction-walk.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const ledger = `blocks-${Date.now() % 100000}`;
const COUNT = 23;

/** Transaction n's timestamp: every third one back-dated by a day, two pairs sharing an instant. */
const timestampOf = (n: number) => {
  const day = n % 3 === 0 ? 1 : 2;
  const second = n === 8 ? 7 : n === 14 ? 13 : n;
  return `2026-03-0${day}T00:00:${String(second).padStart(2, '0')}Z`;
};
/** Ids sorted by (timestamp, id): the by-time order. */
const byTime = Array.from({ length: COUNT }, (_, i) => i + 1).sort((a, b) =>
  timestampOf(a) === timestampOf(b) ? a - b : timestampOf(a) < timestampOf(b) ? -1 : 1,
);

const walk = (path: string) => walkTransactions(call, ledger, path);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  for (let n = 1; n <= COUNT; n++) {
    const res = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [
        { source: 'world', destination: `users:${n % 4}`, amount: BigInt(n), asset: 'USD' },
      ],
      timestamp: timestampOf(n),
      metadata: { n: String(n) },
    });
    expect(res.status, res.text).toBe(200);
  }
});

describe('transactions in blocks of ids', () => {
  it('are stored in blocks of 4 ids and their time index in 3 shards by id', async () => {
    const items = await storedTransactionItems(runtime, ledger);
    expect(items.map((i) => Number(i.id))).toEqual(byTime.slice().sort((a, b) => a - b));
    for (const item of items) {
      const id = Number(item.id);
      expect(item.pk).toBe(`E#default#L#${ledger}#TX#${Math.floor(id / 4)}`);
      expect(item.gsi1pk).toBe(`E#default#L#${ledger}#TXT#${id % 3}`);
    }
  });

  it('list by id, newest first and oldest first, one page after another and back', async () => {
    const newest = Array.from({ length: COUNT }, (_, i) => COUNT - i);
    const desc = await walk(`/v2/${ledger}/transactions?pageSize=5`);
    expect(desc.forward).toEqual(chunks(newest, 5));
    expect(desc.backward).toEqual(chunks(newest, 5).slice(0, -1).reverse());
    const asc = await walk(`/v2/${ledger}/transactions?pageSize=6&reverse=true`);
    expect(asc.forward).toEqual(chunks(newest.slice().reverse(), 6));
    expect(asc.backward).toEqual(chunks(newest.slice().reverse(), 6).slice(0, -1).reverse());
  });

  it('list by effective time merges the shards in (timestamp, id) order, both ways', async () => {
    const desc = await walk(`/v2/${ledger}/transactions?pageSize=4&order=effective`);
    expect(desc.forward).toEqual(chunks(byTime.slice().reverse(), 4));
    expect(desc.backward).toEqual(chunks(byTime.slice().reverse(), 4).slice(0, -1).reverse());
    const asc = await walk(`/v2/${ledger}/transactions?pageSize=7&order=effective&reverse=true`);
    expect(asc.forward).toEqual(chunks(byTime, 7));
  });

  it('a time window, a filter evaluated in memory on the time listing, and the count', async () => {
    const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
    const window = { $gte: { timestamp: '2026-03-02T00:00:05Z' } };
    const inWindow = byTime.filter((n) => timestampOf(n) >= '2026-03-02T00:00:05Z').reverse();
    const windowed = await walk(`/v2/${ledger}/transactions?pageSize=3&${q(window)}`);
    expect(windowed.forward.flat()).toEqual(inWindow);
    const alice = { $match: { account: 'users:1' } };
    const kept = byTime.filter((n) => n % 4 === 1).reverse();
    const filtered = await walk(
      `/v2/${ledger}/transactions?pageSize=2&order=effective&${q(alice)}`,
    );
    expect(filtered.forward.flat()).toEqual(kept);
    const count = await call('HEAD', `/v2/${ledger}/transactions`);
    expect(count.headers.get('count')).toBe(String(COUNT));
    const counted = await call('HEAD', `/v2/${ledger}/transactions?${q(window)}`);
    expect(counted.headers.get('count')).toBe(String(inWindow.length));
  });

  it("at a point in time, and v1's `after` from inside a block and from past the last id", async () => {
    const pit = '2026-03-01T23:59:59Z';
    const dated = byTime.filter((n) => timestampOf(n) <= pit);
    const then = await walk(`/v2/${ledger}/transactions?pageSize=3&pit=${pit}`);
    expect(then.forward.flat()).toEqual(dated.slice().sort((a, b) => b - a));
    const listAfter = async (id: number) =>
      (
        (await call('GET', `/${ledger}/transactions?pageSize=5&after=${id}`)).body as {
          cursor: { data: Array<{ txid: number }> };
        }
      ).cursor.data.map((t) => Number(t.txid));
    expect(await listAfter(14)).toEqual([13, 12, 11, 10, 9]);
    expect(await listAfter(1000)).toEqual([23, 22, 21, 20, 19]);
    expect(await listAfter(1)).toEqual([]);
  });
});

describe('a ledger created before blocks', () => {
  it('keeps one partition for its transactions and one for its time index, and lists alike', async () => {
    const old = `unblocked-${Date.now() % 100000}`;
    expect((await call('POST', `/v2/${old}`)).status).toBe(204);
    await runtime.doc.send(
      new UpdateCommand({
        TableName: runtime.config.tables.ledger,
        Key: registryKeys.ledger({ environment: 'default', name: old }),
        UpdateExpression: 'REMOVE transactionKeys',
      }),
    );
    // A new app: its ledger lookup reads the record as it is now.
    const { call: fresh } = await ledgerClient(runtime);
    for (let n = 1; n <= 9; n++)
      expect(
        (
          await fresh('POST', `/v2/${old}/transactions`, {
            postings: [{ source: 'world', destination: 'a', amount: 1n, asset: 'USD' }],
            timestamp: timestampOf(n),
          })
        ).status,
      ).toBe(200);
    const { Items } = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${old}#TX` },
        ConsistentRead: true,
      }),
    );
    expect((Items ?? []).map((i) => [Number(i.id), i.gsi1pk])).toEqual(
      Array.from({ length: 9 }, (_, i) => [i + 1, `E#default#L#${old}#TXT`]),
    );
    const page = await fresh('GET', `/v2/${old}/transactions?pageSize=20&order=effective`);
    const oldByTime = byTime.filter((n) => n <= 9).reverse();
    expect(idsOf(page.body as ListBody)).toEqual(oldByTime);
  });
});
