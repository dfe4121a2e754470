/**
 * Write units per transaction when the ledger writer commits K relayed transactions at once (group commit), by
 * DynamoDB's rules: each TransactWriteItems computed item by item (bench/transact-write-units.ts), the result
 * items' BatchWriteItem as DynamoDB Local reports it (single-item writes: it matches the rules). Every batch is
 * 1-posting `world → users:i` between existing accounts, on a warm writer (its cache holds what it read before),
 * which is the steady state of a busy ledger.
 */
import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../lib/dynamo/client.js';
import type { Intent } from '../lib/ledger/sequencer/intent.js';
import { LedgerSequencer } from '../lib/ledger/sequencer/sequencer.js';
import { DEFAULT_FEATURES } from '../lib/ledger/domain/features.js';
import { BucketTables } from '../lib/ledger/store/bucket-tables.js';
import { LedgerRegistry } from '../lib/ledger/store/registry.js';
import { LedgerWriter } from '../lib/ledger/store/writer.js';
import type { DynamoMeter } from './dynamo-meter.js';
import { benchEnvironment, localDynamoClient } from './environment.js';

export interface GroupCommitCost {
  /** Transactions committed in one TransactWriteItems. */
  k: number;
  items: number;
  wruPerTransaction: number;
  /** Of which the atomic commit (HEAD, log items, volumes, move pages, transactions). */
  commitWruPerTransaction: number;
  /** Of which the result items written after it. */
  resultWruPerTransaction: number;
  rruPerTransaction: number;
}

export interface GroupCommitCostResult {
  source: string;
  /** The most 1-posting transactions one TransactWriteItems holds (100 actions). */
  largestBatch: number;
  batches: GroupCommitCost[];
}

const USERS = 400;

export async function measureGroupCommitCost(dynamoEndpoint: string, sqsEndpoint: string, meter: DynamoMeter): Promise<GroupCommitCostResult> {
  const env = await benchEnvironment(dynamoEndpoint, sqsEndpoint, 'bench-gc-');
  const doc = createDocumentClient({ endpoint: dynamoEndpoint }, { bigintNumbers: true });
  const table = env.LEDGER_TABLE!;
  const registry = new LedgerRegistry(doc, new BucketTables(table, new Map()));
  const writer = new LedgerWriter({ doc, tableFor: () => table });
  const ledger = await registry.create({ name: `gc-${Date.now()}`, bucket: '_default', metadata: {}, features: { ...DEFAULT_FEATURES }, addedAt: new Date().toISOString() });
  const sequencer = new LedgerSequencer({ doc, writer, table, ledger, owner: randomUUID() });
  let user = 0;
  const intents = (k: number): Intent[] =>
    Array.from({ length: k }, () => ({
      reqId: randomUUID(),
      ledger: ledger.name,
      deadline: Date.now() + 60_000,
      operation: { kind: 'create', input: { postings: [{ source: 'world', destination: `users:${user++ % USERS}`, amount: 100n, asset: 'USD/2' }] }, options: { dryRun: false, force: false } },
    }));
  // Every destination exists, and the writer has read them all (its warm cache).
  for (let i = 0; i < USERS; i += 20) await sequencer.process(intents(20));
  meter.sizer = localDynamoClient(dynamoEndpoint);
  const batches: GroupCommitCost[] = [];
  const largestBatch = 100 - (await sequencer.process(intents(100))).deferred.length;
  for (const k of [1, 8, 20, largestBatch]) {
    meter.reset();
    const { deferred } = await sequencer.process(intents(k));
    if (deferred.length > 0) throw new Error(`a batch of ${k} did not fit in one commit`);
    const twi = meter.calls.filter((c) => c.operation === 'TransactWriteItems');
    const commit = twi.reduce((n, c) => n + (c.computedUnits ?? c.units), 0);
    const results = meter.calls.filter((c) => c.operation === 'BatchWriteItem').reduce((n, c) => n + c.units, 0);
    const summary = meter.summary();
    batches.push({
      k,
      items: twi.reduce((n, c) => n + (c.actions?.length ?? 0), 0),
      wruPerTransaction: round((commit + results) / k),
      commitWruPerTransaction: round(commit / k),
      resultWruPerTransaction: round(results / k),
      rruPerTransaction: round(summary.readUnits / k),
    });
  }
  meter.sizer = undefined;
  return { source: 'LedgerSequencer over DynamoDB Local, warm cache, 1-posting world → existing account', largestBatch, batches };
}

const round = (n: number) => Math.round(n * 100) / 100;
