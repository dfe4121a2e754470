/**
 * The direct writer over the in-memory port (the same port the group commit uses): concurrent writes that race
 * on HEAD are decided again until they commit — ids gapless, the overdraft rule in commit order, money kept —
 * and a transactional read that meets a writer is read again.
 */
import { describe, expect, it } from 'vitest';
import { InsufficientFundError } from '../../errors/index.js';
import { operationRequest } from '../commands/operations.js';
import { createOne, testLedger } from '../write/test-support.js';
import { headFromItem } from './head.js';
import { type ItemKey, ledgerKeys } from './keys.js';
import { MemoryLedgerTable } from './memory-ledger-table.js';
import { LedgerWriter } from './writer.js';

const ledger = testLedger('direct');

const writerOver = (table: MemoryLedgerTable) =>
  new LedgerWriter({ tableFor: () => 'memory', tableOf: () => table, sleep: async () => {} });

const request = (source: string, destination: string, amount: bigint) =>
  operationRequest(ledger, createOne(source, destination, amount), async () => undefined);

const balance = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.volume(ledger, address, 'USD'));
  return item ? BigInt(item.input as bigint) - BigInt(item.output as bigint) : 0n;
};

describe('the direct writer on the memory port', () => {
  it('commits 8 racing writes with ids 1..8, each deciding again after losing HEAD (8 rounds at worst, within its 10 attempts)', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerOver(table);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async (_, i) =>
        writer.write(await request('world', `users:${i}`, BigInt(i + 1))),
      ),
    );
    const ids = outcomes.map((o) => (o.kind === 'committed' ? o.log.id : -1));
    expect([...ids].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(headFromItem(table.get(ledgerKeys.head(ledger))!)).toMatchObject({
      lastTxId: 8,
      lastLogId: 8,
    });
    expect(balance(table, 'world')).toBe(-36n);
    // More commits were tried than landed: the race was real.
    expect(table.requests.TransactWriteItems).toBeGreaterThan(8);
    expect(table.requests.TransactGetItems).toBeGreaterThan(8);
  });

  it('keeps the overdraft rule in commit order: 5 of 9 racing spends of 1 from 5 commit', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerOver(table);
    await writer.write(await request('world', 'alice', 5n));
    const settled = await Promise.allSettled(
      Array.from({ length: 9 }, async () => writer.write(await request('alice', 'bob', 1n))),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(5);
    const refused = settled.filter((s) => s.status === 'rejected');
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r.reason).toBeInstanceOf(InsufficientFundError);
    expect([balance(table, 'alice'), balance(table, 'bob')]).toEqual([0n, 5n]);
  });

  it('reads its snapshot again when a transaction was writing one of its items', async () => {
    class Conflicting extends MemoryLedgerTable {
      conflicts = 2;
      override async readSnapshot(keys: readonly ItemKey[]) {
        if (this.conflicts-- > 0) return 'conflict' as const;
        return super.readSnapshot(keys);
      }
    }
    const table = new Conflicting(ledger);
    table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
    const outcome = await writerOver(table).write(await request('world', 'a', 7n));
    expect(outcome.kind === 'committed' && outcome.log.id).toBe(1);
    expect(table.conflicts).toBe(-1);
    expect(balance(table, 'a')).toBe(7n);
  });
});

describe("a direct write that meets another container's direct commit moments old", () => {
  /** A container's writer on a clock the test moves. */
  const container = (table: MemoryLedgerTable, owner: string, clock: { ms: number }) =>
    new LedgerWriter({
      tableFor: () => 'memory',
      tableOf: () => table,
      sleep: async () => {},
      owner,
      now: () => clock.ms,
    });

  const kindOf = (outcome: object) =>
    'relay' in outcome ? 'relay' : (outcome as { kind: string }).kind;

  it('relays without trying its commit; its own commits and older ones do not make it relay', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const clock = { ms: 1_000_000 };
    const a = container(table, 'a', clock);
    const b = container(table, 'b', clock);
    expect(kindOf(await a.writeOrRelay(await request('world', 'x', 1n), 1))).toBe('committed');
    expect(headFromItem(table.get(ledgerKeys.head(ledger))!)).toMatchObject({
      directBy: 'a',
      directAtMs: 1_000_000,
    });
    // 10 ms later: a's own write goes on directly; b's relays, and tries no commit.
    clock.ms += 10;
    expect(kindOf(await a.writeOrRelay(await request('world', 'x', 1n), 1))).toBe('committed');
    const commits = table.requests.TransactWriteItems;
    expect(await b.writeOrRelay(await request('world', 'y', 1n), 1)).toEqual({ relay: true });
    expect(table.requests.TransactWriteItems).toBe(commits);
    // Past the window, b writes directly.
    clock.ms += 50;
    expect(kindOf(await b.writeOrRelay(await request('world', 'y', 1n), 1))).toBe('committed');
    expect(headFromItem(table.get(ledgerKeys.head(ledger))!).directBy).toBe('b');
  });
});

describe('the direct writer on a ledger with transaction pages', () => {
  const paged = { ...testLedger('paged'), transactionKeys: { blockIds: 4, timeShards: 3 } };
  const create = (destination: string) =>
    operationRequest(paged, createOne('world', destination, 1n), async () => undefined);

  it('writes metadata on a transaction committed between finding its page and reading its snapshot', async () => {
    const table = MemoryLedgerTable.withHead(paged);
    const writer = new LedgerWriter({
      tableFor: () => 'memory',
      tableOf: () => table,
      sleep: async () => {},
    });
    // Transactions 1-3: one page of block 0.
    await writer.writeAtomic(paged, await Promise.all(['a', 'b', 'c'].map(create)));
    // The write looks up 5's item before 4-6 are committed (its id was known ahead): the lookup finds 1-3's page.
    const racing = Object.create(table) as MemoryLedgerTable;
    let raced = false;
    racing.floorKeys = async (keys: readonly ItemKey[]) => {
      const stale = await table.floorKeys(keys);
      if (!raced) {
        raced = true;
        await writer.writeAtomic(paged, await Promise.all(['d', 'e', 'f'].map(create)));
      }
      return stale;
    };
    const racingWriter = new LedgerWriter({
      tableFor: () => 'memory',
      tableOf: () => racing,
      sleep: async () => {},
    });
    const tag = await operationRequest(
      paged,
      {
        kind: 'metadata',
        target: { type: 'TRANSACTION', id: 5 },
        change: { kind: 'save', metadata: { tag: 'x' } },
        options: { dryRun: false },
      },
      async () => undefined,
    );
    const outcome = await racingWriter.write(tag);
    expect(raced).toBe(true);
    expect(outcome.kind).toBe('committed');
    expect([4, 5, 6].map((id) => table.transaction(id)?.tx.metadata)).toEqual([
      {},
      { tag: 'x' },
      {},
    ]);
  });
});
