/**
 * Group commit (the sequenced writer of busy ledgers) on DynamoDB Local: batches of relayed requests decided in
 * order and committed in one TransactWriteItems. Each test checks the ledger afterwards through the HTTP API —
 * ids gapless, every committed request present exactly once, balances, the hash chain — and the answers.
 */
import { randomUUID } from 'node:crypto';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { parseJson, stringifyJson } from '../../../lib/json/bigint-json.js';
import type { LedgerOperation } from '../../../lib/ledger/commands/operations.js';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../../../lib/ledger/store/dynamo-ledger-table.js';
import { headFromItem } from '../../../lib/ledger/store/head.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { parseStoredLog } from '../../../lib/ledger/store/log-reads.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import type { Intent, IntentResult } from '../../../lib/ledger/write/intent.js';
import { encodeIntent } from '../../../lib/ledger/write/intent.js';
import { LedgerSequencer } from '../../../lib/ledger/write/sequencer.js';
import { settleBatch } from '../../../lib/ledger/write/settle.js';
import { handleIntents, type WriterDeps } from '../../../lib/ledger/write/writer-handler.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, storedTransactionItems } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

let runtime: ServiceRuntime;
let doc: DynamoDBDocumentClient;
let table: string;
let lookup: LedgerLookup;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

const posting = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const create = (
  postings: ReturnType<typeof posting>[],
  extra: { reference?: string; idempotencyKey?: string } = {},
): LedgerOperation => ({
  kind: 'create',
  input: { postings, ...(extra.reference ? { reference: extra.reference } : {}) },
  options: {
    dryRun: false,
    force: false,
    ...(extra.idempotencyKey ? { idempotencyKey: extra.idempotencyKey } : {}),
  },
});
/** JSON as the requester reads it back (ids as the exact parser gives them). */
const asRead = (value: unknown) => parseJson(stringifyJson(value));
const intent = (
  ledger: string,
  operation: LedgerOperation,
  deadline = Date.now() + WAIT_LIMIT_MS,
): Intent => ({ reqId: randomUUID(), environment: 'default', ledger, operation, deadline });

async function fresh(): Promise<string> {
  const name = `gc${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  return name;
}

async function sequencer(
  ledger: string,
  owner: string = randomUUID(),
  client = doc,
): Promise<LedgerSequencer> {
  const record = await lookup.resolve('default', ledger);
  return new LedgerSequencer({
    items: dynamoLedgerTable(client, table, record),
    table,
    ledger: record,
    owner,
  });
}

/** Every transaction of the ledger (ascending), and the log checked as a chain. */
async function ledgerState(ledger: string) {
  const txs = (await call('GET', `/v2/${ledger}/transactions?pageSize=1000&reverse=true`)).body
    .cursor.data as Array<{ id: bigint; postings: unknown[]; reference?: string }>;
  const logs = (await call('GET', `/v2/${ledger}/logs?pageSize=1000`)).body.cursor
    .data as unknown[];
  const entries = logs
    .map((l) =>
      parseStoredLog(JSON.stringify(l, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))),
    )
    .reverse();
  return { ids: txs.map((t) => Number(t.id)), txs, chain: verifyChain(entries) };
}

const balance = async (ledger: string, address: string, asset = 'USD') =>
  (await call('GET', `/v2/${ledger}/accounts/${address}?expand=volumes`)).body.data.volumes?.[asset]
    ?.balance as bigint | undefined;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  table = runtime.config.tables.ledger;
  const buckets = new BucketTables(table);
  lookup = new LedgerLookup(new LedgerRegistry(doc, buckets));
});

describe('a batch', () => {
  it('commits every acceptable request in order in one commit; a refused one blocks none and leaves nothing', async () => {
    const ledger = await fresh();
    const intents = [
      intent(ledger, create([posting('world', 'a', 100n)])),
      intent(ledger, create([posting('a', 'b', 150n)])), // more than a holds: refused
      intent(ledger, create([posting('a', 'b', 60n)], { reference: 'r1' })),
      intent(ledger, create([posting('world', 'c', 1n)], { reference: 'r1' })), // reference taken just before: refused
      intent(ledger, create([posting('a', 'c', 40n)])), // spends exactly the rest of a
      intent(ledger, create([posting('a', 'c', 1n)])), // a is empty now: refused
      intent(ledger, {
        kind: 'revert',
        id: 1,
        body: {},
        options: { force: true, atEffectiveDate: false, dryRun: false },
      }),
    ];
    const { results, deferred } = await (await sequencer(ledger)).process(intents);
    expect(deferred).toEqual([]);
    const statuses = intents.map((i) => results.get(i.reqId)!);
    expect(statuses.map((r) => (r.status === 'refused' ? r.error.kind : r.status))).toEqual([
      'committed',
      'insufficient_fund',
      'committed',
      'conflict',
      'committed',
      'insufficient_fund',
      'committed',
    ]);
    const committedIds = statuses.flatMap((r) =>
      r.status === 'committed' ? [Number((r.outcomes[0]!.result as { id: bigint }).id)] : [],
    );
    expect(committedIds).toEqual([1, 2, 3, 4]);
    const state = await ledgerState(ledger);
    expect(state.ids).toEqual([1, 2, 3, 4]);
    expect(state.chain).toEqual({ ok: true, checked: 4 });
    expect(await balance(ledger, 'a')).toBe(-100n); // 100 - 60 - 40, then the revert of tx 1 (forced) takes 100 back
    expect(await balance(ledger, 'c')).toBe(40n);
    // Each answer is the one a direct write gives: the transaction with its volumes.
    const first = statuses[0]! as Extract<IntentResult, { status: 'committed' }>;
    expect(first.outcomes[0]).toMatchObject({
      kind: 'committed',
      logId: 1,
      result: {
        id: 1,
        postCommitVolumes: { a: { USD: { input: 100n, output: 0n, balance: 100n } } },
      },
    });
  });

  it('decides exactly as the same requests written one by one, directly', async () => {
    const batched = await fresh();
    const direct = await fresh();
    const operations = Array.from({ length: 24 }, (_, i) =>
      create([
        posting(i % 5 === 0 ? 'world' : `u${i % 4}`, `u${(i + 1) % 4}`, BigInt(7 + (i % 3) * 11)),
      ]),
    );
    await (await sequencer(batched)).process(operations.map((o) => intent(batched, o)));
    for (const operation of operations) {
      await call(
        'POST',
        `/v2/${direct}/transactions`,
        operation.kind === 'create' ? operation.input : undefined,
      ).catch(() => undefined);
    }
    const [a, b] = [await ledgerState(batched), await ledgerState(direct)];
    expect(a.ids).toEqual(b.ids);
    expect(a.txs.map((t) => t.postings)).toEqual(b.txs.map((t) => t.postings));
    for (const u of ['u0', 'u1', 'u2', 'u3'])
      expect(await balance(batched, u)).toBe(await balance(direct, u));
  });

  it('splits what does not fit in one TransactWriteItems into further commits, ids still gapless', async () => {
    const ledger = await fresh();
    // New accounts with 3 address segments: ~7 items each, far beyond 100 for 40 requests.
    const intents = Array.from({ length: 40 }, (_, i) =>
      intent(ledger, create([posting('world', `users:${i}:main`, 1n)])),
    );
    const deps = handlerDeps();
    const { batchItemFailures } = await handleIntents(
      intents.map((i, n) => ({ messageId: String(n), body: encodeIntent(i) })),
      deps,
    );
    expect(batchItemFailures).toEqual([]);
    const state = await ledgerState(ledger);
    expect(state.ids).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(state.chain.ok).toBe(true);
  });

  it('refuses, with its own error, a request too large for one TransactWriteItems, and commits the rest of its batch', async () => {
    const ledger = await fresh();
    // 40 new accounts of 3 address segments: ~5 items each, far beyond 100 actions for one transaction.
    const huge = intent(
      ledger,
      create(Array.from({ length: 40 }, (_, i) => posting('world', `big:${i}:main`, 1n))),
    );
    const small = intent(ledger, create([posting('world', 'a', 2n)]));
    const { results } = await (await sequencer(ledger)).process([huge, small]);
    const refused = results.get(huge.reqId) as Extract<IntentResult, { status: 'refused' }>;
    expect(refused.status).toBe('refused');
    expect(refused.error.kind).toBe('validation');
    expect(refused.error.message).toMatch(
      /^the request touches too many accounts and assets \(\d+ items to write, at most 100\)$/,
    );
    expect(results.get(small.reqId)?.status).toBe('committed');
    expect((await ledgerState(ledger)).ids).toEqual([1]);
    expect((await call('GET', `/v2/${ledger}/accounts/big:0:main`)).status).toBe(404);
  });

  it('answers a request past its deadline as expired and never commits it', async () => {
    const ledger = await fresh();
    const late = intent(ledger, create([posting('world', 'a', 1n)]), Date.now() + 500);
    const { results } = await (await sequencer(ledger)).process([late]);
    expect(results.get(late.reqId)).toEqual({ status: 'expired' });
    expect((await ledgerState(ledger)).ids).toEqual([]);
  });
});

describe('exactly once', () => {
  it('answers a request sent again, to this writer or another, from its result: never a second commit', async () => {
    const ledger = await fresh();
    const once = intent(ledger, create([posting('world', 'a', 5n)]));
    const first = (await (await sequencer(ledger)).process([once, once])).results.get(once.reqId)!;
    expect(first.status).toBe('committed');
    const again = (await (await sequencer(ledger, 'another')).process([once])).results.get(
      once.reqId,
    );
    expect(asRead(again)).toEqual(asRead(first));
    expect((await ledgerState(ledger)).ids).toEqual([1]);
  });

  it('replays an Idempotency-Key relayed twice under two request ids', async () => {
    const ledger = await fresh();
    const operation = create([posting('world', 'a', 5n)], { idempotencyKey: 'k-1' });
    const seq = await sequencer(ledger);
    const [x, y] = [intent(ledger, operation), intent(ledger, operation)];
    const { results } = await seq.process([x]);
    const replay = (await seq.process([y])).results.get(y.reqId)!;
    expect(asRead(replay)).toEqual(
      asRead({
        status: 'committed',
        outcomes: [
          {
            kind: 'replayed',
            result: (results.get(x.reqId) as Extract<IntentResult, { status: 'committed' }>)
              .outcomes[0]!.result,
            logId: 1,
          },
        ],
      }),
    );
    expect((await ledgerState(ledger)).ids).toEqual([1]);
  });

  it('writes the answers of a batch whose writer stopped after its commit, and decides none of it twice', async () => {
    const ledger = await fresh();
    // A writer whose after-commit writes fail: it commits, then stops (as a crash right after the commit would).
    const crashing = {
      ...doc,
      send: (command: unknown) =>
        command instanceof BatchWriteCommand
          ? Promise.reject(new Error('stopped'))
          : doc.send(command as never),
    } as DynamoDBDocumentClient;
    const intents = [
      intent(ledger, create([posting('world', 'a', 3n)])),
      intent(ledger, create([posting('world', 'b', 4n)])),
    ];
    await expect((await sequencer(ledger, 'crashing', crashing)).process(intents)).rejects.toThrow(
      'stopped',
    );
    // Committed, its transactions' items not written: each is read from the batch's log page meanwhile.
    expect(
      (
        await doc.send(
          new GetCommand({
            TableName: table,
            Key: ledgerKeys.transaction(await lookup.resolve('default', ledger), 1),
          }),
        )
      ).Item,
    ).toBeUndefined();
    for (const [id, amount] of [
      [1, 3n],
      [2, 4n],
    ] as const) {
      const read = await call('GET', `/v2/${ledger}/transactions/${id}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({
        id: BigInt(id),
        postings: [{ source: 'world', amount }],
        reverted: false,
      });
    }
    // The requests come again (resent, or redelivered by the queue) to a new writer: answered, not re-decided.
    const { results } = await (await sequencer(ledger, 'next')).process(intents);
    expect(intents.map((i) => results.get(i.reqId)!.status)).toEqual(['committed', 'committed']);
    expect(
      intents.map((i) =>
        Number(
          (
            (results.get(i.reqId) as Extract<IntentResult, { status: 'committed' }>)
              .outcomes[0]! as { logId: number }
          ).logId,
        ),
      ),
    ).toEqual([1, 2]);
    expect((await ledgerState(ledger)).ids).toEqual([1, 2]);
  });

  it('a batch whose writer stopped after its commit is settled by the first list once its lease lapses', async () => {
    const ledger = await fresh();
    const crashing = {
      ...doc,
      send: (command: unknown) =>
        command instanceof BatchWriteCommand
          ? Promise.reject(new Error('stopped'))
          : doc.send(command as never),
    } as DynamoDBDocumentClient;
    const record = await lookup.resolve('default', ledger);
    const stopped = new LedgerSequencer({
      items: dynamoLedgerTable(crashing, table, record),
      table,
      ledger: record,
      owner: 'stopped',
      leaseMs: 300,
    });
    const intents = [
      intent(ledger, create([posting('world', 'a', 3n)])),
      intent(ledger, create([posting('world', 'b', 4n)], { reference: 'r-2' })),
    ];
    await expect(stopped.process(intents)).rejects.toThrow('stopped');
    await new Promise((r) => setTimeout(r, 400));
    const state = await ledgerState(ledger);
    expect(state.ids).toEqual([1, 2]);
    expect(state.txs[1]!.reference).toBe('r-2');
    expect(state.chain).toEqual({ ok: true, checked: 2 });
    // The batch's two transactions as the writer would have put them: one page, rebuilt from the log page.
    const stored = await storedTransactionItems(runtime, ledger);
    expect(stored.map((i) => [Number(i.id), Number(i.last)])).toEqual([[1, 2]]);
    // Settled: HEAD no longer names the batch, and both requests' results were written.
    const { Item: head } = await doc.send(
      new GetCommand({
        TableName: table,
        Key: { pk: `E#default#L#${ledger}`, sk: 'HEAD' },
        ConsistentRead: true,
      }),
    );
    expect(head!.pendingResults).toBeUndefined();
    for (const i of intents) {
      const { Item } = await doc.send(
        new GetCommand({
          TableName: table,
          Key: { pk: `E#default#L#${ledger}#RES#${i.reqId}`, sk: 'RES' },
          ConsistentRead: true,
        }),
      );
      expect(JSON.parse(String(Item!.result)).status).toBe('committed');
    }
  });
  it('a direct write after a stopped writer’s lease lapsed settles its batch first, then decides over it', async () => {
    const ledger = await fresh();
    const crashing = {
      ...doc,
      send: (command: unknown) =>
        command instanceof BatchWriteCommand
          ? Promise.reject(new Error('stopped'))
          : doc.send(command as never),
    } as DynamoDBDocumentClient;
    const record = await lookup.resolve('default', ledger);
    const stopped = new LedgerSequencer({
      items: dynamoLedgerTable(crashing, table, record),
      table,
      ledger: record,
      owner: 'stopped',
      leaseMs: 300,
    });
    await expect(
      stopped.process([intent(ledger, create([posting('world', 'a', 3n)]))]),
    ).rejects.toThrow('stopped');
    const { Item: unsettled } = await doc.send(
      new GetCommand({
        TableName: table,
        Key: { pk: `E#default#L#${ledger}`, sk: 'HEAD' },
        ConsistentRead: true,
      }),
    );
    expect(unsettled!.pendingResults).toBeDefined();
    await new Promise((r) => setTimeout(r, 400));
    // The revert reads transaction 1, which only the batch's log page holds until the batch is settled.
    const revert = await call('POST', `/v2/${ledger}/transactions/1/revert`);
    expect(revert.status).toBe(201);
    expect(revert.body.data).toMatchObject({
      id: 2n,
      postings: [{ source: 'a', destination: 'world', amount: 3n }],
    });
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data).toMatchObject({
      id: 1n,
      reverted: true,
    });
    const { Item: head } = await doc.send(
      new GetCommand({
        TableName: table,
        Key: { pk: `E#default#L#${ledger}`, sk: 'HEAD' },
        ConsistentRead: true,
      }),
    );
    expect(head!.pendingResults).toBeUndefined();
    expect(Number(head!.lastTxId)).toBe(2);
    // A repair that comes late (a settle that read HEAD before the revert) puts nothing back over it.
    await settleBatch(
      dynamoLedgerTable(doc, table, record),
      record,
      headFromItem(unsettled!),
      Date.now(),
    );
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data).toMatchObject({
      id: 1n,
      reverted: true,
    });
  });

  it('puts transactions only if absent when its lease is nearly over (a direct write may already own the ledger)', async () => {
    const ledger = await fresh();
    const sent: unknown[] = [];
    const recording = {
      ...doc,
      send: (command: unknown) => {
        sent.push(command);
        return doc.send(command as never);
      },
    } as DynamoDBDocumentClient;
    // A lease shorter than the margin: the after-commit puts take the careful path.
    const record = await lookup.resolve('default', ledger);
    const shortLease = new LedgerSequencer({
      items: dynamoLedgerTable(recording, table, record),
      table,
      ledger: record,
      owner: 'short',
      leaseMs: 500,
    });
    const intents = [
      intent(ledger, create([posting('world', 'a', 1n)])),
      intent(ledger, create([posting('world', 'b', 2n)])),
    ];
    const { results } = await shortLease.process(intents);
    expect(intents.map((i) => results.get(i.reqId)!.status)).toEqual(['committed', 'committed']);
    const txPuts = sent.filter(
      (c): c is PutCommand =>
        c instanceof PutCommand && /#TX#[0-9]+$/.test(String(c.input.Item?.pk)),
    );
    // The batch's two transactions are one page (transaction-pages.ts), put only if absent.
    expect(
      txPuts.map((c) => [c.input.Item!.sk, c.input.Item!.last, c.input.ConditionExpression]),
    ).toEqual([['000000000000001', 2, 'attribute_not_exists(pk)']]);
    const batched = sent
      .filter((c): c is BatchWriteCommand => c instanceof BatchWriteCommand)
      .flatMap((c) => Object.values(c.input.RequestItems ?? {}).flat());
    expect(batched.some((r) => /#TX#[0-9]+$/.test(String(r.PutRequest?.Item?.pk)))).toBe(false);
    expect((await ledgerState(ledger)).ids).toEqual([1, 2]);
  });
});

describe('concurrent writers', () => {
  it('two writers on one ledger and direct writes beside them: every request once, no lost update', async () => {
    const ledger = await fresh();
    const [w1, w2] = [await sequencer(ledger, 'w1'), await sequencer(ledger, 'w2')];
    // Deadlines far off: this checks correctness under contention, not overload (a loaded machine could expire some).
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 5 }, (_, i) =>
        intent(
          ledger,
          create([posting('world', `u${(b * 5 + i) % 7}`, 10n)]),
          Date.now() + WAIT_LIMIT_MS,
        ),
      ),
    );
    const directs = Array.from({ length: 6 }, (_, i) =>
      call('POST', `/v2/${ledger}/transactions`, { postings: [posting('world', `u${i}`, 1n)] }),
    );
    const answers = await Promise.all([
      ...batches.map((batch, b) => (b % 2 === 0 ? w1 : w2).process(batch)),
      ...directs,
    ]);
    const relayed = batches
      .flat()
      .map(
        (i) =>
          (answers as Array<{ results?: Map<string, IntentResult> }>)
            .find((a) => a.results?.has(i.reqId))!
            .results!.get(i.reqId)!,
      );
    expect(relayed.every((r) => r.status === 'committed')).toBe(true);
    expect(directs.length).toBe(6);
    const state = await ledgerState(ledger);
    expect(state.ids).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    expect(state.chain.ok).toBe(true);
    let total = 0n;
    const expected = new Map<string, bigint>();
    for (const t of state.txs)
      for (const p of t.postings as Array<{ destination: string; amount: bigint }>)
        expected.set(p.destination, (expected.get(p.destination) ?? 0n) + p.amount);
    for (let u = 0; u < 7; u++) {
      const got = (await balance(ledger, `u${u}`)) ?? 0n;
      expect(got, `u${u}`).toBe(expected.get(`u${u}`) ?? 0n);
      total += got;
    }
    expect(total).toBe(30n * 10n + 6n);
    expect(await balance(ledger, 'world')).toBe(-306n);
  });
});

function handlerDeps(): WriterDeps {
  return { scopeFor: () => ({ doc, lookup }), tableFor: () => table, owner: randomUUID() };
}
