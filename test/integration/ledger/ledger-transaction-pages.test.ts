/**
 * Transaction pages (docs/data-model.md, "Transaction pages"): a commit's new transactions with one timestamp are
 * one item per block of ids. Every read finds a transaction whichever item holds it — by id, in lists by id and by
 * time with cursors inside pages both ways, v1's `after` — and a change to a transaction in a page (a revert,
 * metadata) rewrites the page with nothing else in it changed. On DynamoDB Local, with test ledgers in blocks of 4 ids.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../../../lib/ledger/store/dynamo-ledger-table.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { LedgerSequencer } from '../../../lib/ledger/write/sequencer.js';
import { decodeCursor, encodeCursor } from '../../../lib/pagination/cursor.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createIntent, ledgerClient, storedTransactionItems } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';
import { chunks, walkTransactions } from '../../support/transaction-walk.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const ledger = `txpages-${Date.now() % 100000}`;
/** Transaction 9 carries a timestamp of its own, a year back: it keeps an item of its own. */
const BACK_DATED = '2025-01-01T00:00:00Z';

const walk = (path: string) => walkTransactions(call, ledger, path);
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  const record = await new LedgerLookup(
    new LedgerRegistry(runtime.doc, new BucketTables(runtime.config.tables.ledger)),
  ).resolve('default', ledger);
  const sequencer = new LedgerSequencer({
    items: dynamoLedgerTable(runtime.doc, runtime.config.tables.ledger, record),
    table: runtime.config.tables.ledger,
    ledger: record,
    owner: randomUUID(),
    leaseMs: 1,
  });
  // Two group commits: transactions 1-20, then 21-26.
  for (const ids of [range(1, 20), range(21, 26)]) {
    const intents = ids.map((n) =>
      createIntent(ledger, {
        postings: [{ source: 'world', destination: `u:${n % 3}`, amount: BigInt(n), asset: 'USD' }],
        metadata: { n: String(n) },
        ...(n === 9 ? { timestamp: BACK_DATED } : {}),
      }),
    );
    const { results } = await sequencer.process(intents);
    expect([...results.values()].map((r) => r.status)).toEqual(ids.map(() => 'committed'));
  }
});

describe('transaction pages', () => {
  it('hold consecutive transactions of one commit, one timestamp and one block of ids', async () => {
    const items = await storedTransactionItems(runtime, ledger);
    const bounds = items.map((i) => [Number(i.id), i.last === undefined ? i.last : Number(i.last)]);
    // Blocks of 4 ids; 9 is back-dated; 20 is alone in its commit's part of block 5.
    expect(bounds).toEqual([
      [1, 3],
      [4, 7],
      [8, undefined],
      [9, undefined],
      [10, 11],
      [12, 15],
      [16, 19],
      [20, undefined],
      [21, 23],
      [24, 26],
    ]);
  });

  it('serve each transaction by id, exactly', async () => {
    for (const id of range(1, 26)) {
      const res = await call('GET', `/v2/${ledger}/transactions/${id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({
        id: BigInt(id),
        metadata: { n: String(id) },
        postings: [
          { source: 'world', destination: `u:${id % 3}`, amount: BigInt(id), asset: 'USD' },
        ],
      });
    }
    expect((await call('GET', `/v2/${ledger}/transactions/27`)).status).toBe(404);
  });

  it('list by id both ways, with cursors inside pages, forward and back', async () => {
    const newest = range(1, 26).reverse();
    const desc = await walk(`/v2/${ledger}/transactions?pageSize=3`);
    expect(desc.forward).toEqual(chunks(newest, 3));
    expect(desc.backward).toEqual(chunks(newest, 3).slice(0, -1).reverse());
    const asc = await walk(`/v2/${ledger}/transactions?pageSize=5&reverse=true`);
    expect(asc.forward).toEqual(chunks(range(1, 26), 5));
    expect(asc.backward).toEqual(chunks(range(1, 26), 5).slice(0, -1).reverse());
    const count = await call('HEAD', `/v2/${ledger}/transactions`);
    expect(count.headers.get('count')).toBe('26');
  });

  it('list by effective time both ways, the back-dated one first, pages merged across shards', async () => {
    const byTime = [9, ...range(1, 8), ...range(10, 26)];
    const desc = await walk(`/v2/${ledger}/transactions?pageSize=4&order=effective`);
    expect(desc.forward).toEqual(chunks(byTime.slice().reverse(), 4));
    expect(desc.backward).toEqual(chunks(byTime.slice().reverse(), 4).slice(0, -1).reverse());
    const asc = await walk(`/v2/${ledger}/transactions?pageSize=6&order=effective&reverse=true`);
    expect(asc.forward).toEqual(chunks(byTime, 6));
    expect(asc.backward).toEqual(chunks(byTime, 6).slice(0, -1).reverse());
  });

  it('a time window and a filter evaluated on each transaction, over pages', async () => {
    const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
    // The second commit's time: transactions 21 to 26.
    const second = String((await call('GET', `/v2/${ledger}/transactions/21`)).body.data.timestamp);
    const window = await walk(
      `/v2/${ledger}/transactions?pageSize=4&${q({ $gte: { timestamp: second } })}`,
    );
    expect(window.forward.flat()).toEqual(range(21, 26).reverse());
    const u1 = await walk(
      `/v2/${ledger}/transactions?pageSize=2&order=effective&${q({ $match: { account: 'u:1' } })}`,
    );
    expect(u1.forward.flat()).toEqual(
      range(1, 26)
        .filter((n) => n % 3 === 1)
        .reverse(),
    );
    expect(u1.backward.flat()).toEqual(
      chunks(
        range(1, 26)
          .filter((n) => n % 3 === 1)
          .reverse(),
        2,
      )
        .slice(0, -1)
        .reverse()
        .flat(),
    );
  });

  it("a forged cursor naming another ledger's item inside a page reads nothing of it", async () => {
    const other = `${ledger}-other`;
    expect((await call('POST', `/v2/${other}`)).status).toBe(204);
    const intruder = { source: 'world', destination: 'intruder', amount: 1n, asset: 'USD' };
    expect((await call('POST', `/v2/${other}/transactions`, { postings: [intruder] })).status).toBe(
      200,
    );
    const otherKey = { pk: `E#default#L#${other}#TX#0`, sk: `${'1'.padStart(15, '0')}` };
    // The cursor's position moved into the other ledger's block, and its page made large enough for the rest.
    const forge = (cursor: string, list: string) => {
      const decoded = decodeCursor(cursor, list);
      const sk = `${otherKey.sk}#${otherKey.sk}`;
      return encodeCursor({ ...decoded, p: 100, k: { ...decoded.k, ...otherKey, sk } });
    };
    const list = `ledger.transactions.${ledger}`;
    // By time: the cursor's page is not read, the list goes on from its position in this ledger.
    const byTime = await call(
      'GET',
      `/v2/${ledger}/transactions?pageSize=4&order=effective&reverse=true`,
    );
    const forgedTime = await call(
      'GET',
      `/v2/${ledger}/transactions?cursor=${forge(byTime.body.cursor.next, list)}`,
    );
    expect(forgedTime.status, forgedTime.text).toBe(200);
    expect(forgedTime.body.cursor.data.map((t: { id: bigint }) => Number(t.id))).toEqual([
      ...range(4, 8),
      ...range(10, 26),
    ]);
    // By id: a cursor outside this ledger's blocks is refused.
    const byId = await call('GET', `/v2/${ledger}/transactions?pageSize=4`);
    const forgedId = await call(
      'GET',
      `/v2/${ledger}/transactions?cursor=${forge(byId.body.cursor.next, list)}`,
    );
    expect(forgedId.status).toBe(400);
  });

  it("v1's `after` from inside a page", async () => {
    const res = await call('GET', `/${ledger}/transactions?pageSize=5&after=6`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.cursor.data.map((t: { txid: number }) => Number(t.txid))).toEqual([
      5, 4, 3, 2, 1,
    ]);
  });

  it('volumes at a point in time read their transactions from pages, on both clocks', async () => {
    // The first commit's time: every transaction of it but the back-dated one carries it.
    const at = String((await call('GET', `/v2/${ledger}/transactions/1`)).body.data.timestamp);
    const res = await call(
      'GET',
      `/v2/${ledger}/accounts/u:2?pit=${encodeURIComponent(at)}&expand=volumes,effectiveVolumes`,
    );
    expect(res.status, res.text).toBe(200);
    // u:2 had received 2, 5, 8, 11, 14, 17 and 20 by then.
    const then = { USD: { input: 77n, output: 0n, balance: 77n } };
    expect([res.body.data.volumes, res.body.data.effectiveVolumes]).toEqual([then, then]);
  });

  it('a revert and metadata on transactions in pages rewrite their pages, nothing else in them changed', async () => {
    const revert = await call('POST', `/v2/${ledger}/transactions/5/revert`);
    expect(revert.status, revert.text).toBe(201);
    expect(Number(revert.body.data.id)).toBe(27);
    const meta = await call('POST', `/v2/${ledger}/transactions/14/metadata`, { tag: 'x' });
    expect(meta.status, meta.text).toBe(204);
    const get = async (id: number) =>
      (await call('GET', `/v2/${ledger}/transactions/${id}`)).body.data;
    expect(await get(5)).toMatchObject({ id: 5n, reverted: true, metadata: { n: '5' } });
    expect(await get(14)).toMatchObject({
      id: 14n,
      reverted: false,
      metadata: { n: '14', tag: 'x' },
    });
    for (const id of [4, 6, 7, 12, 13, 15])
      expect(await get(id)).toMatchObject({
        id: BigInt(id),
        reverted: false,
        metadata: { n: String(id) },
      });
    // Reverting again is refused: the decision read the page as rewritten.
    expect((await call('POST', `/v2/${ledger}/transactions/5/revert`)).status).toBe(400);
    const items = await storedTransactionItems(runtime, ledger);
    expect(
      items.filter((i) => Number(i.id) === 4 || Number(i.id) === 12).map((i) => Number(i.last)),
    ).toEqual([7, 15]);
    // u:2 received every n ≡ 2 (mod 3), and gave transaction 5 back.
    const input = range(1, 26)
      .filter((n) => n % 3 === 2)
      .reduce((a, n) => a + BigInt(n), 0n);
    const account = await call('GET', `/v2/${ledger}/accounts/u:2?expand=volumes`);
    expect(account.status, account.text).toBe(200);
    expect(account.body.data.volumes).toEqual({
      USD: { input, output: 5n, balance: input - 5n },
    });
  });
});
