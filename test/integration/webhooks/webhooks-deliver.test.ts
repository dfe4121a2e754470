import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { eventIdOf } from '../../../lib/events/envelope.js';
import { eventKey } from '../../../lib/events/outbox.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { formatInstant, instantFromMs } from '../../../lib/time/instant.js';
import { type DeliverDeps, deliverBatch } from '../../../lib/webhooks/deliver/deliver-batch.js';
import { dispatchBatch } from '../../../lib/webhooks/dispatch/dispatch-batch.js';
import { newConfig, newConfigId, type WebhookConfig } from '../../../lib/webhooks/domain/config.js';
import { type Delivery, deliveryId } from '../../../lib/webhooks/domain/delivery.js';
import { activated } from '../../../lib/webhooks/domain/endpoint-health.js';
import { verify } from '../../../lib/webhooks/receiver/verify.js';
import { ConfigStore } from '../../../lib/webhooks/store/config-store.js';
import { encodeDeliveryMessage } from '../../../lib/webhooks/store/delivery-queue.js';
import { DeliveryStore } from '../../../lib/webhooks/store/delivery-store.js';
import { deliveryKeys } from '../../../lib/webhooks/store/keys.js';
import { localSqsClient } from '../../support/sqs.js';
import { testTables } from '../../support/tables.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}
interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** These tests deliver in one environment; webhooks-environments.test.ts crosses them. */
const ENV = 'default';
const secretOf = () => `whsec_${randomBytes(32).toString('base64')}`;
// Whole seconds, near real time: the standardwebhooks library checks the timestamp against its own clock.
const START = Math.floor(Date.now() / 1000) * 1000;

let runtime: ServiceRuntime;
let testEnv: NodeJS.ProcessEnv;
let prefix: string;
let table: string;
let sqsLocal: SqsLocal;
let sqs: SQSClient;
let server: http.Server;
let receiverUrl: string;
let configs: ConfigStore;
let clock = START;
let received: Received[] = [];
let replies: Reply[] = [];
let queueName: string;
let queueUrl: string;
let queueCount = 0;
const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = {
  log: (level, message, fields) =>
    void logs.push({ level, message, ...(fields ? { fields } : {}) }),
};

const deps = (overrides: Partial<DeliverDeps> = {}): DeliverDeps => ({
  doc: runtime.doc,
  table,
  sqs,
  queueUrl,
  logger,
  allowLoopback: true,
  now: () => clock,
  random: () => 0.5,
  timeoutMs: 5_000,
  eventsTable: testEnv.EVENTS_TABLE!,
  ...overrides,
});
const run = (bodies: string[], overrides: Partial<DeliverDeps> = {}) =>
  deliverBatch(
    bodies.map((body, i) => ({ messageId: `m${i}`, body })),
    deps(overrides),
  );

async function config(overrides: Partial<WebhookConfig> = {}): Promise<WebhookConfig> {
  const now = formatInstant(instantFromMs(clock));
  const created = newConfig(
    {
      endpoint: `${receiverUrl}/hook`,
      eventTypes: ['ledger.committed_transactions'],
      secret: secretOf(),
    },
    newConfigId(),
    now,
  );
  return configs.create({ ...created, ...overrides });
}

async function delivery(configId: string, overrides: Partial<Delivery> = {}): Promise<Delivery> {
  const eventId = randomUUID();
  const id = deliveryId(eventId, configId);
  const createdAt = formatInstant(instantFromMs(clock));
  // A body whose exact bytes matter: key order, spacing, unicode, a big number.
  const body = `{"id":"${eventId}","type":"ledger.committed_transactions", "payload":{"amount":123456789012345678901234567890,"note":"é ✓"}}`;
  const record: Delivery = {
    id,
    configId,
    eventId,
    eventType: 'ledger.committed_transactions',
    body,
    status: 'pending',
    attempts: 0,
    replayGeneration: 0,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
  // As the dispatcher creates it: with its filter index items.
  expect(
    await new DeliveryStore({ doc: runtime.doc, table, environment: ENV }).create(record),
  ).toBe(true);
  return record;
}

const stored = async (id: string) =>
  (
    await runtime.doc.send(
      new GetCommand({
        TableName: table,
        Key: deliveryKeys.delivery(ENV, id),
        ConsistentRead: true,
      }),
    )
  ).Item as Record<string, any>;
async function attempts(id: string): Promise<Array<Record<string, any>>> {
  const { Items } = await runtime.doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :a)',
      ExpressionAttributeValues: { ':p': `E#default#DELIVERY#${id}`, ':a': 'ATTEMPT#' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** The queue's messages, delayed ones included, without consuming them (fauxqs inspection endpoint). */
async function queued(): Promise<Array<{ body: string; delaySeconds: number }>> {
  const res = await fetch(`${sqsLocal.endpoint}/_fauxqs/queues/${queueName}`);
  const state = (await res.json()) as {
    messages: Record<
      'ready' | 'delayed',
      Array<{ body: string; sentTimestamp: number; delayUntil?: number }>
    >;
  };
  return [...state.messages.ready, ...state.messages.delayed].map((m) => ({
    body: m.body,
    delaySeconds:
      m.delayUntil === undefined ? 0 : Math.round((m.delayUntil - m.sentTimestamp) / 1000),
  }));
}

beforeAll(async () => {
  let env: NodeJS.ProcessEnv;
  ({ runtime, prefix, variables: env } = await testTables());
  testEnv = env;
  table = env.WEBHOOKS_TABLE!;
  configs = new ConfigStore({ doc: runtime.doc, table, environment: ENV, now: () => clock });
  sqsLocal = await startSqsLocal();
  sqs = localSqsClient(sqsLocal.endpoint);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.shift() ?? { status: 200, body: 'ok' };
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  sqs?.destroy();
  await sqsLocal?.stop();
});

beforeEach(async () => {
  clock = START;
  received = [];
  replies = [];
  // A fresh queue per test, so what a test reads back is what it sent.
  const queuePrefix = `${prefix}q${++queueCount}-`;
  queueUrl = (await ensureQueues(sqs, queuePrefix)).DELIVERIES_QUEUE_URL!;
  queueName = `${queuePrefix}deliveries`;
});

describe('deliver', () => {
  it('signs and POSTs the exact body; the receiver verifies it with ours and with standardwebhooks', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 200, body: 'thanks' });
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });

    expect(received).toHaveLength(1);
    const [{ headers, body }] = received as [Received];
    expect(body).toBe(d.body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe(d.id);
    expect(headers['service-webhook-id']).toBe(d.id);
    expect(headers['webhook-timestamp']).toBe(String(START / 1000));
    expect(headers['service-webhook-signature']).toBe(headers['webhook-signature']);
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(
      verify(
        headers['webhook-signature'],
        headers['webhook-id'],
        headers['webhook-timestamp'],
        c.secret,
        body,
      ),
    ).toBe(true);
    expect(
      verify(
        headers['webhook-signature'],
        headers['webhook-id'],
        headers['webhook-timestamp'],
        secretOf(),
        body,
      ),
    ).toBe(false);
    expect(new Webhook(c.secret).verify(body, headers as Record<string, string>)).toEqual(
      JSON.parse(body),
    );

    expect(await stored(d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect((await stored(d.id)).nextAttemptAt).toBeUndefined();
    const list = await attempts(d.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      sk: 'ATTEMPT#0001',
      deliveryId: d.id,
      attempt: 1,
      statusCode: 200,
      responsePreview: 'thanks',
      at: formatInstant(instantFromMs(START)),
      endpoint: c.endpoint,
      outcome: 'succeeded',
      replayGeneration: 0,
    });
    expect(await stored(d.id)).toMatchObject({
      lastAttempt: 1,
      lastAttemptAt: formatInstant(instantFromMs(START)),
      lastStatusCode: 200,
    });
    expect(list[0]!.error).toBeUndefined();
    expect(typeof list[0]!.durationMs).toBe('number');
    expect(await queued()).toEqual([]);
  });

  it('with the deployment setting, also sends the reference names formance-webhook-*, which verify alike', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 200, body: 'thanks' });
    const headerSets = ['service', 'standard', 'formance'] as const;
    expect(await run([encodeDeliveryMessage(ENV, d.id)], { headerSets })).toEqual({
      batchItemFailures: [],
    });
    const [{ headers, body }] = received as [Received];
    expect(headers['formance-webhook-id']).toBe(d.id);
    expect(headers['formance-webhook-timestamp']).toBe(String(START / 1000));
    expect(headers['formance-webhook-signature']).toBe(headers['webhook-signature']);
    expect(headers['service-webhook-id']).toBe(d.id);
    expect(
      verify(
        headers['formance-webhook-signature'],
        headers['formance-webhook-id'],
        headers['formance-webhook-timestamp'],
        c.secret,
        body,
      ),
    ).toBe(true);
  });

  it('500 then 200: the same message is re-enqueued with the schedule delay and the retry keeps the delivery id', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 500, body: 'x'.repeat(5000) });
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
    expect(await stored(d.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: START + 5000,
    });
    const first = await attempts(d.id);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ attempt: 1, statusCode: 500 });
    expect(first[0]!.responsePreview).toHaveLength(4096);

    const messages = await queued();
    expect(messages).toEqual([{ body: encodeDeliveryMessage(ENV, d.id), delaySeconds: 5 }]);

    clock = START + 5000;
    expect(await run([messages[0]!.body])).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(2);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([d.id, d.id]);
    expect(received[1]!.headers['webhook-timestamp']).toBe(String(START / 1000 + 5));
    expect(received[1]!.body).toBe(d.body);
    expect(await stored(d.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await attempts(d.id)).map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(await queued()).toHaveLength(1); // only the message already handed to us (the test read it, did not delete it)
  });

  it('honours a longer Retry-After, and hops a wait longer than 900 s without sending', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 503, headers: { 'retry-after': '60' } });
    await run([encodeDeliveryMessage(ENV, d.id)]);
    expect(await stored(d.id)).toMatchObject({ status: 'pending', nextAttemptAt: START + 60_000 });
    expect((await queued()).map((m) => m.delaySeconds)).toEqual([60]);

    // Attempt 3 failed: the next wait is 30 min → 900 s now, the rest when the message arrives early.
    const later = await delivery(c.id, { attempts: 2, nextAttemptAt: START });
    replies.push({ status: 500 });
    await run([encodeDeliveryMessage(ENV, later.id)]);
    expect(await stored(later.id)).toMatchObject({
      attempts: 3,
      nextAttemptAt: START + 30 * 60_000,
    });
    expect((await queued()).map((m) => m.delaySeconds)).toEqual([60, 900]);
    const sent = received.length;

    clock = START + 900_000;
    expect(await run([encodeDeliveryMessage(ENV, later.id)])).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(sent); // early: nothing sent, nothing recorded
    expect(await attempts(later.id)).toHaveLength(3 - 2);
    expect((await queued()).map((m) => m.delaySeconds)).toEqual([60, 900, 900]);
    clock = START + 1_799_500;
    await run([encodeDeliveryMessage(ENV, later.id)]);
    expect((await queued()).map((m) => m.delaySeconds)).toEqual([60, 900, 900, 1]); // rounded up, never early
    expect(received).toHaveLength(sent);
  });

  it("410 deactivates the config, ends the delivery failed and cancels the config's other pending deliveries", async () => {
    const c = await config();
    const d = await delivery(c.id);
    const waiting = await delivery(c.id, { attempts: 2, nextAttemptAt: START + 60_000 });
    replies.push({ status: 410, body: 'gone' });
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
    expect((await configs.get(c.id))!.active).toBe(false);
    expect(await stored(d.id)).toMatchObject({ status: 'failed', attempts: 1 });
    // Cancelled at once, before its own message arrives.
    expect(await stored(waiting.id)).toMatchObject({ status: 'cancelled', attempts: 2 });
    expect((await stored(waiting.id)).nextAttemptAt).toBeUndefined();
    expect((await attempts(d.id))[0]).toMatchObject({
      statusCode: 410,
      responsePreview: 'gone',
      outcome: 'permanent_failure',
    });
    expect(await queued()).toEqual([]);

    // The config's other pending deliveries are cancelled when their messages arrive.
    const other = await delivery(c.id);
    await run([encodeDeliveryMessage(ENV, other.id)]);
    expect(await stored(other.id)).toMatchObject({ status: 'cancelled', attempts: 0 });
    expect(received).toHaveLength(1);
  });

  it('an inactive or deleted config cancels the delivery without a POST', async () => {
    const c = await config({ active: false });
    const d = await delivery(c.id);
    const orphan = await delivery(randomUUID());
    expect(
      await run([encodeDeliveryMessage(ENV, d.id), encodeDeliveryMessage(ENV, orphan.id)]),
    ).toEqual({
      batchItemFailures: [],
    });
    expect(received).toEqual([]);
    expect(await stored(d.id)).toMatchObject({ status: 'cancelled', attempts: 0 });
    expect(await stored(orphan.id)).toMatchObject({ status: 'cancelled' });
    expect(await attempts(d.id)).toEqual([]);
  });

  it('a redelivered message for a finished delivery, or for a missing one, sends nothing', async () => {
    const c = await config();
    const d = await delivery(c.id);
    await run([encodeDeliveryMessage(ENV, d.id)]);
    expect(received).toHaveLength(1);
    expect(
      await run([encodeDeliveryMessage(ENV, d.id), encodeDeliveryMessage(ENV, '0'.repeat(32))]),
    ).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(1);
    expect(await attempts(d.id)).toHaveLength(1);
  });

  it('two concurrent receipts of one message send one attempt', async () => {
    const c = await config();
    const d = await delivery(c.id);
    const message = encodeDeliveryMessage(ENV, d.id);
    const results = await Promise.all([run([message]), run([message]), run([message])]);
    expect(results.every((r) => r.batchItemFailures.length === 0)).toBe(true);
    expect(received).toHaveLength(1);
    expect(await stored(d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a duplicate of the message read while the attempt is in flight hops instead of sending the next attempt early', async () => {
    const c = await config();
    const d = await delivery(c.id);
    const message = encodeDeliveryMessage(ENV, d.id);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let posts = 0;
    // The first receipt's POST hangs (a slow receiver answering 500 in the end); the duplicate runs meanwhile.
    const first = run([message], {
      post: async () => {
        posts++;
        await held;
        return { status: 500, durationMs: 1, bodyPreview: 'busy' };
      },
    });
    await expect.poll(() => posts).toBe(1);
    const duplicate = await run([message], {
      post: async () => {
        posts++;
        return { status: 200, durationMs: 1, bodyPreview: 'ok' };
      },
    });
    expect(duplicate.batchItemFailures).toEqual([]);
    expect(posts).toBe(1);
    const during = await stored(d.id);
    expect(during).toMatchObject({ status: 'pending', attempts: 1 });
    expect(during.nextAttemptAt).toBe(clock + 5_000 + 15_000);
    release();
    await first;
    // The first receipt records attempt 1 and schedules attempt 2 on the retry schedule (5 s, jitter at 0.5).
    const after = await stored(d.id);
    expect(after).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after.nextAttemptAt).toBe(clock + 5_000);
    expect(await attempts(d.id)).toHaveLength(1);
    // Both messages are queued again: the duplicate's hop and the retry; neither sends before attempt 2 is due.
    expect((await queued()).filter((m) => m.body === message)).toHaveLength(2);
  });

  it('reports undecodable messages as failures (they reach the DLQ), the rest of the batch still delivered', async () => {
    const c = await config();
    const d = await delivery(c.id);
    const result = await deliverBatch(
      [
        { messageId: 'bad-json', body: 'not json' },
        { messageId: 'good', body: encodeDeliveryMessage(ENV, d.id) },
        { messageId: 'bad-id', body: '{"deliveryId":"../x"}' },
        { messageId: 'bad-env', body: JSON.stringify({ environment: 'E#x', deliveryId: d.id }) },
        { messageId: 'null-env', body: JSON.stringify({ environment: null, deliveryId: d.id }) },
      ],
      deps(),
    );
    expect(result.batchItemFailures).toEqual([
      { itemIdentifier: 'bad-json' },
      { itemIdentifier: 'bad-id' },
      { itemIdentifier: 'bad-env' },
      { itemIdentifier: 'null-env' },
    ]);
    expect(received).toHaveLength(1);
    expect(logs.some((l) => l.level === 'error' && l.fields?.messageId === 'bad-json')).toBe(true);
  });

  it('a message queued before environments (no environment) is read as one of the default environment', async () => {
    const c = await config();
    const d = await delivery(c.id);
    expect(await run([JSON.stringify({ deliveryId: d.id })])).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(1);
    expect(await stored(d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('during a rotation overlap signs with both secrets; either verifies; after the expiry only the new one', async () => {
    const oldSecret = secretOf();
    const c = await config({
      previousSecret: oldSecret,
      previousSecretExpiresAt: formatInstant(instantFromMs(START + 60_000)),
    });
    const d = await delivery(c.id);
    await run([encodeDeliveryMessage(ENV, d.id)]);
    const { headers, body } = received[0]!;
    const signatures = String(headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [c.secret, oldSecret]) {
      expect(
        verify(headers['webhook-signature'], d.id, headers['webhook-timestamp'], secret, body),
      ).toBe(true);
      expect(new Webhook(secret).verify(body, headers as Record<string, string>)).toEqual(
        JSON.parse(body),
      );
    }

    clock = START + 60_000;
    const after = await delivery(c.id);
    await run([encodeDeliveryMessage(ENV, after.id)]);
    const late = received[1]!;
    expect(String(late.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(
      verify(
        late.headers['webhook-signature'],
        after.id,
        late.headers['webhook-timestamp'],
        oldSecret,
        late.body,
      ),
    ).toBe(false);
    expect(
      verify(
        late.headers['webhook-signature'],
        after.id,
        late.headers['webhook-timestamp'],
        c.secret,
        late.body,
      ),
    ).toBe(true);
  });

  it('SSRF: a private endpoint is refused before connecting, recorded, and retried on schedule', async () => {
    const c = await config({ endpoint: 'http://10.0.0.1:8080/hook' });
    const d = await delivery(c.id);
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
    const [attempt] = await attempts(d.id);
    expect(attempt).toMatchObject({ attempt: 1 });
    expect(attempt!.statusCode).toBeUndefined();
    expect(attempt!.error).toMatch(/10\.0\.0\.1/);
    expect(attempt).toMatchObject({
      outcome: 'retryable_failure',
      endpoint: 'http://10.0.0.1:8080/hook',
    });
    expect(await stored(d.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: START + 5000,
      lastError: attempt!.error,
    });
    expect(await stored(d.id)).not.toHaveProperty('lastStatusCode');
    expect(await queued()).toEqual([{ body: encodeDeliveryMessage(ENV, d.id), delaySeconds: 5 }]);
  });

  it('the last attempt failing ends the delivery failed, kept, with no further message', async () => {
    const c = await config();
    const d = await delivery(c.id, { attempts: 7, nextAttemptAt: START - 1 });
    replies.push({ status: 502 });
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
    const item = await stored(d.id);
    expect(item).toMatchObject({ status: 'failed', attempts: 8, body: d.body });
    expect(item.nextAttemptAt).toBeUndefined();
    expect((await attempts(d.id)).map((a) => [a.sk, a.statusCode])).toEqual([
      ['ATTEMPT#0008', 502],
    ]);
    expect(await queued()).toEqual([]);
  });

  // Before: attempt numbers carried on into the schedule, so a replay of a delivery that had made 3 attempts
  // failed once and waited 2 h (the wait after a 4th attempt); after 8, a failing replay was not retried at all.
  it.each([
    [3, 'cancelled'],
    [8, 'failed'],
  ] as const)(
    'a replay after %i attempts (%s) runs the retry schedule from its start: 5 s, then 5 min',
    async (made, status) => {
      const c = await config();
      const d = await delivery(c.id, { attempts: made, nextAttemptAt: START - 1 });
      const store = new DeliveryStore({ doc: runtime.doc, table, environment: ENV });
      expect(await store.cancel(d, d.createdAt, made)).toBe(true);
      if (status === 'failed')
        await runtime.doc.send(
          new UpdateCommand({
            TableName: table,
            Key: deliveryKeys.delivery(ENV, d.id),
            UpdateExpression: 'SET #s = :failed',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':failed': 'failed' },
          }),
        );
      expect(await store.reopen({ ...d, status }, clock, d.createdAt)).toBe(true);
      replies.push({ status: 500 }, { status: 503 });
      expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
      expect(await stored(d.id)).toMatchObject({
        status: 'pending',
        attempts: made + 1,
        replayGeneration: 1,
        replayedAfterAttempts: made,
        nextAttemptAt: START + 5_000,
      });
      clock = START + 5_000;
      expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
      expect(await stored(d.id)).toMatchObject({
        status: 'pending',
        attempts: made + 2,
        nextAttemptAt: START + 5_000 + 5 * 60_000,
      });
      expect((await attempts(d.id)).map((a) => [a.attempt, a.outcome])).toEqual([
        [made + 1, 'retryable_failure'],
        [made + 2, 'retryable_failure'],
      ]);
    },
  );

  it('a failing SQS send reports the message so it comes back, and then only hops', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 500 });
    const broken = new SQSClient({
      endpoint: sqsLocal.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const result = await run([encodeDeliveryMessage(ENV, d.id)], {
      sqs: broken,
      queueUrl: `${sqsLocal.endpoint}/000000000000/no-such-queue`,
    });
    broken.destroy();
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    expect(await stored(d.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: START + 5000,
    });
    // SQS hands the original message back (visibility timeout): it is early, so it is sent on, not delivered.
    clock = START + 1000;
    expect(await run([encodeDeliveryMessage(ENV, d.id)])).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(1);
    expect(await queued()).toEqual([{ body: encodeDeliveryMessage(ENV, d.id), delaySeconds: 4 }]);
  });

  it('the Lambda handler builds its deps from the environment (SQS_ENDPOINT, STAGE=local allows loopback)', async () => {
    const c = await config();
    const d = await delivery(c.id, { nextAttemptAt: START - 1 });
    clock = Date.now(); // the handler uses the real clock
    replies.push({ status: 500 });
    Object.assign(process.env, {
      ...testEnv,
      STAGE: 'local',
      SQS_ENDPOINT: sqsLocal.endpoint,
      DELIVERIES_QUEUE_URL: queueUrl,
    });
    const { handler } = await import('../../../functions/deliver.js');
    const event = {
      Records: [
        { messageId: 'a', body: encodeDeliveryMessage(ENV, d.id) },
        { messageId: 'b', body: 'junk' },
      ],
    } as unknown as SQSEvent;
    expect(await handler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
    expect(received).toHaveLength(1);
    expect(await stored(d.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await queued()).map((m) => m.body)).toEqual([encodeDeliveryMessage(ENV, d.id)]);
  });
});

describe('endpoint health', () => {
  const HOUR_MS = 3_600_000;
  const health = { disableAfterFailingMs: 5 * HOUR_MS };
  const eventRow = async (seed: string) =>
    (
      await runtime.doc.send(
        new GetCommand({
          TableName: testEnv.EVENTS_TABLE!,
          Key: eventKey(ENV, eventIdOf(seed)),
          ConsistentRead: true,
        }),
      )
    ).Item as Record<string, any> | undefined;
  const at = (ms: number) => formatInstant(instantFromMs(ms));

  it('failing for the configured period switches the config off with one operator event; reactivated, its next delivery is the recovery', async () => {
    const c = await config();
    const first = await delivery(c.id);
    replies.push({ status: 500, body: 'down' });
    await run([encodeDeliveryMessage(ENV, first.id)], health);
    expect(await configs.get(c.id)).toMatchObject({ active: true, failingSince: at(START) });
    expect(await stored(first.id)).toMatchObject({ status: 'pending', attempts: 1 });

    // Still failing five hours later: this attempt switches the config off.
    clock = START + 5 * HOUR_MS;
    const last = await delivery(c.id);
    const waiting = await delivery(c.id, { nextAttemptAt: clock + 60_000 });
    replies.push({ status: 503, body: 'still down' });
    await run([encodeDeliveryMessage(ENV, last.id)], health);
    const off = (await configs.get(c.id))!;
    expect(off).toMatchObject({
      active: false,
      failingSince: at(START),
      disabledAt: at(clock),
      disabledReason: 'failing',
    });
    expect(await stored(last.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await attempts(last.id))[0]).toMatchObject({ outcome: 'permanent_failure' });
    expect(await stored(waiting.id)).toMatchObject({ status: 'cancelled', attempts: 0 });
    expect(await stored(first.id)).toMatchObject({ status: 'cancelled', attempts: 1 });

    const disabled = await eventRow(`webhooks/${ENV}/${c.id}/disabled/${at(clock)}`);
    expect(disabled).toMatchObject({ type: 'webhooks.endpoint_disabled', date: at(clock) });
    expect(JSON.parse(disabled!.body)).toEqual({
      id: eventIdOf(`webhooks/${ENV}/${c.id}/disabled/${at(clock)}`),
      idempotency_key: '',
      date: at(clock),
      app: 'webhooks',
      version: 'v2',
      type: 'webhooks.endpoint_disabled',
      payload: {
        configID: c.id,
        name: '',
        endpoint: c.endpoint,
        reason: 'failing',
        failingSince: at(START),
        disabledAt: at(clock),
        lastStatusCode: 503,
      },
    });

    // The operator's own endpoint, subscribed to operator events, gets it through dispatch like any event.
    const operator = await config({ eventTypes: ['webhooks.endpoint_disabled'] });
    await dispatchBatch(
      [
        {
          eventName: 'INSERT',
          dynamodb: {
            SequenceNumber: '1',
            NewImage: marshall(disabled!) as Record<string, unknown>,
          },
        },
      ],
      { doc: runtime.doc, sqs, table, queueUrl, now: () => clock },
    );
    const told = await stored(deliveryId(JSON.parse(disabled!.body).id, operator.id));
    expect(told).toMatchObject({ eventType: 'webhooks.endpoint_disabled', body: disabled!.body });

    // Activated: a fresh period (no run of failures yet), and the switch-off remembered until it delivers.
    clock += HOUR_MS;
    const back = await configs.update(c.id, activated);
    expect(back).toMatchObject({ active: true, disabledAt: at(START + 5 * HOUR_MS) });
    expect(back!.failingSince).toBeUndefined();
    const next = await delivery(c.id);
    replies.push({ status: 200 });
    await run([encodeDeliveryMessage(ENV, next.id)], health);
    const healthy = (await configs.get(c.id))!;
    expect([
      healthy.active,
      healthy.failingSince,
      healthy.disabledAt,
      healthy.disabledReason,
    ]).toEqual([true, undefined, undefined, undefined]);
    const recovered = await eventRow(
      `webhooks/${ENV}/${c.id}/recovered/${at(START + 5 * HOUR_MS)}`,
    );
    expect(JSON.parse(recovered!.body).payload).toEqual({
      configID: c.id,
      name: '',
      endpoint: c.endpoint,
      disabledAt: at(START + 5 * HOUR_MS),
      recoveredAt: at(clock),
    });
  });

  it('a success inside the period ends the run with no event; a period of 0 never switches off', async () => {
    const c = await config();
    const d1 = await delivery(c.id);
    replies.push({ status: 500 });
    await run([encodeDeliveryMessage(ENV, d1.id)], health);
    expect((await configs.get(c.id))!.failingSince).toBe(at(START));
    clock = START + HOUR_MS;
    const d2 = await delivery(c.id);
    replies.push({ status: 200 });
    await run([encodeDeliveryMessage(ENV, d2.id)], health);
    expect((await configs.get(c.id))!.failingSince).toBeUndefined();

    const never = await config();
    const n1 = await delivery(never.id);
    replies.push({ status: 500 });
    await run([encodeDeliveryMessage(ENV, n1.id)], { disableAfterFailingMs: 0 });
    clock = START + 1000 * HOUR_MS;
    const n2 = await delivery(never.id);
    replies.push({ status: 500 });
    await run([encodeDeliveryMessage(ENV, n2.id)], { disableAfterFailingMs: 0 });
    expect(await configs.get(never.id)).toMatchObject({
      active: true,
      failingSince: at(START + HOUR_MS),
    });
    expect(await stored(n2.id)).toMatchObject({ status: 'pending' });
  });

  it('410 Gone says why it switched the config off', async () => {
    const c = await config();
    const d = await delivery(c.id);
    replies.push({ status: 410, body: 'gone' });
    await run([encodeDeliveryMessage(ENV, d.id)]);
    expect(await configs.get(c.id)).toMatchObject({ active: false, disabledReason: 'gone' });
    const row = await eventRow(`webhooks/${ENV}/${c.id}/disabled/${at(START)}`);
    expect(JSON.parse(row!.body).payload).toMatchObject({ reason: 'gone', lastStatusCode: 410 });
  });
});

describe('rate limit', () => {
  it('starts at most rateLimitPerSecond attempts a second; the rest come back spread over the next seconds, untouched', async () => {
    const c = await config({ rateLimitPerSecond: 2 });
    const ds = await Promise.all([1, 2, 3, 4, 5].map(() => delivery(c.id)));
    expect(await run(ds.map((d) => encodeDeliveryMessage(ENV, d.id)))).toEqual({
      batchItemFailures: [],
    });
    expect(received).toHaveLength(2);
    const held = await queued();
    expect(held.map((m) => m.delaySeconds).sort()).toEqual([1, 1, 2]);
    for (const m of held) {
      const id = ds.find((d) => encodeDeliveryMessage(ENV, d.id) === m.body)!.id;
      expect(await stored(id)).toMatchObject({ status: 'pending', attempts: 0 });
    }

    // A second later the window is a new one: two more go.
    clock = START + 1000;
    received = [];
    await run(held.map((m) => m.body));
    expect(received).toHaveLength(2);
    // Another config, without a limit, is not held back by this one's window.
    const free = await config();
    const fd = await Promise.all([1, 2, 3].map(() => delivery(free.id)));
    received = [];
    await run(fd.map((d) => encodeDeliveryMessage(ENV, d.id)));
    expect(received).toHaveLength(3);
  });
});
