/**
 * Atomic bulks beyond one DynamoDB transaction, on the in-memory port: committed staged, applied in parts. The
 * commit is stopped after each of its transactions in turn (the process dying there): a settled read then shows
 * all of the bulk, never part; the next write finishes it and commits after it; and the ledger ends exactly as
 * when nothing stopped — each part applied once, ids gapless, the hash chain whole.
 */
import { describe, expect, it } from 'vitest';
import { type LedgerOperation, operationRequest } from '../commands/operations.js';
import { createOne, testLedger } from '../write/test-support.js';
import { headFromItem } from './head.js';
import { type ItemKey, keyString, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { MemoryLedgerTable } from './memory-ledger-table.js';
import { decodePlanOps } from './plan-codec.js';
import { finishStaged } from './staged-bulk.js';
import { readSettled } from './staged-reads.js';
import { LedgerWriter } from './writer.js';

const ledger = testLedger('staged');
const NOW_MS = Date.parse('2026-11-28T12:00:00Z');
/** 60 transactions to 120 new accounts: far beyond 100 actions, several parts. */
const ELEMENTS = 60;

const writerOver = (port: LedgerTable) =>
  new LedgerWriter({
    tableFor: () => 'memory',
    tableOf: () => port,
    sleep: async () => {},
    now: () => NOW_MS,
  });

const bulk = () =>
  Promise.all(
    Array.from({ length: ELEMENTS }, (_, i) => {
      const amount = BigInt(i + 1);
      const op: LedgerOperation = {
        kind: 'create',
        input: {
          postings: [
            { source: 'world', destination: `src:${i}`, amount, asset: 'USD' },
            { source: `src:${i}`, destination: `dst:${i}`, amount, asset: 'USD' },
          ],
        },
        options: { dryRun: false, force: false, idempotencyKey: `ik-${i}` },
      };
      return operationRequest(ledger, op, async () => undefined);
    }),
  );

/** The port, with every commit after the first `commits` failing as a process that died before sending it. */
function stoppingAfter(table: MemoryLedgerTable, commits: number): LedgerTable {
  let done = 0;
  return {
    getItems: (keys) => table.getItems(keys),
    floorKeys: (keys) => table.floorKeys(keys),
    readSnapshot: (keys) => table.readSnapshot(keys),
    takeHead: (owner, until) => table.takeHead(owner, until),
    commit: async (initial, next, writes) => {
      if (done++ >= commits) throw new Error('stopped');
      return table.commit(initial, next, writes);
    },
    putItems: (items, options) => table.putItems(items, options),
    clearPending: (version) => table.clearPending(version),
    readLogRange: (first, last) => table.readLogRange(first, last),
  };
}

const balance = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.volume(ledger, address, 'USD'));
  return item ? BigInt(item.input as bigint) - BigInt(item.output as bigint) : 0n;
};

/** Every item but HEAD (whose version counts the transactions that moved it), by key. */
const itemsBesideHead = (table: MemoryLedgerTable) => {
  const head = keyString(ledgerKeys.head(ledger) as ItemKey);
  return new Map([...table.items].filter(([key]) => key !== head));
};

const headOf = (table: MemoryLedgerTable) => headFromItem(table.get(ledgerKeys.head(ledger))!);

/** The bulk committed with nothing stopping it, and the number of TransactWriteItems it took. */
async function uninterrupted() {
  const table = MemoryLedgerTable.withHead(ledger);
  const outcomes = await writerOver(table).writeAtomic(ledger, await bulk());
  return { table, outcomes, commits: table.requests.TransactWriteItems ?? 0 };
}

describe('an atomic bulk beyond one DynamoDB transaction', () => {
  it('commits 60 transactions to 120 new accounts in parts: ids 1..60, balances exact, no plan left', async () => {
    const { table, outcomes, commits } = await uninterrupted();
    expect(commits).toBeGreaterThanOrEqual(4);
    expect(outcomes.map((o) => (o.kind === 'committed' ? o.log.id : -1))).toEqual(
      Array.from({ length: ELEMENTS }, (_, i) => i + 1),
    );
    expect(headOf(table)).toMatchObject({ lastTxId: ELEMENTS, lastLogId: ELEMENTS });
    expect(headOf(table).staged).toBeUndefined();
    expect(headOf(table).stagedBulks).toBe(1);
    expect(balance(table, 'world')).toBe(-BigInt((ELEMENTS * (ELEMENTS + 1)) / 2));
    for (let i = 0; i < ELEMENTS; i++) {
      expect(balance(table, `src:${i}`)).toBe(0n);
      expect(balance(table, `dst:${i}`)).toBe(BigInt(i + 1));
      expect(table.transaction(i + 1)).toBeDefined();
    }
    expect(table.transaction(ELEMENTS + 1)).toBeUndefined();
    const plan = ledgerKeys.stagedPart(ledger, 1, 0).pk;
    expect([...table.items.values()].filter((item) => item.pk === plan)).toEqual([]);
  });

  it('replays it from the idempotency keys: same log ids, nothing written again', async () => {
    const { table } = await uninterrupted();
    const before = structuredClone(table.items);
    const replays = await writerOver(table).writeAtomic(ledger, await bulk());
    expect(replays.map((o) => o.kind)).toEqual(Array(ELEMENTS).fill('replayed'));
    expect(table.items).toEqual(before);
  });

  it('stores each part deflated, and still finishes a part stored as a plain list (staged before that)', async () => {
    const reference = await uninterrupted();
    const table = MemoryLedgerTable.withHead(ledger);
    await expect(
      writerOver(stoppingAfter(table, 1)).writeAtomic(ledger, await bulk()),
    ).rejects.toThrow('stopped');
    const plan = ledgerKeys.stagedPart(ledger, 1, 0).pk;
    const parts = [...table.items.values()].filter((item) => item.pk === plan);
    expect(parts.length).toBe(reference.commits - 1);
    for (const part of parts) {
      expect(part.z).toBeInstanceOf(Uint8Array);
      expect(part.ops).toBeUndefined();
      // As a part was stored before: its writes in a list.
      part.ops = decodePlanOps(part.z as Uint8Array);
      delete part.z;
    }
    await finishStaged(table, ledger, { head: headOf(table) });
    expect(headOf(table).staged).toBeUndefined();
    expect(itemsBesideHead(table)).toEqual(itemsBesideHead(reference.table));
  });

  it('stopped after each of its transactions: readers see all of it, the next write finishes it once', async () => {
    const reference = await uninterrupted();
    // Stopped before the first transaction (nothing committed), then after each one but the last.
    for (let stop = 0; stop < reference.commits; stop++) {
      const table = MemoryLedgerTable.withHead(ledger);
      await expect(
        writerOver(stoppingAfter(table, stop)).writeAtomic(ledger, await bulk()),
      ).rejects.toThrow('stopped');
      const committed = stop > 0;
      expect(headOf(table).staged !== undefined).toBe(committed);
      // A settled read of the bulk's last account shows all of the bulk or none of it.
      const seen = await readSettled(table, ledger, async () =>
        balance(table, `dst:${ELEMENTS - 1}`),
      );
      expect(seen).toBe(committed ? BigInt(ELEMENTS) : 0n);
      expect(headOf(table).staged).toBeUndefined();
      if (!committed) continue;
      expect(itemsBesideHead(table)).toEqual(itemsBesideHead(reference.table));
      // The next write comes after it, with the next id and the chain unbroken.
      const [next] = await writerOver(table).writeAtomic(ledger, [
        await operationRequest(ledger, createOne('world', 'after', 7n), async () => undefined),
      ]);
      expect(next).toMatchObject({ kind: 'committed', log: { id: ELEMENTS + 1 } });
      expect(headOf(table)).toMatchObject({ lastTxId: ELEMENTS + 1, lastLogId: ELEMENTS + 1 });
      expect(balance(table, 'world')).toBe(-BigInt((ELEMENTS * (ELEMENTS + 1)) / 2) - 7n);
    }
  });

  it('a writer meeting a stopped bulk finishes it before deciding: its write commits after the whole bulk', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    await expect(
      writerOver(stoppingAfter(table, 2)).writeAtomic(ledger, await bulk()),
    ).rejects.toThrow('stopped');
    expect(headOf(table).staged?.next).toBe(1);
    // Spends all of dst:59, which only the bulk's last parts may hold: decided over part of it, it would fail.
    const [spent] = await writerOver(table).writeAtomic(ledger, [
      await operationRequest(
        ledger,
        createOne(`dst:${ELEMENTS - 1}`, 'out', BigInt(ELEMENTS)),
        async () => undefined,
      ),
    ]);
    expect(spent).toMatchObject({ kind: 'committed', log: { id: ELEMENTS + 1 } });
    expect([balance(table, `dst:${ELEMENTS - 1}`), balance(table, 'out')]).toEqual([
      0n,
      BigInt(ELEMENTS),
    ]);
  });

  it('two finishers racing apply each part once, and a late one never undoes a later write', async () => {
    const reference = await uninterrupted();
    const table = MemoryLedgerTable.withHead(ledger);
    await expect(
      writerOver(stoppingAfter(table, 1)).writeAtomic(ledger, await bulk()),
    ).rejects.toThrow('stopped');
    const staged = headOf(table);
    await Promise.all([finishStaged(table, ledger), finishStaged(table, ledger)]);
    expect(itemsBesideHead(table)).toEqual(itemsBesideHead(reference.table));
    await writerOver(table).write(
      await operationRequest(ledger, createOne('dst:0', 'later', 1n), async () => undefined),
    );
    // A finisher that read HEAD while staged and only now goes on: its part's condition fails, nothing is written.
    expect(await finishStaged(table, ledger, { head: staged })).toMatchObject({
      lastLogId: ELEMENTS + 1,
    });
    expect([balance(table, 'dst:0'), balance(table, 'later')]).toEqual([0n, 1n]);
  });

  it('a read that a bulk began beside is made again after the bulk is finished', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    let reads = 0;
    const seen = await readSettled(table, ledger, async () => {
      reads++;
      const value = balance(table, 'world');
      // The first read runs while a bulk commits its first transaction and stops.
      if (reads === 1)
        await expect(
          writerOver(stoppingAfter(table, 1)).writeAtomic(ledger, await bulk()),
        ).rejects.toThrow('stopped');
      return value;
    });
    expect(reads).toBe(2);
    expect(seen).toBe(-BigInt((ELEMENTS * (ELEMENTS + 1)) / 2));
  });
});
