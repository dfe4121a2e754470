/**
 * A settle after a sequenced writer stopped between its commit and its after-commit puts, on the memory port: it
 * rebuilds from the log page exactly the transaction pages the writer had not written yet, cut as the writer cut
 * them, and nothing the writer already wrote.
 */
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../domain/logs.js';
import type { Transaction } from '../domain/transaction.js';
import { testLedger } from '../write/test-support.js';
import { createdTransactionItems, unwrittenTransactionItems } from './batch-settle.js';
import type { StoredLogEntry } from './log-pages.js';
import { MemoryLedgerTable } from './memory-ledger-table.js';
import { pageItem, transactionPages } from './transaction-pages.js';

const paged = { ...testLedger('settle'), transactionKeys: { blockIds: 4, timeShards: 3 } };
const AT = '2026-11-29T10:00:00Z';

/** The log entry that created transaction `id`, as a group commit writes it. */
function created(id: number): StoredLogEntry {
  const transaction: Transaction = {
    id,
    postings: [{ source: 'world', destination: `u:${id}`, amount: BigInt(id), asset: 'USD' }],
    metadata: {},
    timestamp: AT,
    insertedAt: AT,
    updatedAt: AT,
    reverted: false,
  };
  const log = {
    id,
    type: 'NEW_TRANSACTION',
    data: { transaction },
    date: AT,
    idempotencyKey: '',
    hash: '',
  } as LogEntry;
  return {
    log,
    extras: { post: { [`u:${id}`]: { USD: { input: 1n, output: 0n, balance: 1n } } } },
  };
}

describe('settling a stopped writer’s transactions', () => {
  it('rebuilds only the pages not written, as the writer cut them', async () => {
    const entries = [1, 2, 3, 4, 5, 6].map(created);
    // The writer's pages: 1-3 in block 0, 4-6 in block 1.
    const pages = transactionPages(createdTransactionItems(paged, entries)).map(pageItem);
    expect(pages.map((p) => [p.id, p.last])).toEqual([
      [1, 3],
      [4, 6],
    ]);
    // It wrote the first page and stopped.
    const table = MemoryLedgerTable.withHead(paged);
    table.put(pages[0]!);
    expect(await unwrittenTransactionItems(table, paged, entries)).toEqual([pages[1]]);
    table.put(pages[1]!);
    expect(await unwrittenTransactionItems(table, paged, entries)).toEqual([]);
  });

  it('keeps one item a transaction in a ledger created before blocks', async () => {
    const unblocked = testLedger('settle-old');
    const entries = [1, 2].map(created);
    const table = MemoryLedgerTable.withHead(unblocked);
    expect(await unwrittenTransactionItems(table, unblocked, entries)).toEqual(
      createdTransactionItems(unblocked, entries),
    );
    expect(createdTransactionItems(unblocked, entries).map((i) => i.id)).toEqual([1, 2]);
  });
});
