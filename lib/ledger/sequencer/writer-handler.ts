import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerWriter } from '../store/writer.js';
import { decodeIntent, type Intent } from './intent.js';
import { LedgerSequencer } from './sequencer.js';

export interface WriterDeps {
  doc: DynamoDBDocumentClient;
  writer: LedgerWriter;
  lookup: LedgerLookup;
  tableFor: (bucket: string) => string;
  /** This container's identity on the leases it takes. */
  owner: string;
  logger?: Logger;
  now?: () => number;
  leaseMs?: number;
}

export interface IntentRecord {
  messageId: string;
  body: string;
}

/** One sequencer per ledger per container: its cache stays warm across invocations while HEAD is unchanged. */
const sequencers = new WeakMap<WriterDeps, Map<string, LedgerSequencer>>();

/**
 * The ledger writer's batch (fed by the ingress queue's event source mapping, partial batch responses): intents
 * grouped by ledger, each ledger's decided and committed by its sequencer in as few TransactWriteItems as fit,
 * results written. A message that cannot be read, or whose ledger's batch failed, is reported; the queue brings
 * it back, and its request is never decided twice (see LedgerSequencer).
 */
export async function handleIntents(records: readonly IntentRecord[], deps: WriterDeps): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  const failures: string[] = [];
  const byLedger = new Map<string, Array<{ messageId: string; intent: Intent }>>();
  for (const record of records) {
    try {
      const intent = decodeIntent(record.body);
      byLedger.set(intent.ledger, [...(byLedger.get(intent.ledger) ?? []), { messageId: record.messageId, intent }]);
    } catch (err) {
      deps.logger?.log('error', 'ledger writer: unreadable intent', { messageId: record.messageId, error: (err as Error).message });
      failures.push(record.messageId);
    }
  }
  await Promise.all(
    [...byLedger].map(async ([name, group]) => {
      try {
        const sequencer = await sequencerFor(deps, name);
        let pending = group.map((g) => g.intent);
        while (pending.length > 0) pending = (await sequencer.process(pending)).deferred;
      } catch (err) {
        deps.logger?.log('error', 'ledger writer: batch failed', { ledger: name, intents: group.length, error: (err as Error).message });
        failures.push(...group.map((g) => g.messageId));
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

async function sequencerFor(deps: WriterDeps, name: string): Promise<LedgerSequencer> {
  let byLedger = sequencers.get(deps);
  if (!byLedger) sequencers.set(deps, (byLedger = new Map()));
  const existing = byLedger.get(name);
  if (existing) return existing;
  const ledger = await deps.lookup.resolve(name);
  const sequencer = new LedgerSequencer({
    doc: deps.doc,
    writer: deps.writer,
    table: deps.tableFor(ledger.bucket),
    ledger,
    owner: deps.owner,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.leaseMs ? { leaseMs: deps.leaseMs } : {}),
    onCommitError: (err) => deps.logger?.log('warn', 'ledger writer: commit failed, deciding again', { ledger: name, error: (err as Error).message }),
  });
  byLedger.set(name, sequencer);
  return sequencer;
}
