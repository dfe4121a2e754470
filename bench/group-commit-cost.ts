/**
 * Write units per transaction when the ledger writer commits K relayed transactions at once (group commit), by
 * DynamoDB's rules: each TransactWriteItems computed item by item (bench/transact-write-units.ts), the result
 * items' BatchWriteItem as DynamoDB Local reports it (single-item writes: it matches the rules). Every batch is
 * 1-posting `world → users:i` between existing accounts, on a warm writer (its cache holds what it read before),
 * which is the steady state of a busy ledger.
 */

import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../lib/dynamo/client.js';
import { DEFAULT_ENVIRONMENT } from '../lib/environments/environment-id.js';
import { DEFAULT_FEATURES } from '../lib/ledger/domain/features.js';
import { BucketTables } from '../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../lib/ledger/store/dynamo-ledger-table.js';
import { LedgerRegistry } from '../lib/ledger/store/registry.js';
import type { Intent } from '../lib/ledger/write/intent.js';
import { LedgerSequencer } from '../lib/ledger/write/sequencer.js';
import type { DynamoMeter } from './dynamo-meter.js';
import { benchVariables, localDynamoClient } from './environment.js';

export interface GroupCommitCost {
  /** Transactions committed in one TransactWriteItems. */
  k: number;
  items: number;
  wruPerTransaction: number;
  /** Of which the atomic commit (HEAD, the log page, volumes, move pages). */
  commitWruPerTransaction: number;
  /** Of which what the writer puts after it: new transactions' items (with their index entry) and result items, then HEAD's settle mark. */
  afterCommitWruPerTransaction: number;
  rruPerTransaction: number;
}

export interface GroupCommitCostResult {
  source: string;
  /** The most 1-posting transactions one TransactWriteItems holds (100 actions). */
  largestBatch: number;
  batches: GroupCommitCost[];
}

const USERS = 400;

export async function measureGroupCommitCost(
  dynamoEndpoint: string,
  sqsEndpoint: string,
  meter: DynamoMeter,
): Promise<GroupCommitCostResult> {
  const env = await benchVariables(dynamoEndpoint, sqsEndpoint, 'bench-gc-');
  const doc = createDocumentClient({ endpoint: dynamoEndpoint }, { bigintNumbers: true });
  const table = env.LEDGER_TABLE!;
  const registry = new LedgerRegistry(doc, new BucketTables(table, new Map()));
  const ledger = await registry.create({
    environment: DEFAULT_ENVIRONMENT,
    name: `gc-${Date.now()}`,
    bucket: '_default',
    metadata: {},
    features: { ...DEFAULT_FEATURES },
    addedAt: new Date().toISOString(),
  });
  const sequencer = new LedgerSequencer({
    items: dynamoLedgerTable(doc, table, ledger),
    table,
    ledger,
    owner: randomUUID(),
  });
  let user = 0;
  const intents = (k: number): Intent[] =>
    Array.from({ length: k }, () => ({
      reqId: randomUUID(),
      environment: ledger.environment,
      ledger: ledger.name,
      deadline: Date.now() + 60_000,
      operation: {
        kind: 'create',
        input: {
          postings: [
            {
              source: 'world',
              destination: `users:${user++ % USERS}`,
              amount: 100n,
              asset: 'USD/2',
            },
          ],
        },
        options: { dryRun: false, force: false },
      },
    }));
  // Every destination exists, and the writer has read them all (its warm cache). A batch of new accounts may
  // not fit one commit: what it defers goes in the next.
  for (let i = 0; i < USERS; i += 20) {
    for (let pending = intents(20); pending.length > 0; )
      pending = (await sequencer.process(pending)).deferred;
  }
  meter.sizer = localDynamoClient(dynamoEndpoint);
  const batches: GroupCommitCost[] = [];
  // What fits depends on where the world account's move buffer stands (a page flush every 8 moves), so one less
  // than what the probe fitted is what always fits.
  const largestBatch = 100 - (await sequencer.process(intents(100))).deferred.length - 1;
  for (const k of [1, 8, 20, largestBatch]) {
    meter.reset();
    const { deferred } = await sequencer.process(intents(k));
    if (deferred.length > 0) throw new Error(`a batch of ${k} did not fit in one commit`);
    const twi = meter.calls.filter((c) => c.operation === 'TransactWriteItems');
    const commit = twi.reduce((n, c) => n + (c.computedUnits ?? c.units), 0);
    // BatchWriteItem (transactions, results) and HEAD's settle mark, as DynamoDB Local reports them (single-item
    // and batch writes: it matches the rules, the transaction index entry included).
    const after = meter.calls
      .filter((c) => c.kind === 'write' && c.operation !== 'TransactWriteItems')
      .reduce((n, c) => n + c.units, 0);
    const summary = meter.summary();
    batches.push({
      k,
      items: twi.reduce((n, c) => n + (c.actions?.length ?? 0), 0),
      wruPerTransaction: round((commit + after) / k),
      commitWruPerTransaction: round(commit / k),
      afterCommitWruPerTransaction: round(after / k),
      rruPerTransaction: round(summary.readUnits / k),
    });
  }
  meter.sizer = undefined;
  return {
    source: 'LedgerSequencer over DynamoDB Local, warm cache, 1-posting world → existing account',
    largestBatch,
    batches,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
