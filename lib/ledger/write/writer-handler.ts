import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { dynamoLedgerTable } from '../store/dynamo-ledger-table.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { decodeIntent, type Intent, type IntentResult } from './intent.js';
import { sendReplies } from './replies.js';
import { LedgerSequencer } from './sequencer.js';

/** What the writer reads and writes in one environment: its client, and its ledgers found over it. */
export interface WriterScope {
  doc: DynamoDBDocumentClient;
  lookup: LedgerLookup;
}

export interface WriterDeps {
  /** The one way to an environment's items: an intent's ledger is found and committed through its scope. */
  scopeFor: (environment: string) => WriterScope;
  tableFor: (bucket: string) => string;
  /** This container's identity on the leases it takes. */
  owner: string;
  logger?: Logger;
  now?: () => number;
  leaseMs?: number;
  /**
   * The ingress queue, drained by the invocation itself once its own batch is done: the event source mapping
   * starts a writer at once with a few messages, and the writer then takes many per commit for as long as they
   * keep coming (up to `drainMs`).
   */
  ingress?: { sqs: SQSClient; queueUrl: string; drainMs: number };
  /** Sends results to the requesters' reply queues (intents that name one); without it, only result items answer. */
  replies?: SQSClient;
}

export interface IntentRecord {
  messageId: string;
  body: string;
}

/**
 * One sequencer per (environment, ledger) per container: its cache stays warm across invocations while HEAD is
 * unchanged. Keyed by `ledgerKey`: ledgers of two environments may share a name.
 */
const sequencers = new WeakMap<WriterDeps, Map<string, LedgerSequencer>>();

/**
 * The ledger writer's batch (fed by the ingress queue's event source mapping, partial batch responses): intents
 * grouped by ledger (environment and name), each ledger's decided and committed by its sequencer in as few
 * TransactWriteItems as fit, results written. A message that cannot be read, or whose ledger's batch failed, is
 * reported; the queue brings it back, and its request is never decided twice (see LedgerSequencer).
 */
export async function handleIntents(
  records: readonly IntentRecord[],
  deps: WriterDeps,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  const result = await processRecords(records, deps);
  if (deps.ingress) await drain(deps, deps.ingress);
  return result;
}

/** Receives per drain round, in parallel (10 messages each: SQS's maximum). */
const DRAIN_RECEIVES = 6;

/**
 * Takes the queue's messages directly until a round finds none or `drainMs` has passed: each round is one batch
 * per ledger. Messages whose ledger failed stay on the queue (visible again after its timeout).
 */
async function drain(deps: WriterDeps, ingress: NonNullable<WriterDeps['ingress']>): Promise<void> {
  const now = deps.now ?? Date.now;
  const until = now() + ingress.drainMs;
  const receive = (waitSeconds: number) =>
    ingress.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: ingress.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
  while (now() < until) {
    let messages = (
      await Promise.all(Array.from({ length: DRAIN_RECEIVES }, () => receive(0)))
    ).flatMap((r) => r.Messages ?? []);
    // Nothing waiting right now: one long poll for stragglers before the invocation ends.
    if (messages.length === 0) messages = (await receive(1)).Messages ?? [];
    if (messages.length === 0) return;
    const { batchItemFailures } = await processRecords(
      messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '' })),
      deps,
    );
    const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    for (let i = 0; i < done.length; i += 10) {
      await ingress.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: ingress.queueUrl,
          Entries: done
            .slice(i, i + 10)
            .map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  }
}

async function processRecords(
  records: readonly IntentRecord[],
  deps: WriterDeps,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  const failures: string[] = [];
  const byLedger = new Map<string, Array<{ messageId: string; intent: Intent }>>();
  for (const record of records) {
    try {
      const intent = decodeIntent(record.body);
      const key = ledgerKey(intent.environment, intent.ledger);
      const group = byLedger.get(key) ?? [];
      group.push({ messageId: record.messageId, intent });
      byLedger.set(key, group);
    } catch (err) {
      deps.logger?.log('error', 'ledger writer: unreadable intent', {
        messageId: record.messageId,
        error: (err as Error).message,
      });
      failures.push(record.messageId);
    }
  }
  await Promise.all(
    [...byLedger].map(([key, group]) => {
      const { environment, ledger: name } = group[0]!.intent;
      // Each ledger's work goes through its environment's client: with the isolation guard on (AWS), credentials
      // that reach that environment's items only (writer-env.ts).
      return (async () => {
        try {
          const sequencer = await sequencerFor(deps, key, environment, name);
          let pending = group.map((g) => g.intent);
          while (pending.length > 0) {
            const { results, deferred } = await sequencer.process(pending);
            await reply(deps, pending, results);
            pending = deferred;
          }
        } catch (err) {
          deps.logger?.log('error', 'ledger writer: batch failed', {
            environment,
            ledger: name,
            intents: group.length,
            error: (err as Error).message,
          });
          failures.push(...group.map((g) => g.messageId));
        }
      })();
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * Results to the reply queues their intents name, after the result items are written (the record stays the item).
 * A reply that cannot be sent is only a slower answer: its requester reads the item.
 */
async function reply(
  deps: WriterDeps,
  intents: readonly Intent[],
  results: ReadonlyMap<string, IntentResult>,
): Promise<void> {
  if (!deps.replies) return;
  const replies = intents.flatMap((intent) => {
    const result = results.get(intent.reqId);
    return intent.replyTo && result
      ? [{ replyTo: intent.replyTo, reqId: intent.reqId, result }]
      : [];
  });
  if (replies.length === 0) return;
  try {
    await sendReplies(deps.replies, replies);
  } catch (err) {
    deps.logger?.log('warn', 'ledger writer: replies not sent; requesters read their results', {
      replies: replies.length,
      error: `${(err as Error).name}: ${(err as Error).message}`,
    });
  }
}

/** `\u0000` is in neither an environment id nor a ledger name: no two ledgers share a key. */
const ledgerKey = (environment: string, name: string) => `${environment}\u0000${name}`;

async function sequencerFor(
  deps: WriterDeps,
  key: string,
  environment: string,
  name: string,
): Promise<LedgerSequencer> {
  let byLedger = sequencers.get(deps);
  if (!byLedger) {
    byLedger = new Map();
    sequencers.set(deps, byLedger);
  }
  const existing = byLedger.get(key);
  if (existing) return existing;
  const { doc, lookup } = deps.scopeFor(environment);
  const ledger = await lookup.resolve(environment, name);
  const sequencer = new LedgerSequencer({
    items: dynamoLedgerTable(doc, deps.tableFor(ledger.bucket), ledger),
    table: deps.tableFor(ledger.bucket),
    ledger,
    owner: deps.owner,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.leaseMs ? { leaseMs: deps.leaseMs } : {}),
    onCommitError: (err) =>
      deps.logger?.log('warn', 'ledger writer: commit failed, deciding again', {
        environment,
        ledger: name,
        error: `${(err as Error).name}: ${(err as Error).message}`,
        status: (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
      }),
  });
  byLedger.set(key, sequencer);
  return sequencer;
}
