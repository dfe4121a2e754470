/**
 * Atomic bulks beyond one DynamoDB transaction (lib/ledger/store/staged-bulk.ts) on DynamoDB Local, through the
 * ledger app as a Lambda container runs it and with the embedded engine: a 100-element bulk touching 200
 * distinct accounts commits all of it — ids gapless, balances summing to 0, the hash chain whole, no plan left —
 * and its elements' Idempotency-Keys replay it. A write after it comes after all of it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { headFromItem } from '../../../lib/ledger/store/head.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import { parseStoredLog } from '../../../lib/ledger/store/log-reads.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testEnvironment } from '../../support/tables.js';

type Call = Awaited<ReturnType<typeof ledgerClient>>['call'];
let runtime: ServiceRuntime;
const callers: Record<string, Call> = {};
let n = 0;
const ELEMENTS = 100;

beforeAll(async () => {
  ({ runtime } = await testEnvironment());
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

describe.each(['direct', 'embedded'])('an atomic bulk of 100 to 200 accounts (%s)', (mode) => {
  it('commits all of it in parts: ids gapless, balances sum to 0, chain whole, replayed by its keys', async () => {
    const call = callers[mode]!;
    const name = `staged${++n}${mode}`;
    expect((await call('POST', `/v2/${name}`)).status).toBe(204);
    const res = await call('POST', `/v2/${name}/_bulk?atomic=true`, elements(name));
    expect(res.status).toBe(200);
    const logIds = (res.body.data as Array<{ logID: number }>).map((r) => Number(r.logID));
    expect(logIds).toEqual(Array.from({ length: ELEMENTS }, (_, i) => i + 1));

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

    const logs = (await call('GET', `/v2/${name}/logs?pageSize=1000`)).body.cursor
      .data as unknown[];
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
