/**
 * Atomic bulks inside the group commit, on the in-memory port: an atomic group is decided all-or-nothing on its
 * own overlay inside a batch — a refused member leaves nothing of the group and blocks none of the batch's other
 * requests —, groups and single writes in one batch keep gapless ids, the in-order overdraft rule and the hash
 * chain, and a group beyond one TransactWriteItems commits staged with its batch (store/staged-bulk.ts).
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { LedgerOperation } from '../commands/operations.js';
import { verifyChain } from '../domain/log-chain.js';
import { bulkElementSchema } from '../routes/bulk-requests.js';
import { headFromItem } from '../store/head.js';
import { ledgerKeys } from '../store/keys.js';
import { MemoryLedgerTable } from '../store/memory-ledger-table.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import { LedgerWriter } from '../store/writer.js';
import { EmbeddedGroupCommit, take, type Waiting } from './embedded.js';
import type { Intent, IntentResult } from './intent.js';
import { LedgerCommands } from './ledger-commands.js';
import { runBulk } from './run-bulk.js';
import { LedgerSequencer } from './sequencer.js';
import { createOne as create, testLedger } from './test-support.js';

const ledger = testLedger('atomic');

const intent = (operation: LedgerOperation, group?: string): Intent => ({
  reqId: randomUUID(),
  environment: ledger.environment,
  ledger: ledger.name,
  operation,
  deadline: Date.now() + 60_000,
  ...(group ? { group, atomic: true } : {}),
});
const atomicGroup = (operations: LedgerOperation[]) => {
  const group = randomUUID();
  return operations.map((o) => intent(o, group));
};

const sequencer = (table: MemoryLedgerTable) =>
  new LedgerSequencer({ items: table, table: 'memory', ledger, owner: 'w', inProcess: true });
const head = (table: MemoryLedgerTable) => headFromItem(table.get(ledgerKeys.head(ledger))!);
const balance = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.volume(ledger, address, 'USD'));
  return item ? BigInt(item.input as bigint) - BigInt(item.output as bigint) : undefined;
};
const idOf = (result: IntentResult | undefined) =>
  result?.status === 'committed'
    ? Number((result.outcomes[0]!.result as { id: bigint }).id)
    : result?.status;

describe('an atomic group in a batch', () => {
  it('with a refused member leaves nothing of the group, and the batch’s other requests commit', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const group = atomicGroup([
      create('a', 'b', 4n),
      create('a', 'b', 7n),
      create('world', 'z', 1n),
    ]);
    const batch = [intent(create('world', 'a', 10n)), ...group, intent(create('a', 'c', 3n))];
    const { results, deferred } = await sequencer(table).process(batch);
    expect(deferred).toEqual([]);
    expect(batch.map((i) => idOf(results.get(i.reqId)))).toEqual([
      1,
      'skipped',
      'refused',
      'skipped',
      2,
    ]);
    expect(results.get(group[1]!.reqId)).toMatchObject({
      status: 'refused',
      error: { kind: 'insufficient_fund' },
    });
    expect(results.get(group[0]!.reqId)).toEqual({ status: 'skipped', after: group[1]!.reqId });
    expect([balance(table, 'a'), balance(table, 'b'), balance(table, 'z')]).toEqual([
      7n,
      undefined,
      undefined,
    ]);
    expect([head(table).lastTxId, head(table).lastLogId]).toEqual([2, 2]);
    expect(table.requests.TransactWriteItems).toBe(1);
  });

  it('two groups and single writes in one batch: gapless ids in order, the overdraft rule in order, the hash chain', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const first = atomicGroup([create('world', 'a', 5n), create('a', 'b', 5n)]);
    const second = atomicGroup([create('b', 'c', 3n), create('c', 'd', 3n)]);
    const batch = [
      intent(create('world', 'x', 1n)),
      ...first,
      // `a` was emptied by the first group: refused, in order.
      intent(create('a', 'y', 1n)),
      ...second,
      intent(create('b', 'e', 2n)),
      // `b` holds nothing more: refused.
      intent(create('b', 'e', 1n)),
    ];
    const { results } = await sequencer(table).process(batch);
    expect(batch.map((i) => idOf(results.get(i.reqId)))).toEqual([
      1,
      2,
      3,
      'refused',
      4,
      5,
      6,
      'refused',
    ]);
    expect(['a', 'b', 'c', 'd', 'e'].map((a) => balance(table, a))).toEqual([0n, 0n, 0n, 3n, 2n]);
    expect(table.requests.TransactWriteItems).toBe(1);
    const entries = await table.readLogRange(1, 6);
    expect(entries.map((e) => e.log.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(verifyChain(entries.map((e) => e.log)).ok).toBe(true);
    expect(head(table).lastTxId).toBe(6);
  });

  it('beyond one TransactWriteItems: committed staged with the batch, all of it, ids in order', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    // 40 transfers to 40 new accounts: far more than 100 actions.
    const group = atomicGroup(Array.from({ length: 40 }, (_, n) => create('world', `u:${n}`, 1n)));
    const single = intent(create('world', 'x', 1n));
    const after = intent(create('world', 'y', 2n));
    const batch = [single, ...group, after];
    const { results, deferred } = await sequencer(table).process(batch);
    expect(deferred).toEqual([]);
    expect(batch.map((i) => idOf(results.get(i.reqId)))).toEqual(
      Array.from({ length: 42 }, (_, n) => n + 1),
    );
    expect(head(table).staged).toBeUndefined();
    expect([head(table).lastTxId, head(table).stagedBulks]).toEqual([42, 1]);
    expect([balance(table, 'u:0'), balance(table, 'u:39'), balance(table, 'y')]).toEqual([
      1n,
      1n,
      2n,
    ]);
    // The first transaction (HEAD, log pages, keys, plan) and its parts.
    expect(table.requests.TransactWriteItems).toBe(1 + 3);
    const entries = await table.readLogRange(1, 42);
    expect(verifyChain(entries.map((e) => e.log)).ok).toBe(true);
  });

  it('after a staged bulk on a new ledger, the same writer spends what the bulk credited', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = sequencer(table);
    const group = atomicGroup(Array.from({ length: 40 }, (_, n) => create('world', `u:${n}`, 2n)));
    await writer.process(group);
    expect(head(table).stagedBulks).toBe(1);
    // Never read before, created by the bulk: spent from what it holds, not presumed absent.
    const spend = intent(create('u:7', 'z', 2n));
    const { results } = await writer.process([spend]);
    expect(idOf(results.get(spend.reqId))).toBe(41);
    expect([balance(table, 'u:7'), balance(table, 'z')]).toEqual([0n, 2n]);
  });

  it('staged, with a part’s commit failing once: committed, answered once, finished by the next batch', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const commit = table.commit.bind(table);
    let commits = 0;
    table.commit = async (...args) => {
      if (++commits === 2) throw new Error('connection reset');
      return commit(...args);
    };
    const group = atomicGroup(Array.from({ length: 40 }, (_, n) => create('world', `u:${n}`, 1n)));
    const writer = sequencer(table);
    const { results, deferred } = await writer.process(group);
    expect(deferred).toEqual([]);
    expect(group.map((i) => idOf(results.get(i.reqId)))).toEqual(
      Array.from({ length: 40 }, (_, n) => n + 1),
    );
    // Committed by its first transaction; the parts left are the next reader's or writer's to apply.
    expect([head(table).lastTxId, head(table).staged?.next]).toEqual([40, 0]);
    const next = intent(create('world', 'x', 1n));
    const again = await writer.process([next]);
    expect(idOf(again.results.get(next.reqId))).toBe(41);
    expect([head(table).staged, balance(table, 'u:39'), balance(table, 'x')]).toEqual([
      undefined,
      1n,
      1n,
    ]);
  });

  it('staged, with a process stopped between parts: readers of HEAD see it staged, the next writer finishes it first', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const commit = table.commit.bind(table);
    let commits = 0;
    let stoppedAfterFirst: () => void = () => {};
    const stop = new Promise<void>((resolve) => {
      stoppedAfterFirst = resolve;
    });
    // The process stops after the staged commit's first transaction: its first part never returns, nothing is
    // answered, and its parts are never applied by it.
    table.commit = async (...args) => {
      commits++;
      if (commits === 2) {
        stoppedAfterFirst();
        return new Promise<never>(() => {});
      }
      return commit(...args);
    };
    const group = atomicGroup(Array.from({ length: 40 }, (_, n) => create('world', `u:${n}`, 1n)));
    let answered = false;
    void sequencer(table)
      .process(group)
      .then(() => {
        answered = true;
      });
    await stop;
    expect(answered).toBe(false);
    expect(head(table).staged).toMatchObject({ parts: 3, next: 0 });
    // Nothing of the group outside the plan was applied: no volume, no transaction item yet.
    expect(balance(table, 'u:0')).toBeUndefined();
    const next = intent(create('world', 'x', 1n));
    const { results } = await sequencer(table).process([next]);
    expect(idOf(results.get(next.reqId))).toBe(41);
    expect(head(table).staged).toBeUndefined();
    expect([balance(table, 'u:0'), balance(table, 'u:39'), balance(table, 'x')]).toEqual([
      1n,
      1n,
      1n,
    ]);
    const entries = await table.readLogRange(1, 41);
    expect(verifyChain(entries.map((e) => e.log)).ok).toBe(true);
  });
});

describe('an atomic bulk with the embedded engine', () => {
  const elements = (postings: Array<[string, string, number]>) =>
    v.parse(
      v.array(bulkElementSchema),
      postings.map(([source, destination, amount]) => ({
        action: 'CREATE_TRANSACTION',
        data: { postings: [{ source, destination, amount, asset: 'USD' }] },
      })),
    );
  const setup = () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = new LedgerWriter({ tableFor: () => 'memory', tableOf: () => table });
    const embedded = new EmbeddedGroupCommit({ tableFor: () => 'memory', tableOf: () => table });
    // Creates never read a transaction back: the reads are not reached.
    const reads = {} as TransactionReads;
    const commands = new LedgerCommands({ writer, reads, embedded });
    const deps = { commands, writer, reads, scriptState: () => ({}) as never };
    const options = { atomic: true, parallel: false, continueOnFailure: false };
    return { table, deps, options };
  };

  it('is committed in one batch when it fits, or answers its failed element and applies none', async () => {
    const { table, deps, options } = setup();
    const ok = await runBulk(
      ledger,
      elements([
        ['world', 'a', 5],
        ['a', 'b', 2],
      ]),
      options,
      deps,
    );
    expect(ok.map((o) => o.kind === 'applied' && o.outcome.kind)).toEqual([
      'committed',
      'committed',
    ]);
    expect(table.requests.TransactWriteItems).toBe(1);
    const refused = await runBulk(
      ledger,
      elements([
        ['a', 'c', 1],
        ['a', 'c', 9],
        ['world', 'c', 1],
      ]),
      options,
      deps,
    );
    expect(refused[0]).toEqual({ kind: 'not-applied', why: 'the atomic bulk failed at element 1' });
    expect(refused[1]).toMatchObject({ kind: 'failed', error: { kind: 'insufficient_fund' } });
    expect(refused[2]).toEqual({ kind: 'not-applied', why: 'the atomic bulk failed at element 1' });
    expect([balance(table, 'a'), balance(table, 'c')]).toEqual([3n, undefined]);
    expect(head(table).lastTxId).toBe(2);
  });

  it('too large for one TransactWriteItems: committed by the engine, staged', async () => {
    const { table, deps, options } = setup();
    const many = elements(
      Array.from({ length: 40 }, (_, n) => ['world', `u:${n}`, 1] as const).map((p) => [...p]),
    );
    const outcomes = await runBulk(ledger, many, options, deps);
    expect(outcomes.every((o) => o.kind === 'applied')).toBe(true);
    expect(head(table).lastTxId).toBe(40);
    expect(balance(table, 'u:39')).toBe(1n);
    // Staged by the engine: its first transaction and three parts.
    expect(table.requests.TransactWriteItems).toBe(4);
  });
});

describe('the embedded engine’s cut of a batch', () => {
  const waiting = (intents: Intent[]): Waiting[] =>
    intents.map((i) => ({ intent: i, answer: () => {}, queuedMs: 0 }));
  const groupOf = (n: number) =>
    atomicGroup(Array.from({ length: n }, () => create('world', 'a', 1n)));

  it('takes whole atomic groups next in line beyond 128 intents, and stops at a single write', () => {
    const groups = [groupOf(50), groupOf(50), groupOf(50)];
    const single = intent(create('world', 'b', 1n));
    const line = waiting([...groups.flat(), single, ...groupOf(50)]);
    const batch = take(line, 128);
    expect(batch.map((w) => w.intent)).toEqual(groups.flat());
    expect(line.map((w) => w.intent)[0]).toBe(single);
  });

  it('cuts single writes at 128, and groups once past 1,600 intents, never inside one', () => {
    const singles = Array.from({ length: 130 }, () => intent(create('world', 'b', 1n)));
    expect(take(waiting(singles), 128)).toHaveLength(128);
    const groups = Array.from({ length: 28 }, () => groupOf(60));
    const line = waiting(groups.flat());
    expect(take(line, 128)).toHaveLength(1_620);
    expect(line).toHaveLength(60);
  });
});
