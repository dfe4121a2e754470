/**
 * The embedded ledger engine (lib/ledger/write/embedded.ts, `npm start`'s default): every write of a ledger is
 * committed by this process's group commit. Concurrent requests through the ledger app on DynamoDB Local; each
 * test checks the answers and then the ledger through the HTTP API — ids gapless in commit order, every
 * committed request present exactly once, balances, the hash chain, no result item and no batch left unsettled.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { headFromItem } from '../../../lib/ledger/store/head.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import { parseStoredLog } from '../../../lib/ledger/store/log-reads.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { embedded: {} }));
});

async function fresh(): Promise<string> {
  const name = `emb${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  return name;
}

const transfer = (source: string, destination: string, amount: number, reference?: string) => ({
  postings: [{ source, destination, amount, asset: 'USD/2' }],
  ...(reference ? { reference } : {}),
});

/** Every item of one partition. */
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

/** The ledger's log, oldest first, as entries the chain walk reads. */
async function logsOf(name: string) {
  const logs = (await call('GET', `/v2/${name}/logs?pageSize=1000`)).body.cursor.data as unknown[];
  return logs
    .map((l) =>
      parseStoredLog(JSON.stringify(l, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))),
    )
    .reverse();
}

describe('embedded group commit', () => {
  it('commits 60 concurrent transfers in batches: gapless ids in commit order, refusals leave nothing, exact balances', async () => {
    const name = await fresh();
    // 30 USD/2 funded, then 60 concurrent spends of 1 from a 30-unit account: exactly 30 commit.
    expect(
      (await call('POST', `/v2/${name}/transactions`, transfer('world', 'alice', 30))).status,
    ).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call('POST', `/v2/${name}/transactions`, transfer('alice', `shop:${i % 7}`, 1)),
      ),
    );
    const committed = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 400);
    expect([committed.length, refused.length]).toEqual([30, 30]);
    for (const r of refused) expect(r.body.errorCode).toBe('INSUFFICIENT_FUND');
    const ids = committed.map((a) => Number(a.body.data.id)).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    // Each answer carries its own post-commit volumes: alice's balance after it is 30 - (its rank).
    for (const a of committed) {
      const rank = Number(a.body.data.id) - 1;
      expect(a.body.data.postCommitVolumes.alice['USD/2'].balance).toBe(BigInt(30 - rank));
      expect(a.body.data.postCommitEffectiveVolumes.alice['USD/2'].balance).toBe(BigInt(30 - rank));
    }

    const alice = await call('GET', `/v2/${name}/accounts/alice?expand=volumes`);
    expect(alice.body.data.volumes['USD/2']).toEqual({ input: 30n, output: 30n, balance: 0n });
    const list = await call('GET', `/v2/${name}/transactions?pageSize=100`);
    expect(list.body.cursor.data.map((t: { id: number }) => Number(t.id))).toEqual(
      Array.from({ length: 31 }, (_, i) => 31 - i),
    );
    // Batched: many log entries share a page (one page per commit), far fewer commits than transactions.
    const pages = await itemsOf(ledgerKeys.logPartition({ environment: 'default', name }));
    expect(pages.length).toBeLessThan(16);
    const logs = await logsOf(name);
    expect(logs.map((l) => l.id)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(verifyChain(logs).ok).toBe(true);
    // Answered in memory: no result item, and no batch named as left to settle.
    const head = headFromItem(
      (await itemsOf(ledgerKeys.head({ environment: 'default', name }).pk)).find(
        (i) => i.sk === 'HEAD',
      )!,
    );
    expect([head.lastTxId, head.lastLogId, head.pendingResults]).toEqual([31, 31, undefined]);
  });

  it('answers a duplicate reference 409 and an Idempotency-Key replay from the same batch exactly once', async () => {
    const name = await fresh();
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        call('POST', `/v2/${name}/transactions`, transfer('world', 'bob', 2, 'order-1')),
      ),
      ...Array.from({ length: 5 }, () =>
        call('POST', `/v2/${name}/transactions`, transfer('world', 'carol', 3), {
          'Idempotency-Key': 'ik-1',
        }),
      ),
    ]);
    const byReference = answers.slice(0, 5);
    expect(byReference.filter((a) => a.status === 200)).toHaveLength(1);
    expect(byReference.filter((a) => a.status === 409).map((a) => a.body.errorCode)).toEqual(
      Array(4).fill('CONFLICT'),
    );
    const keyed = answers.slice(5);
    expect(keyed.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(new Set(keyed.map((a) => Number(a.body.data.id))).size).toBe(1);
    const list = await call('GET', `/v2/${name}/transactions`);
    expect(list.body.cursor.data).toHaveLength(2);
    const carol = await call('GET', `/v2/${name}/accounts/carol?expand=volumes`);
    expect(carol.body.data.volumes['USD/2'].balance).toBe(3n);
  });

  it('reads a transaction back at once after its answer, and a back-dated one answers effective volumes read back', async () => {
    const name = await fresh();
    const now = await call('POST', `/v2/${name}/transactions`, transfer('world', 'dave', 5));
    const got = await call('GET', `/v2/${name}/transactions/${now.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.postings[0].destination).toBe('dave');
    const earlier = await call('POST', `/v2/${name}/transactions`, {
      ...transfer('world', 'dave', 7),
      timestamp: '2001-01-01T00:00:00Z',
    });
    expect(earlier.status).toBe(200);
    // Commit order: 5 then 7 (post 12); effective order: 7 first, so right after it dave held 7.
    expect(earlier.body.data.postCommitVolumes.dave['USD/2'].balance).toBe(12n);
    expect(earlier.body.data.postCommitEffectiveVolumes.dave['USD/2'].balance).toBe(7n);
  });

  it('a 100-element bulk is decided in order in a few commits; stopping at a failure skips exactly the rest', async () => {
    const name = await fresh();
    const element = (source: string, destination: string, amount: number) => ({
      action: 'CREATE_TRANSACTION',
      data: transfer(source, destination, amount),
    });
    // 100 elements to 20 accounts: more than one TransactWriteItems holds.
    const all = Array.from({ length: 100 }, (_, i) => element('world', `user:${i % 20}`, i + 1));
    const res = await call('POST', `/v2/${name}/_bulk`, all);
    expect(res.status, res.text.slice(-600)).toBe(200);
    expect(res.body.data.map((r: { logID: bigint }) => Number(r.logID))).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    const pages = await itemsOf(ledgerKeys.logPartition({ environment: 'default', name }));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.length).toBeLessThan(10);
    // user:19 received 20, 40, 60, 80 and 100.
    expect(
      (await call('GET', `/v2/${name}/accounts/user:19?expand=volumes`)).body.data.volumes['USD/2']
        .balance,
    ).toBe(300n);

    // Element 50 overdraws: 0-49 applied, 50 refused, 51-99 not applied and nothing of them written.
    const stop = all.map((e, i) => (i === 50 ? element('user:0', 'user:1', 1_000) : e));
    const stopped = await call('POST', `/v2/${name}/_bulk`, stop);
    expect(stopped.status).toBe(400);
    const kinds = stopped.body.data.map(
      (r: { responseType: string; errorCode?: string }) => r.errorCode ?? r.responseType,
    );
    expect(kinds).toEqual([
      ...Array(50).fill('CREATE_TRANSACTION'),
      'INSUFFICIENT_FUND',
      ...Array(49).fill('VALIDATION'),
    ]);
    expect(stopped.body.data[51].errorDescription).toBe('not applied: element 50 failed');
    expect((await call('GET', `/v2/${name}/stats`)).body.data.transactions).toBe(150n);
  });
});
