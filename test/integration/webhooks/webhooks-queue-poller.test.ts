/**
 * The deliveries queue on the embedded runtime (fauxqs + the queue poller + deliver + DynamoDB Local), with a
 * 1 s visibility timeout: a handler that dies mid-batch loses nothing and sends nothing twice; a message that
 * cannot be processed reaches the dead-letter queue after maxReceiveCount receives; a batch response naming a
 * message that is not in the batch fails the whole batch, as Lambda does.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueuePoller,
  type QueuePoller,
  type QueueRecord,
} from '../../../infra/local/pollers/queue-poller.js';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { formatInstant, instantFromMs } from '../../../lib/time/instant.js';
import {
  type DeliverDeps,
  deliverBatch,
  deliverRecord,
} from '../../../lib/webhooks/deliver/deliver-batch.js';
import { newConfig, newConfigId } from '../../../lib/webhooks/domain/config.js';
import type { Delivery } from '../../../lib/webhooks/domain/delivery.js';
import { ConfigStore } from '../../../lib/webhooks/store/config-store.js';
import { encodeDeliveryMessage } from '../../../lib/webhooks/store/delivery-queue.js';
import { DeliveryStore } from '../../../lib/webhooks/store/delivery-store.js';
import { pendingDelivery } from '../../support/deliveries.js';
import { localSqsClient } from '../../support/sqs.js';
import { testTables } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

/** One environment throughout: the queue's behaviour does not depend on it. */
const ENV = 'default';
let runtime: ServiceRuntime;
let table: string;
let sqsLocal: SqsLocal;
let sqs: SQSClient;
let server: http.Server;
let receiverUrl: string;
let store: DeliveryStore;
let poller: QueuePoller | undefined;
/** `webhook-id` of every request the receiver got. */
const received: string[] = [];
const logs: Array<{ level: string; message: string }> = [];
const logger: Logger = { log: (level, message) => void logs.push({ level, message }) };

beforeAll(async () => {
  ({ runtime } = await testTables());
  table = runtime.config.tables.webhooks;
  store = new DeliveryStore({ doc: runtime.doc, table, environment: ENV });
  sqsLocal = await startSqsLocal();
  sqs = localSqsClient(sqsLocal.endpoint);
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterEach(async () => {
  await poller?.stop();
  poller = undefined;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  sqs?.destroy();
  await sqsLocal?.stop();
});

/** A fresh deliveries queue (and DLQ) from the shared definitions, made quick: 1 s visibility, 2 receives. */
async function freshQueue(): Promise<{ queueUrl: string; dlqUrl: string }> {
  const prefix = `q${randomBytes(4).toString('hex')}-`;
  const queueUrl = (await ensureQueues(sqs, prefix)).DELIVERIES_QUEUE_URL!;
  const { QueueUrl: dlqUrl } = await sqs.send(
    new GetQueueUrlCommand({ QueueName: `${prefix}deliveries-dlq` }),
  );
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: queueUrl,
      Attributes: {
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes.QueueArn,
          maxReceiveCount: 2,
        }),
      },
    }),
  );
  return { queueUrl, dlqUrl: dlqUrl! };
}

async function count(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
}

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = WAIT_LIMIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pendingDeliveries(n: number): Promise<Delivery[]> {
  const now = formatInstant(instantFromMs(Date.now()));
  const config = await new ConfigStore({ doc: runtime.doc, table, environment: ENV }).create(
    newConfig(
      { endpoint: receiverUrl, eventTypes: ['ledger.committed_transactions'] },
      newConfigId(),
      now,
    ),
  );
  const out: Delivery[] = [];
  for (let i = 0; i < n; i++) {
    const d = pendingDelivery(config.id, now);
    expect(await store.create(d)).toBe(true);
    out.push(d);
  }
  return out;
}

const send = (queueUrl: string, bodies: string[]) =>
  sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })),
    }),
  );

const depsFor = (queueUrl: string): DeliverDeps => ({
  doc: runtime.doc,
  table,
  sqs,
  queueUrl,
  logger,
  allowLoopback: true,
  timeoutMs: 5_000,
});

describe('the deliveries queue on the embedded runtime', () => {
  it('a handler that dies after delivering part of its batch loses nothing and sends each delivery once', async () => {
    const { queueUrl } = await freshQueue();
    const deliveries = await pendingDeliveries(4);
    // Sent before the poller starts, so the first receive takes all four as one batch.
    await send(
      queueUrl,
      deliveries.map((d) => encodeDeliveryMessage(ENV, d.id)),
    );
    const batches: string[][] = [];
    poller = createQueuePoller({
      sqs,
      queueUrl,
      logger,
      handler: async (records: QueueRecord[]) => {
        batches.push(records.map((r) => r.body));
        if (batches.length === 1) {
          // The first invocation delivers two messages, then crashes: no batch response at all.
          for (const record of records.slice(0, 2)) await deliverRecord(record, depsFor(queueUrl));
          throw new Error('the function crashed mid-batch');
        }
        return deliverBatch(records, depsFor(queueUrl));
      },
    });
    poller.start();

    await until('every delivery to succeed', async () =>
      (await Promise.all(deliveries.map((d) => store.get(d.id)))).every(
        (d) => d?.status === 'succeeded',
      ),
    );
    await until('the queue to drain', async () => (await count(queueUrl)) === 0);
    expect(batches[0]).toHaveLength(4);
    // The whole crashed batch came back after the visibility timeout; the two already delivered were not sent again.
    expect(batches.slice(1).flat().sort()).toEqual(
      deliveries.map((d) => encodeDeliveryMessage(ENV, d.id)).sort(),
    );
    expect(received.filter((id) => deliveries.some((d) => d.id === id)).sort()).toEqual(
      deliveries.map((d) => d.id).sort(),
    );
    for (const d of deliveries) {
      expect(await store.get(d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(
        (await store.attempts(d.id, { pageSize: 10 })).data.map((a) => [a.attempt, a.statusCode]),
      ).toEqual([[1, 200]]);
    }
    expect(logs.some((l) => l.level === 'error' && l.message === 'queue batch failed')).toBe(true);
  });

  it('a message that cannot be processed reaches the DLQ after maxReceiveCount receives; the rest is delivered', async () => {
    const { queueUrl, dlqUrl } = await freshQueue();
    const [good] = await pendingDeliveries(1);
    await send(queueUrl, ['not a delivery message', encodeDeliveryMessage(ENV, good!.id)]);
    const seen: string[] = [];
    poller = createQueuePoller({
      sqs,
      queueUrl,
      logger,
      handler: async (records) => {
        seen.push(...records.map((r) => r.body));
        return deliverBatch(records, depsFor(queueUrl));
      },
    });
    poller.start();

    await until('the bad message to reach the DLQ', async () => (await count(dlqUrl)) === 1);
    await until('the queue to drain', async () => (await count(queueUrl)) === 0);
    await poller.stop();
    // Received (and reported failed) exactly maxReceiveCount times, then moved by the queue, never dropped.
    expect(seen.filter((b) => b === 'not a delivery message')).toHaveLength(2);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 }),
    );
    expect(Messages.map((m) => m.Body)).toEqual(['not a delivery message']);
    expect(await store.get(good!.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(received.filter((id) => id === good!.id)).toHaveLength(1);
  });

  it('a batch response naming a message not in the batch fails the whole batch (nothing deleted)', async () => {
    const { queueUrl } = await freshQueue();
    await send(queueUrl, ['one', 'two']);
    const batches: string[][] = [];
    poller = createQueuePoller({
      sqs,
      queueUrl,
      logger,
      handler: async (records) => {
        batches.push(records.map((r) => r.body).sort());
        return {
          batchItemFailures: batches.length === 1 ? [{ itemIdentifier: 'no-such-message' }] : [],
        };
      },
    });
    poller.start();
    await until(
      'the batch to come back and be accepted',
      async () => batches.length >= 2 && (await count(queueUrl)) === 0,
    );
    expect(batches.flat().filter((b) => b === 'one')).toHaveLength(2);
    expect(batches.flat().filter((b) => b === 'two')).toHaveLength(2);
  });
});
