/**
 * Atomic bulks beyond one DynamoDB transaction (lib/ledger/store/staged-bulk.ts) on DynamoDB Local, through the
 * ledger app as a Lambda container runs it and with the embedded engine: a 100-element bulk touching 200
 * distinct accounts commits all of it — ids gapless, balances summing to 0, the hash chain whole, no plan left —
 * and its elements' Idempotency-Keys replay it. A write after it comes after all of it. One stopped after its
 * first transaction is finished by the next reader, from the plan it stored.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { type LedgerOperation, operationRequest } from '../../../lib/ledger/commands/operations.js';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../../../lib/ledger/store/dynamo-ledger-table.js';
import { headFromItem } from '../../../lib/ledger/store/head.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import type { LedgerTable } from '../../../lib/ledger/store/ledger-table.js';
import { parseStoredLog } from '../../../lib/ledger/store/log-reads.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { LedgerWriter } from '../../../lib/ledger/store/writer.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

type Call = Awaited<ReturnType<typeof ledgerClient>>['call'];
let runtime: ServiceRuntime;
const callers: Record<string, Call> = {};
let n = 0;
const ELEMENTS = 100;

beforeAll(async () => {
  ({ runtime } = await testTables());
  callers.direct = (await ledgerClient(runtime)).call;
  callers.embedded = (await ledgerClient(runtime, { embedded: {} })).call;
});

/** Element i: world → src:i → dst:i, i + 1 USD: 200 distinct accounts besides world. */
const elements = (run: string) =>
  Array.from({ length: ELEMENTS }, (_, i) => ({
    action: 'CREATE_TRANSACTION',
    ik: `${run}-${i}`,
    data: {
      postings: [
        { source: 'world', destination: `src:${i}`, amount: i + 1, asset: 'USD' },
        { source: `src:${i}`, destination: `dst:${i}`, amount: i + 1, asset: 'USD' },
      ],
    },
  }));

async function itemsOf(partition: string): Promise<Array<Record<string, unknown>>> {
  const { Items = [] } = await runtime.doc.send(
    new QueryCommand({
      TableName: runtime.config.tables.ledger,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': partition },
      ConsistentRead: true,
    }),
  );
  return Items;
}

/** The bulk is all there, seen through the API: ids, balances, the chain; HEAD names no staged bulk, no plan is left. */
async function expectWhole(call: Call, name: string): Promise<number[]> {
  const txs = (await call('GET', `/v2/${name}/transactions?pageSize=${ELEMENTS}`)).body.cursor;
  expect(txs.hasMore).toBe(false);
  const ids = (txs.data as Array<{ id: number }>).map((t) => Number(t.id)).sort((a, b) => a - b);
  expect(ids).toEqual(Array.from({ length: ELEMENTS }, (_, i) => ids[0]! + i));

  const accounts = (await call('GET', `/v2/${name}/accounts?expand=volumes&pageSize=1000`)).body
    .cursor.data as Array<{ address: string; volumes: { USD: { balance: number } } }>;
  expect(accounts).toHaveLength(2 * ELEMENTS + 1);
  const balances = new Map(accounts.map((a) => [a.address, BigInt(a.volumes.USD.balance)]));
  expect([...balances.values()].reduce((s, b) => s + b, 0n)).toBe(0n);
  expect(balances.get('world')).toBe(-BigInt((ELEMENTS * (ELEMENTS + 1)) / 2));
  for (let i = 0; i < ELEMENTS; i++) {
    expect(balances.get(`src:${i}`)).toBe(0n);
    expect(balances.get(`dst:${i}`)).toBe(BigInt(i + 1));
  }

  const logs = (await call('GET', `/v2/${name}/logs?pageSize=1000`)).body.cursor.data as unknown[];
  expect(logs).toHaveLength(ELEMENTS);
  const entries = logs
    .map((l) =>
      parseStoredLog(JSON.stringify(l, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))),
    )
    .reverse();
  expect(verifyChain(entries).ok).toBe(true);

  const ledger = { environment: 'default', name };
  const head = headFromItem(
    (await itemsOf(ledgerKeys.head(ledger).pk)).find((i) => i.sk === 'HEAD')!,
  );
  expect(head.staged).toBeUndefined();
  expect(head.stagedBulks).toBe(1);
  expect(await itemsOf(ledgerKeys.stagedPart(ledger, 1, 0).pk)).toEqual([]);

  return ids;
}

describe.each(['direct', 'embedded'])('an atomic bulk of 100 to 200 accounts (%s)', (mode) => {
  it('commits all of it in parts: ids gapless, balances sum to 0, chain whole, replayed by its keys', async () => {
    const call = callers[mode]!;
    const name = `staged${++n}${mode}`;
    expect((await call('POST', `/v2/${name}`)).status).toBe(204);
    const res = await call('POST', `/v2/${name}/_bulk?atomic=true`, elements(name));
    expect(res.status).toBe(200);
    const logIds = (res.body.data as Array<{ logID: number }>).map((r) => Number(r.logID));
    expect(logIds).toEqual(Array.from({ length: ELEMENTS }, (_, i) => i + 1));

    const ids = await expectWhole(call, name);

    // Replayed by its elements' keys: the same log ids, nothing new.
    const replay = await call('POST', `/v2/${name}/_bulk?atomic=true`, elements(name));
    expect(replay.status).toBe(200);
    expect((replay.body.data as Array<{ logID: number }>).map((r) => Number(r.logID))).toEqual(
      logIds,
    );
    // A write after it spends what only the bulk's last part may hold.
    const after = await call('POST', `/v2/${name}/transactions`, {
      postings: [
        { source: `dst:${ELEMENTS - 1}`, destination: 'out', amount: ELEMENTS, asset: 'USD' },
      ],
    });
    expect(after.status).toBe(200);
    expect(Number(after.body.data.id)).toBe(ids[ELEMENTS - 1]! + 1);
  });
});

describe('an atomic bulk stopped after its first transaction (DynamoDB Local)', () => {
  it('is finished by the next reader from its stored plan: the reader sees all of it', async () => {
    const call = callers.direct!;
    const name = `staged${++n}stopped`;
    expect((await call('POST', `/v2/${name}`)).status).toBe(204);
    const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
    const table = runtime.config.tables.ledger;
    const lookup = new LedgerLookup(new LedgerRegistry(doc, new BucketTables(table)));
    const record = await lookup.resolve('default', name);
    const port = dynamoLedgerTable(doc, table, record);
    let commits = 0;
    const stopping: LedgerTable = {
      ...port,
      commit: async (...args) => {
        if (commits++ >= 1) throw new Error('stopped');
        return port.commit(...args);
      },
    };
    const writer = new LedgerWriter({ doc, tableFor: () => table, tableOf: () => stopping });
    const operations: LedgerOperation[] = elements(name).map((e) => ({
      kind: 'create',
      input: {
        postings: e.data.postings.map((p) => ({ ...p, amount: BigInt(p.amount) })),
      },
      options: { dryRun: false, force: false, idempotencyKey: e.ik },
    }));
    const requests = await Promise.all(
      operations.map((op) => operationRequest(record, op, async () => undefined)),
    );
    await expect(writer.writeAtomic(record, requests)).rejects.toThrow('stopped');
    const ledger = { environment: 'default', name };
    const staged = headFromItem(
      (await itemsOf(ledgerKeys.head(ledger).pk)).find((i) => i.sk === 'HEAD')!,
    ).staged;
    expect(staged).toMatchObject({ firstLogId: 1, next: 0 });
    expect(staged!.parts).toBeGreaterThan(2);
    // The last element's account, which only the last part writes: the read finishes every part first.
    const last = await call('GET', `/v2/${name}/accounts/dst:${ELEMENTS - 1}?expand=volumes`);
    expect(last.status).toBe(200);
    expect(BigInt(last.body.data.volumes.USD.balance)).toBe(BigInt(ELEMENTS));
    await expectWhole(call, name);
  });
});
