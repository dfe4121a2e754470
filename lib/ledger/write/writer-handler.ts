import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
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
 * What a container keeps across invocations: one sequencer per (environment, ledger), whose cache stays warm
 * while HEAD is unchanged (keyed by `ledgerKey`: ledgers of two environments may share a name); the intents
 * being decided that wait for a reply; and the requests still travelling.
 */
interface Container {
  sequencers: Map<string, LedgerSequencer>;
  awaitingReply: Map<string, Intent>;
  background: Background;
}

const containers = new WeakMap<WriterDeps, Container>();

function containerOf(deps: WriterDeps): Container {
  let container = containers.get(deps);
  if (!container) {
    container = { sequencers: new Map(), awaitingReply: new Map(), background: new Background() };
    containers.set(deps, container);
  }
  return container;
}

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
  const { background } = containerOf(deps);
  try {
    const result = await processRecords(records, deps);
    if (deps.ingress) await drain(deps, deps.ingress, background);
    return result;
  } finally {
    // A Lambda is frozen once its handler returns: replies and deletes still in flight are finished first.
    await background.settled();
  }
}

/**
 * Requests the writer starts and does not wait for before its next round (replies, deletes): their outcome
 * changes no decision, so the next batch is received and decided while they travel. Each one handles its own
 * failure; the invocation waits for all of them before it ends.
 */
class Background {
  private readonly running = new Set<Promise<void>>();

  add(work: Promise<void>): void {
    const tracked = work.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }
}

/** Receives per drain round, in parallel (10 messages each: SQS's maximum): at most, and at least. */
const DRAIN_RECEIVES = 6;
const DRAIN_RECEIVES_MIN = 2;

/** As many receives as the last round's messages needed, and room to grow: a quiet queue costs two a round. */
export const receivesAfter = (messages: number) =>
  Math.min(DRAIN_RECEIVES, Math.floor(messages / 10) + DRAIN_RECEIVES_MIN);

/**
 * Takes the queue's messages directly until a round finds none or `drainMs` has passed: each round is one batch
 * per ledger. A round's messages are deleted in the background once decided, while the next round is received;
 * messages whose ledger failed stay on the queue (visible again after its timeout).
 */
async function drain(
  deps: WriterDeps,
  ingress: NonNullable<WriterDeps['ingress']>,
  background: Background,
): Promise<void> {
  const now = deps.now ?? Date.now;
  const until = now() + ingress.drainMs;
  let receives = DRAIN_RECEIVES_MIN;
  while (now() < until) {
    const messages = await receiveRound(ingress, receives);
    if (messages.length === 0) return;
    receives = receivesAfter(messages.length);
    const { batchItemFailures } = await processRecords(
      messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '' })),
      deps,
    );
    const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
    background.add(
      deleteMessages(
        ingress,
        messages.filter((m) => !failed.has(m.MessageId!)),
        deps.logger,
      ),
    );
  }
}

type QueueMessage = NonNullable<ReceiveMessageCommandOutput['Messages']>[number];

/** What is waiting now (`receives` at once); when nothing is, one long poll for stragglers. */
async function receiveRound(
  ingress: NonNullable<WriterDeps['ingress']>,
  receives: number,
): Promise<QueueMessage[]> {
  const receive = (waitSeconds: number) =>
    ingress.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: ingress.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
  const messages = (await Promise.all(Array.from({ length: receives }, () => receive(0)))).flatMap(
    (r) => r.Messages ?? [],
  );
  return messages.length > 0 ? messages : ((await receive(1)).Messages ?? []);
}

/**
 * Decided messages off the queue, 10 per request, all at once. A delete that fails only brings its message back
 * after the visibility timeout, and its request is answered from what was decided (never decided twice).
 */
async function deleteMessages(
  ingress: NonNullable<WriterDeps['ingress']>,
  done: readonly QueueMessage[],
  logger: Logger | undefined,
): Promise<void> {
  const batches = [];
  for (let i = 0; i < done.length; i += 10) batches.push(done.slice(i, i + 10));
  const sent = await Promise.allSettled(
    batches.map((batch) =>
      ingress.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: ingress.queueUrl,
          Entries: batch.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })),
        }),
      ),
    ),
  );
  for (const outcome of sent)
    if (outcome.status === 'rejected')
      logger?.log(
        'warn',
        'ledger writer: decided messages not deleted; they come back and are answered again',
        {
          error: (outcome.reason as Error).message,
        },
      );
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
            const { results, deferred, unreplied } = await processAwaitingReplies(
              deps,
              sequencer,
              pending,
            );
            replyLater(deps, unreplied, results);
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

/**
 * One sequencer round, its intents that name a reply queue registered first: committed ones are replied to as
 * soon as their transactions can be read (`onReadable`), the others once the round's result items are written.
 */
async function processAwaitingReplies(
  deps: WriterDeps,
  sequencer: LedgerSequencer,
  intents: readonly Intent[],
): Promise<{ results: Map<string, IntentResult>; deferred: Intent[]; unreplied: Intent[] }> {
  const { awaitingReply } = containerOf(deps);
  for (const intent of intents) if (intent.replyTo) awaitingReply.set(intent.reqId, intent);
  try {
    const processed = await sequencer.process(intents);
    return { ...processed, unreplied: intents.filter((i) => awaitingReply.has(i.reqId)) };
  } finally {
    // What was not replied to early is replied to by the caller, or not at all (a failed round comes back).
    for (const intent of intents) awaitingReply.delete(intent.reqId);
  }
}

/** Replies to those of `intents` still waiting for one, in the background (the next round does not wait). */
function replyLater(
  deps: WriterDeps,
  intents: readonly Intent[],
  results: ReadonlyMap<string, IntentResult>,
): void {
  containerOf(deps).background.add(reply(deps, intents, results));
}

/** A sequencer's committed answers, readable now: replied to at once; later replies skip them. */
function replyReadable(deps: WriterDeps, results: ReadonlyMap<string, IntentResult>): void {
  const { awaitingReply } = containerOf(deps);
  const intents: Intent[] = [];
  for (const [reqId, result] of results) {
    const intent = awaitingReply.get(reqId);
    // Only commits: they are in the log, so a copy of the request that comes back is answered from it. A
    // refusal is replied to after its result item is written, which is what answers a copy of it.
    if (!intent || result.status !== 'committed') continue;
    awaitingReply.delete(reqId);
    intents.push(intent);
  }
  if (intents.length > 0) replyLater(deps, intents, results);
}

/** `\u0000` is in neither an environment id nor a ledger name: no two ledgers share a key. */
const ledgerKey = (environment: string, name: string) => `${environment}\u0000${name}`;

async function sequencerFor(
  deps: WriterDeps,
  key: string,
  environment: string,
  name: string,
): Promise<LedgerSequencer> {
  const byLedger = containerOf(deps).sequencers;
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
    ...(deps.replies ? { onReadable: (results) => replyReadable(deps, results) } : {}),
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
