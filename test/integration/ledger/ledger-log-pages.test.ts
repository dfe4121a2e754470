/**
 * Log pages (lib/ledger/store/log-pages.ts): a commit of several log entries — a group commit, an atomic bulk —
 * stores them as one item. Everything that reads the log sees entries: the log list with its cursors both ways,
 * the chain, the events the table's stream carries, and the transactions rebuilt from a page when a writer
 * stopped before writing their items.
 */

import { createHash, randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import type { LogEntry } from '../../../lib/ledger/domain/logs.js';
import { createdTransactionItems } from '../../../lib/ledger/store/batch-settle.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../../../lib/ledger/store/dynamo-ledger-table.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { ledgerEventsOfImage } from '../../../lib/ledger/store/log-events.js';
import { storedEntriesOf } from '../../../lib/ledger/store/log-pages.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { pageItem, transactionPages } from '../../../lib/ledger/store/transaction-pages.js';
import { LedgerSequencer } from '../../../lib/ledger/write/sequencer.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createIntent, ledgerClient, storedTransactionItems } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let doc: DynamoDBDocumentClient;
let table: string;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const ledger = `pages-${Date.now() % 100000}`;
const send = (source: string, destination: string, amount: bigint) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});

const partition = async (pk: string) =>
  ((
    await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as Array<Record<string, unknown>>;
const ids = (res: { body: { cursor: { data: Array<{ id: bigint }> } } }) =>
  res.body.cursor.data.map((l) => Number(l.id));

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  table = runtime.config.tables.ledger;
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  // Log 1: a direct write. Logs 2-6: one group commit of five. Logs 7-9: an atomic bulk of three. Log 10: direct.
  expect(
    (await call('POST', `/v2/${ledger}/transactions`, { postings: [send('world', 'a', 100n)] }))
      .status,
  ).toBe(200);
  const buckets = new BucketTables(table);
  const record = await new LedgerLookup(new LedgerRegistry(doc, buckets)).resolve(
    'default',
    ledger,
  );
  const sequencer = new LedgerSequencer({
    items: dynamoLedgerTable(doc, table, record),
    table,
    ledger: record,
    owner: randomUUID(),
    leaseMs: 1,
  });
  const intents = [1, 2, 3, 4, 5].map((n) =>
    createIntent(ledger, {
      postings: [send('world', `u${n}`, BigInt(n))],
      metadata: { n: String(n) },
    }),
  );
  const { results } = await sequencer.process(intents);
  expect([...results.values()].map((r) => r.status)).toEqual([
    'committed',
    'committed',
    'committed',
    'committed',
    'committed',
  ]);
  const bulk = await call(
    'POST',
    `/v2/${ledger}/_bulk?atomic=true`,
    [1, 2, 3].map((n) => ({
      action: 'CREATE_TRANSACTION',
      data: { postings: [send('a', `b${n}`, BigInt(n))] },
    })),
  );
  expect(bulk.status).toBe(200);
  expect(
    (await call('POST', `/v2/${ledger}/transactions`, { postings: [send('a', 'c', 1n)] })).status,
  ).toBe(200);
});

describe('log pages', () => {
  it('store each commit’s entries as one item: single entries alone, several as a page', async () => {
    const items = await partition(`E#default#L#${ledger}#LOG`);
    expect(
      items.map((i) => [Number(i.id), i.last === undefined ? undefined : Number(i.last)]),
    ).toEqual([
      [1, undefined],
      [2, 6],
      [7, 9],
      [10, undefined],
    ]);
    expect(items.flatMap((i) => storedEntriesOf(i).map((e) => e.log.id))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    // The group commit's page names each entry's request, the bulk's none.
    expect(storedEntriesOf(items[1]!).every((e) => typeof e.req === 'string')).toBe(true);
    expect(storedEntriesOf(items[2]!).some((e) => e.req !== undefined)).toBe(false);
  });

  it('list entry by entry, newest first, with cursors both ways across pages', async () => {
    const all = await call('GET', `/v2/${ledger}/logs?pageSize=100`);
    expect(ids(all)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const ascending = (all.body.cursor.data as Array<Record<string, unknown>>)
      .map((l) => ({ ...l, id: Number(l.id) }) as LogEntry)
      .reverse();
    expect(verifyChain(ascending)).toEqual({ ok: true, checked: 10 });

    const pages: number[][] = [];
    let res = await call('GET', `/v2/${ledger}/logs?pageSize=3`);
    pages.push(ids(res));
    while (res.body.cursor.hasMore) {
      res = await call('GET', `/v2/${ledger}/logs?cursor=${res.body.cursor.next}`);
      pages.push(ids(res));
    }
    expect(pages).toEqual([[10, 9, 8], [7, 6, 5], [4, 3, 2], [1]]);
    const back = await call('GET', `/v2/${ledger}/logs?cursor=${res.body.cursor.previous}`);
    expect(ids(back)).toEqual([4, 3, 2]);
    expect(back.body.cursor.hasMore).toBe(true);
    const backAgain = await call('GET', `/v2/${ledger}/logs?cursor=${back.body.cursor.previous}`);
    expect(ids(backAgain)).toEqual([7, 6, 5]);
    const forward = await call('GET', `/v2/${ledger}/logs?cursor=${backAgain.body.cursor.next}`);
    expect(ids(forward)).toEqual([4, 3, 2]);
  });

  it('carry one event per entry, in log order, with the ids the entries always had', async () => {
    const page = (await partition(`E#default#L#${ledger}#LOG`))[1]!;
    const events = ledgerEventsOfImage(page);
    const sha = (seed: string) => createHash('sha256').update(seed).digest('hex').slice(0, 32);
    expect(events.map((e) => e.id)).toEqual(
      [2, 3, 4, 5, 6].map((id) => sha(`ledger/${ledger}/${id}`)),
    );
    expect(events.map((e) => e.type)).toEqual(Array(5).fill('ledger.committed_transactions'));
    expect(JSON.parse(events[4]!.body).payload.transactions[0]).toMatchObject({
      id: 6,
      metadata: { n: '5' },
      postCommitVolumes: { u5: { USD: { input: 5, output: 0, balance: 5 } } },
    });
  });

  it('rebuild, from a page, exactly the transaction pages the writer put after its commit', async () => {
    const [page] = (await partition(`E#default#L#${ledger}#LOG`)).filter((i) => Number(i.id) === 2);
    const stored = (await storedTransactionItems(runtime, ledger)).filter(
      (i) => Number(i.id) >= 2 && Number(i.id) <= 6,
    );
    // Transactions 2 to 6 in pages within blocks of 4 ids: 2-3 and 4-6.
    expect(stored.map((i) => [Number(i.id), Number(i.last)])).toEqual([
      [2, 3],
      [4, 6],
    ]);
    // The whole items, attribute for attribute (this client reads numbers back as bigint).
    // Keyed as the ledger's record says (blocks of ids, time shards).
    const record = await new LedgerLookup(new LedgerRegistry(doc, new BucketTables(table))).resolve(
      'default',
      ledger,
    );
    expect(
      transactionPages(createdTransactionItems(record, storedEntriesOf(page!))).map(pageItem),
    ).toEqual(stored.map((item) => ({ ...item, id: Number(item.id), last: Number(item.last) })));
  });
});
