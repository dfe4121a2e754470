/**
 * The pipelined group commit on the in-memory port: batch N+1 decided over batch N while N commits, committed
 * after it; a failed N voids N+1's decision and nothing of it is written; and the embedded engine's loop under
 * many concurrent writers — gapless ids, the in-order overdraft rule, money conserved, fewer commits than writes.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LedgerOperation } from '../commands/operations.js';
import { headFromItem } from '../store/head.js';
import { ledgerKeys } from '../store/keys.js';
import type { LedgerTable } from '../store/ledger-table.js';
import { MemoryLedgerTable } from '../store/memory-ledger-table.js';
import { type BatchMode, BatchPolicy } from './batch-policy.js';
import { EmbeddedGroupCommit } from './embedded.js';
import type { Intent, IntentResult } from './intent.js';
import { LedgerSequencer } from './sequencer.js';
import { createOne, testLedger } from './test-support.js';

const ledger = testLedger('pipe');
const create = createOne;

const intent = (operation: LedgerOperation): Intent => ({
  reqId: randomUUID(),
  environment: ledger.environment,
  ledger: ledger.name,
  operation,
  deadline: Date.now() + 60_000,
});

const writer = (table: LedgerTable, owner = 'w') =>
  new LedgerSequencer({ items: table, table: 'memory', ledger, owner, inProcess: true });

const head = (table: MemoryLedgerTable) => headFromItem(table.get(ledgerKeys.head(ledger))!);
const balance = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.volume(ledger, address, 'USD'));
  return item ? BigInt(item.input as bigint) - BigInt(item.output as bigint) : 0n;
};
const idOf = (result: IntentResult | undefined) =>
  result?.status === 'committed'
    ? Number((result.outcomes[0]!.result as { id: bigint }).id)
    : result?.status;

/** The memory table, each commit held until released: what is decided meanwhile is decided over a commit in flight. */
class HeldCommits extends MemoryLedgerTable {
  private held: Array<() => void> = [];
  hold = false;
  override async commit(...args: Parameters<MemoryLedgerTable['commit']>) {
    if (this.hold) await new Promise<void>((release) => this.held.push(release));
    return super.commit(...args);
  }
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
  static fresh(): HeldCommits {
    const table = new HeldCommits(ledger);
    table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
    return table;
  }
}

describe('pipelined group commit', () => {
  it('decides batch N+1 over batch N while N commits, and commits it after N: ids in order, balances over both', async () => {
    const table = HeldCommits.fresh();
    const w = writer(table);
    const first = [intent(create('world', 'a', 10n))];
    const second = [intent(create('a', 'b', 7n)), intent(create('a', 'b', 4n))];
    const n = await w.prepare(first);
    table.hold = true;
    const landing = w.commitPrepared(n);
    // `a` holds 10 only in N, which has not landed: N+1 is decided over it (7 passes, then 4 overdraws).
    const next = await w.prepare(second);
    expect(head(table).lastTxId).toBe(0);
    table.release();
    table.hold = false;
    const landed = await landing;
    const after = await w.commitPrepared(next);
    expect(landed !== 'redo' && idOf(landed.results.get(first[0]!.reqId))).toBe(1);
    expect(after !== 'redo' && second.map((i) => idOf(after.results.get(i.reqId)))).toEqual([
      2,
      'refused',
    ]);
    expect([balance(table, 'a'), balance(table, 'b'), head(table).lastTxId]).toEqual([3n, 7n, 2]);
    expect(table.requests.TransactWriteItems).toBe(2);
  });

  it('a batch N that fails voids N+1: nothing of N+1 is written, and both are decided again after', async () => {
    const table = HeldCommits.fresh();
    const w = writer(table, 'w');
    await w.prepare([intent(create('world', 'a', 1n))]).then((p) => w.commitPrepared(p));
    const n = await w.prepare([intent(create('world', 'a', 5n))]);
    const next = await w.prepare([intent(create('a', 'b', 6n))]);
    // Another writer commits first: N's commit fails on HEAD's version.
    await writer(table, 'other').process([intent(create('world', 'c', 2n))]);
    expect(await w.commitPrepared(n)).toBe('redo');
    expect(await w.commitPrepared(next)).toBe('redo');
    expect([head(table).lastTxId, balance(table, 'b')]).toEqual([2, 0n]);
    // Decided again, in order, over what is committed now.
    const redo = await w.process([intent(create('world', 'a', 5n)), intent(create('a', 'b', 6n))]);
    expect([...redo.results.values()].map(idOf)).toEqual([3, 4]);
    expect([balance(table, 'a'), balance(table, 'b'), balance(table, 'c')]).toEqual([0n, 6n, 2n]);
  });

  it('refuses to pipeline a writer that puts items and results after its commit', async () => {
    const table = HeldCommits.fresh();
    const deferring = new LedgerSequencer({ items: table, table: 'memory', ledger, owner: 'q' });
    await expect(deferring.prepare([intent(create('world', 'a', 1n))])).rejects.toThrow(
      'a pipelined batch needs an in-process writer',
    );
    expect(head(table).lastTxId).toBe(0);
  });

  it('the embedded loop under 200 concurrent writers: every write answered, ids gapless, no overdraft, money kept', async () => {
    const table = new (class extends MemoryLedgerTable {
      override async commit(...args: Parameters<MemoryLedgerTable['commit']>) {
        await new Promise((r) => setTimeout(r, 3));
        return super.commit(...args);
      }
    })(ledger);
    table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
    const engine = new EmbeddedGroupCommit({ tableFor: () => 'memory', tableOf: () => table });
    await engine.submit(ledger, create('world', 'pool', 100n));
    const writes = Array.from({ length: 200 }, (_, n) =>
      engine.submit(ledger, create('pool', `u:${n % 7}`, BigInt(1 + (n % 3)))),
    );
    const answers = await Promise.all(writes);
    const committed = answers.filter((a) => a.status === 'committed').length;
    const refused = answers.filter((a) => a.status === 'refused').length;
    expect(committed + refused).toBe(200);
    const ids = answers.flatMap((a) => (a.status === 'committed' ? [idOf(a)] : [])) as number[];
    expect([...ids].sort((x, y) => x - y)).toEqual(
      Array.from({ length: committed }, (_, n) => n + 2),
    );
    expect(head(table).lastTxId).toBe(committed + 1);
    const paid = Array.from({ length: 7 }, (_, n) => balance(table, `u:${n}`)).reduce(
      (x, y) => x + y,
    );
    expect(balance(table, 'pool') + paid).toBe(100n);
    expect(balance(table, 'pool') >= 0n).toBe(true);
    // Refusals come only once the pool cannot pay: what it holds is less than the largest amount (3).
    expect(refused === 0 || balance(table, 'pool') < 3n).toBe(true);
    expect(table.requests.TransactWriteItems).toBeLessThan(100);
  });

  it('closed-loop writers while the line switches modes at every answer: all answered, gapless, no overdraft', async () => {
    const table = slowCommits(2);
    const modes = new Set<BatchMode>();
    // Windows judged at every answer, each tried mode kept: pipelined and gathered take turns, commits in flight.
    const policy = new (class extends BatchPolicy {
      override get mode(): BatchMode {
        const mode = super.mode;
        modes.add(mode);
        return mode;
      }
    })({ windowMs: 0, minAnswers: 1, exploreEvery: 1, margin: -1 });
    const engine = new EmbeddedGroupCommit({
      tableFor: () => 'memory',
      tableOf: () => table,
      batchPolicy: () => policy,
    });
    await engine.submit(ledger, create('world', 'pool', 60n));
    const client = async (c: number) => {
      const statuses: string[] = [];
      for (let k = 0; k < 10; k++)
        statuses.push((await engine.submit(ledger, create('pool', `u:${c}`, 1n))).status);
      return statuses;
    };
    const statuses = (await Promise.all(Array.from({ length: 8 }, (_, c) => client(c)))).flat();
    expect(modes).toEqual(new Set(['pipelined', 'gathered']));
    expect(statuses.filter((s) => s === 'committed')).toHaveLength(60);
    expect(statuses.filter((s) => s === 'refused')).toHaveLength(20);
    expect(head(table).lastTxId).toBe(61);
    expect(balance(table, 'pool')).toBe(0n);
    const paid = Array.from({ length: 8 }, (_, c) => balance(table, `u:${c}`));
    expect(paid.reduce((x, y) => x + y)).toBe(60n);
  });

  it('gathered: a group that comes back in parts is committed in one batch; pipelined commits its first half', async () => {
    const commits: Record<BatchMode, number> = { pipelined: 0, gathered: 0 };
    for (const mode of ['pipelined', 'gathered'] as const) {
      const table = slowCommits(25);
      const engine = new EmbeddedGroupCommit({
        tableFor: () => 'memory',
        tableOf: () => table,
        gatherMaxMs: 1_000,
        batchPolicy: () => new BatchPolicy({ adaptive: false, start: mode }),
      });
      await Promise.all(group(engine, 10));
      const before = table.requests.TransactWriteItems ?? 0;
      // The group's writers come back in three parts: one, six, then three.
      const first = engine.submit(ledger, create('world', 'a', 1n));
      await new Promise((r) => setTimeout(r, 4));
      const second = group(engine, 6);
      await new Promise((r) => setTimeout(r, 4));
      const answers = await Promise.all([first, ...second, ...group(engine, 3)]);
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill('committed'));
      commits[mode] = (table.requests.TransactWriteItems ?? 0) - before;
    }
    expect(commits).toEqual({ pipelined: 2, gathered: 1 });
  });

  it('gathered: when fewer come back than the line held, the gather ends at its time cap and commits them', async () => {
    const table = slowCommits(10);
    const engine = new EmbeddedGroupCommit({
      tableFor: () => 'memory',
      tableOf: () => table,
      batchPolicy: () => new BatchPolicy({ adaptive: false, start: 'gathered' }),
    });
    await Promise.all(group(engine, 10));
    const before = table.requests.TransactWriteItems ?? 0;
    // The line held ten at once; two come back and the others never do.
    const answers = await Promise.all(group(engine, 2));
    expect(answers.map((a) => a.status)).toEqual(['committed', 'committed']);
    expect((table.requests.TransactWriteItems ?? 0) - before).toBe(1);
    expect(head(table).lastTxId).toBe(12);
  });

  it('a group that comes back after its batch landed is committed together, not its first writer alone', async () => {
    const table = slowCommits(40);
    // Commits of 40 ms teach the loop how long commits take: it waits up to twice that (the cap is raised so a
    // loaded machine's late timers do not end the wait first).
    const engine = new EmbeddedGroupCommit({
      tableFor: () => 'memory',
      tableOf: () => table,
      gatherMaxMs: 1_000,
    });
    await Promise.all(group(engine, 10));
    const before = table.requests.TransactWriteItems ?? 0;
    // The group's writers come back one after another: the first at once, the others a few ms later.
    const first = engine.submit(ledger, create('world', 'a', 1n));
    await new Promise((r) => setTimeout(r, 4));
    const answers = await Promise.all([first, ...group(engine, 9)]);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill('committed'));
    expect((table.requests.TransactWriteItems ?? 0) - before).toBe(1);
    expect(head(table).lastTxId).toBe(20);
  });

  it('awaits afterLanding after each batch lands and before the next commit is sent', async () => {
    const events: string[] = [];
    const table = new (class extends MemoryLedgerTable {
      override async commit(...args: Parameters<MemoryLedgerTable['commit']>) {
        events.push('commit');
        await new Promise((r) => setTimeout(r, 5));
        return super.commit(...args);
      }
    })(ledger);
    table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
    const engine = new EmbeddedGroupCommit({
      tableFor: () => 'memory',
      tableOf: () => table,
      gatherMaxMs: 0,
      afterLanding: async () => {
        events.push('barrier');
        await new Promise((r) => setTimeout(r, 10));
        events.push('barrier done');
      },
    });
    // The first write commits alone; the two sent while it is in flight make the second batch.
    const first = engine.submit(ledger, create('world', 'a', 1n));
    await new Promise((r) => setTimeout(r, 1));
    const answers = await Promise.all([first, ...group(engine, 2)]);
    expect(answers.map((a) => a.status)).toEqual(['committed', 'committed', 'committed']);
    // Answers go out as a batch lands; the hook then runs, and the next commit waits for it.
    await new Promise((r) => setTimeout(r, 30));
    expect(events).toEqual([
      'commit',
      'barrier',
      'barrier done',
      'commit',
      'barrier',
      'barrier done',
    ]);
  });

  it('never waits when the last batch was a lone write, nor with gathering turned off', async () => {
    for (const gatherMaxMs of [undefined, 0]) {
      const table = slowCommits(40);
      const engine = new EmbeddedGroupCommit({
        tableFor: () => 'memory',
        tableOf: () => table,
        ...(gatherMaxMs === undefined ? {} : { gatherMaxMs }),
      });
      if (gatherMaxMs === 0) await Promise.all(group(engine, 10));
      else await engine.submit(ledger, create('world', 'pool', 1n));
      const before = table.requests.TransactWriteItems ?? 0;
      // A lone writer after a lone batch, or any writer with gathering off: committed alone, then the rest.
      const first = engine.submit(ledger, create('world', 'a', 1n));
      await new Promise((r) => setTimeout(r, 4));
      await Promise.all([first, ...group(engine, 3)]);
      expect((table.requests.TransactWriteItems ?? 0) - before).toBe(2);
    }
  });
});

/** A memory table whose commits take `ms`. */
function slowCommits(ms: number): MemoryLedgerTable {
  const table = new (class extends MemoryLedgerTable {
    override async commit(...args: Parameters<MemoryLedgerTable['commit']>) {
      await new Promise((r) => setTimeout(r, ms));
      return super.commit(...args);
    }
  })(ledger);
  table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
  return table;
}

/** `n` writes from world, submitted at once. */
const group = (engine: EmbeddedGroupCommit, n: number) =>
  Array.from({ length: n }, (_, k) => engine.submit(ledger, create('world', `g:${k}`, 1n)));
