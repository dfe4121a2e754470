/**
 * A relayed write's answer as the requester gives it (LedgerCommands over a real relay: fauxqs, DynamoDB Local
 * and the writer handler fed from the queue): the transaction as a direct write answers it; a refusal as its own
 * error; a request whose deadline passed before a writer got to it → 503 "not committed" (and it never is); no
 * writer at all → 504 "outcome unknown" once the deadline and grace are over.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import {
  InsufficientFundError,
  NotCommittedError,
  OutcomeUnknownError,
} from '../../../lib/errors/index.js';
import type { LedgerOperation } from '../../../lib/ledger/commands/operations.js';
import { DEFAULT_FEATURES } from '../../../lib/ledger/domain/features.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { TransactionReads } from '../../../lib/ledger/store/transaction-reads.js';
import { LedgerWriter } from '../../../lib/ledger/store/writer.js';
import { LedgerCommands } from '../../../lib/ledger/write/ledger-commands.js';
import { LedgerRelay } from '../../../lib/ledger/write/relay.js';
import { ReplyInbox } from '../../../lib/ledger/write/replies.js';
import { handleIntents, type WriterDeps } from '../../../lib/ledger/write/writer-handler.js';
import { createSqsClient } from '../../../lib/sqs/client.js';
import { testTables } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

let sqsLocal: SqsLocal;
let sqs: SQSClient;
let queueUrl: string;
let registry: LedgerRegistry;
let deps: WriterDeps;
let doc: DynamoDBDocumentClient;
let writer: LedgerWriter;
let ledgers: LedgerLookup;
let reads: TransactionReads;
const table = () => deps.tableFor('_default');

const create = (source: string, destination: string, amount: bigint): LedgerOperation => ({
  kind: 'create',
  input: { postings: [{ source, destination, amount, asset: 'USD' }] },
  options: { dryRun: false, force: false },
});

/** A relay that always relays (as on a ledger whose writer's lease is live), with its own deadline and grace. */
function relayed(relay: LedgerRelay): LedgerCommands {
  const alwaysRelay = Object.assign(Object.create(writer) as LedgerWriter, {
    writeOrRelay: async () => ({ relay: true as const }),
  });
  return new LedgerCommands({ writer: alwaysRelay, reads, relay });
}

interface RunningWriter {
  /** Resolves at the first receive after this call that finds the queue empty: all it held has been handled. */
  drained(): Promise<void>;
  /** Ends the loop after the batch in hand (answered and deleted), and waits for it. */
  stop(): Promise<void>;
}

/**
 * The writer's event source mapping, until stopped: receive, hand to the writer, delete what it answered. A test
 * stops it once what it waits for is answered, rather than after a fixed while; a writer nobody stops ends at the
 * wait limit (a hang, not a measure).
 */
function startWriter(writerDeps: WriterDeps = deps): RunningWriter {
  let stopped = false;
  const waiters: Array<() => void> = [];
  const loop = (async () => {
    const limit = Date.now() + WAIT_LIMIT_MS;
    while (!stopped && Date.now() < limit) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      if (Messages.length === 0) {
        for (const resolve of waiters.splice(0)) resolve();
        continue;
      }
      const { batchItemFailures } = await handleIntents(
        Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body! })),
        writerDeps,
      );
      const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
      const done = Messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length)
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
    }
  })();
  return {
    drained: () => new Promise<void>((resolve) => waiters.push(resolve)),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** A document client that counts its reads of result items (GetItem), for a relay to use. */
function countingResultReads() {
  let reads = 0;
  const counted = Object.assign(Object.create(doc) as typeof doc, {
    send: (command: unknown) => {
      if (command instanceof GetCommand) reads++;
      return doc.send(command as GetCommand);
    },
  });
  return { counted, resultReads: () => reads };
}

async function ledger(): Promise<string> {
  const name = `relay-${randomUUID().slice(0, 8)}`;
  await registry.create({
    environment: 'default',
    name,
    bucket: '_default',
    metadata: {},
    features: { ...DEFAULT_FEATURES },
    addedAt: new Date().toISOString(),
  });
  return name;
}

beforeAll(async () => {
  const { runtime, prefix } = await testTables();
  sqsLocal = await startSqsLocal();
  sqs = createSqsClient({ region: 'us-east-1', endpoint: sqsLocal.endpoint });
  queueUrl = (await ensureQueues(sqs, prefix)).LEDGER_INGRESS_QUEUE_URL!;
  doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  const buckets = new BucketTables(runtime.config.tables.ledger);
  registry = new LedgerRegistry(doc, buckets);
  const tableFor = () => runtime.config.tables.ledger;
  writer = new LedgerWriter({ doc, tableFor });
  ledgers = new LedgerLookup(registry);
  deps = {
    // One environment here (`default`): the writer's scope of every intent.
    scopeFor: () => ({ doc, lookup: ledgers }),
    tableFor,
    owner: randomUUID(),
  };
  reads = new TransactionReads(doc, tableFor);
});
afterAll(async () => {
  sqs?.destroy();
  await sqsLocal?.stop();
});

describe('a relayed write, as the requester answers it', () => {
  it('answers the committed transaction, and a refusal as its own error', async () => {
    const name = await ledger();
    const commands = relayed(
      new LedgerRelay({ doc: doc, sqs: async () => sqs, queueUrl, tableFor: table }),
    );
    const writing = startWriter();
    const lookup = await ledgers.resolve('default', name);
    try {
      const committed = await commands.execute(lookup, create('world', 'a', 7n));
      // The answer as it was written to the result item: exact JSON, integers as the exact parser reads them.
      expect(committed).toMatchObject({
        kind: 'committed',
        logId: 1n,
        result: {
          id: 1n,
          postCommitVolumes: { a: { USD: { input: 7n, output: 0n, balance: 7n } } },
        },
      });
      await expect(commands.execute(lookup, create('a', 'b', 8n))).rejects.toThrow(
        InsufficientFundError,
      );
    } finally {
      await writing.stop();
    }
    expect((await reads.get(lookup, 1))?.tx.postings).toEqual([
      { source: 'world', destination: 'a', amount: 7n, asset: 'USD' },
    ]);
    expect(await reads.get(lookup, 2)).toBeUndefined();
  });

  it('answers 503 "not committed" for a request whose deadline passed before a writer took it, and never commits it', async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    // The deadline is over before any writer runs: the writer answers it expired.
    const commands = relayed(
      new LedgerRelay({
        doc: doc,
        sqs: async () => sqs,
        queueUrl,
        tableFor: table,
        deadlineMs: 1_000,
        graceMs: 5_000,
      }),
    );
    const answer = commands.execute(lookup, create('world', 'a', 1n));
    answer.catch(() => undefined); // asserted below, once a writer has run
    await new Promise((r) => setTimeout(r, 1_200));
    const writing = startWriter();
    try {
      await expect(answer).rejects.toThrow(NotCommittedError);
    } finally {
      await writing.stop();
    }
    expect(await reads.get(lookup, 1)).toBeUndefined();
  });

  it('answers 504 "outcome unknown" when no writer answers by the deadline and its grace', async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    const commands = relayed(
      new LedgerRelay({
        doc: doc,
        sqs: async () => sqs,
        queueUrl,
        tableFor: table,
        deadlineMs: 300,
        graceMs: 300,
      }),
    );
    await expect(commands.execute(lookup, create('world', 'a', 1n))).rejects.toThrow(
      OutcomeUnknownError,
    );
    // Its message is left behind, past its deadline: a writer that takes it now answers it expired, never commits it.
    const writing = startWriter();
    try {
      await writing.drained();
    } finally {
      await writing.stop();
    }
    expect(await reads.get(lookup, 1)).toBeUndefined();
  });

  it('answers on the reply channel, without reading its result item, and falls back to the item when no reply comes', async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    // The relay's own document client, counting its reads of result items.
    const { counted, resultReads } = countingResultReads();
    const inbox = new ReplyInbox({
      sqs: async () => sqs,
      ingressQueueUrl: queueUrl,
      waitSeconds: 1,
    });
    const withChannel = relayed(
      new LedgerRelay({
        doc: counted,
        sqs: async () => sqs,
        queueUrl,
        tableFor: table,
        inbox: async () => inbox,
        // Far beyond the test's run: only a reply can answer in time.
        replyLateMs: 60_000,
      }),
    );
    const replying: WriterDeps = { ...deps, replies: sqs };
    const writing = startWriter(replying);
    try {
      const answers = await Promise.all([
        withChannel.execute(lookup, create('world', 'a', 5n)),
        withChannel.execute(lookup, create('world', 'b', 6n)),
      ]);
      expect(answers.map((a) => (a as { result: { id: bigint } }).result.id).sort()).toEqual([
        1n,
        2n,
      ]);
      await expect(withChannel.execute(lookup, create('a', 'c', 9n))).rejects.toThrow(
        InsufficientFundError,
      );
    } finally {
      await writing.stop();
    }
    expect(resultReads()).toBe(0);
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
    const ingressName = queueUrl.slice(queueUrl.lastIndexOf('/') + 1);
    expect(QueueUrls.some((url) => new RegExp(`/${ingressName}-r-[0-9a-f]{12}$`).test(url))).toBe(
      true,
    );

    // A writer that sends no replies: the requester reads its result item once the reply is late.
    const fallback = relayed(
      new LedgerRelay({
        doc: counted,
        sqs: async () => sqs,
        queueUrl,
        tableFor: table,
        inbox: async () => inbox,
        replyLateMs: 200,
      }),
    );
    const silent = startWriter(deps);
    try {
      const answer = await fallback.execute(lookup, create('world', 'd', 1n));
      expect((answer as { result: { id: bigint } }).result.id).toBe(3n);
    } finally {
      await silent.stop();
    }
    expect(resultReads()).toBeGreaterThanOrEqual(1);
  });

  it("reads a late reply's result item less and less often, sending the request again every 2 s, until it gives up", async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    // No writer runs: no reply and no result item ever come. The relay's clock moves only when it pauses.
    let clock = 0;
    const pauses: number[] = [];
    const { counted, resultReads } = countingResultReads();
    const relay = new LedgerRelay({
      doc: counted,
      sqs: async () => sqs,
      queueUrl,
      tableFor: table,
      inbox: async () =>
        new ReplyInbox({ sqs: async () => sqs, ingressQueueUrl: queueUrl, waitSeconds: 1 }),
      replyLateMs: 100,
      deadlineMs: 3_000,
      graceMs: 0,
      now: () => clock,
      sleep: async (ms) => {
        pauses.push(ms);
        clock += ms;
      },
    });
    const answer = await relay.submit(lookup, create('world', 'a', 1n));
    expect(answer).toEqual({ status: 'unknown' });
    // The reply's wait, then reads doubling from 50 ms to 1 s: not one every 20 ms from every waiting request.
    expect(pauses).toEqual([100, 50, 100, 200, 400, 800, 1_000, 1_000]);
    expect(resultReads()).toBe(8);
    // Sent at 0 and again at 2,650 (unanswered for 2 s): both copies are on the queue, the same request id.
    const bodies: string[] = [];
    for (let i = 0; i < 5 && bodies.length < 2; i++) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      bodies.push(...Messages.map((m) => m.Body!).filter((b) => b.includes(name)));
    }
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toBe(bodies[1]);
  });

  it('creates its reply queue again when it was deleted, answering meanwhile from the result item', async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    const inbox = new ReplyInbox({
      sqs: async () => sqs,
      ingressQueueUrl: queueUrl,
      waitSeconds: 1,
    });
    const relay = (replyLateMs: number) =>
      relayed(
        new LedgerRelay({
          doc: doc,
          sqs: async () => sqs,
          queueUrl,
          tableFor: table,
          inbox: async () => inbox,
          replyLateMs,
        }),
      );
    const replying: WriterDeps = { ...deps, replies: sqs };
    const first = await inbox.address();
    await sqs.send(new DeleteQueueCommand({ QueueUrl: first }));
    const writing = startWriter(replying);
    try {
      // The reply goes to a queue that is gone: the requester reads its result item.
      const late = await relay(200).execute(lookup, create('world', 'a', 1n));
      expect((late as { result: { id: bigint } }).result.id).toBe(1n);
      // The failed receive dropped the queue: the next write creates another and is answered on it.
      const answered = await relay(60_000).execute(lookup, create('world', 'b', 2n));
      expect((answered as { result: { id: bigint } }).result.id).toBe(2n);
    } finally {
      await writing.stop();
    }
    const second = await inbox.address();
    expect(second).not.toBe(first);
  });
  it('answers a commit as soon as its transaction can be read, before its result item; a refusal only after its item', async () => {
    const name = await ledger();
    const lookup = await ledgers.resolve('default', name);
    // The writer's document client, holding every write of result items until the gate opens.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let heldResultWrites = 0;
    const writesResults = (command: unknown) =>
      command instanceof BatchWriteCommand &&
      Object.values(command.input.RequestItems ?? {}).some((requests) =>
        requests.some((r) => r.PutRequest?.Item && 'result' in r.PutRequest.Item),
      );
    const gated = Object.assign(Object.create(doc) as typeof doc, {
      send: async (command: unknown) => {
        if (writesResults(command)) {
          heldResultWrites++;
          await gate;
        }
        return doc.send(command as GetCommand);
      },
    });
    const inbox = new ReplyInbox({
      sqs: async () => sqs,
      ingressQueueUrl: queueUrl,
      waitSeconds: 1,
    });
    const requester = relayed(
      new LedgerRelay({
        doc,
        sqs: async () => sqs,
        queueUrl,
        tableFor: table,
        inbox: async () => inbox,
        replyLateMs: 60_000,
      }),
    );
    const early: WriterDeps = {
      ...deps,
      scopeFor: () => ({ doc: gated, lookup: ledgers }),
      replies: sqs,
    };
    // Both requests wait on the queue before the writer starts: one batch decides them.
    const committed = requester.execute(lookup, create('world', 'a', 5n));
    const refused = requester.execute(lookup, create('a', 'c', 9n));
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        () => 'answered',
      );
    await new Promise((r) => setTimeout(r, 300));
    const writing = startWriter(early);
    try {
      expect(((await committed) as { result: { id: bigint } }).result.id).toBe(1n);
      // Answered while its result item is still held.
      expect(heldResultWrites).toBe(1);
      const waiting = new Promise((r) => setTimeout(() => r('waiting'), 800));
      expect(await Promise.race([outcome(refused), waiting])).toBe('waiting');
      open();
      await expect(refused).rejects.toThrow(InsufficientFundError);
    } finally {
      open();
      await writing.stop();
    }
  });
});
