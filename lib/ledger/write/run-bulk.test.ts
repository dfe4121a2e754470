/**
 * A non-atomic bulk committed element by element stops starting elements once its time budget is spent: it
 * answers every element with its true outcome instead of running into the gateway's timeout. Commits are made
 * slow by a clock the memory port moves forward (a slow DynamoDB is what the real parts cannot produce on demand).
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { bulkElementSchema } from '../routes/bulk-requests.js';
import { headFromItem } from '../store/head.js';
import { ledgerKeys } from '../store/keys.js';
import { MemoryLedgerTable } from '../store/memory-ledger-table.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import { LedgerWriter } from '../store/writer.js';
import { LedgerCommands } from './ledger-commands.js';
import { BULK_TIME_BUDGET_MS, runBulk } from './run-bulk.js';
import { testLedger } from './test-support.js';

const ledger = testLedger('bulk-budget');
const COMMIT_MS = 1_000;

describe('a non-atomic bulk past its time budget', () => {
  it('commits the elements started within it and answers the rest not applied', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    let clockMs = 0;
    const commit = table.commit.bind(table);
    table.commit = async (...args) => {
      clockMs += COMMIT_MS;
      return commit(...args);
    };
    const now = () => clockMs;
    const writer = new LedgerWriter({ tableFor: () => 'memory', tableOf: () => table, now });
    // Creates never read a transaction back: the reads are not reached.
    const reads = {} as TransactionReads;
    const commands = new LedgerCommands({ writer, reads, now });
    const elements = v.parse(
      v.array(bulkElementSchema),
      Array.from({ length: 40 }, (_, i) => ({
        action: 'CREATE_TRANSACTION',
        data: { postings: [{ source: 'world', destination: `u:${i}`, amount: 1, asset: 'USD' }] },
      })),
    );
    const outcomes = await runBulk(
      ledger,
      elements,
      { atomic: false, parallel: false, continueOnFailure: false },
      {
        commands,
        writer,
        reads,
        scriptState: () => ({}) as never,
        now,
        timeBudgetMs: BULK_TIME_BUDGET_MS,
      },
    );
    const applied = BULK_TIME_BUDGET_MS / COMMIT_MS;
    expect(outcomes.filter((o) => o.kind === 'applied')).toHaveLength(applied);
    expect(outcomes.slice(applied)).toEqual(
      Array(40 - applied).fill({
        kind: 'not-applied',
        why: 'the bulk ran out of time; send this element again',
      }),
    );
    // Exactly the applied ones were committed: ids 1..15, nothing after.
    expect(headFromItem(table.get(ledgerKeys.head(ledger))!)).toMatchObject({
      lastTxId: applied,
      lastLogId: applied,
    });
  });
});
