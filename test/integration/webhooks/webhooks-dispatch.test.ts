import { createHash, randomBytes } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { eventKey, outboxRow, parseEventKey } from '../../../lib/events/outbox.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { parseInstant, sortableInstant } from '../../../lib/time/instant.js';
import {
  type DispatchDeps,
  dispatchBatch,
  type StreamRecordLike,
} from '../../../lib/webhooks/dispatch/dispatch-batch.js';
import { deliveryId } from '../../../lib/webhooks/domain/delivery.js';
import { ConfigStore } from '../../../lib/webhooks/store/config-store.js';
import { decodeDeliveryMessage } from '../../../lib/webhooks/store/delivery-queue.js';
import { deliveryKeys, subscriptionKey } from '../../../lib/webhooks/store/keys.js';
import { testTables } from '../../support/tables.js';

const KIND = 'ledger.committed_transactions' as const;
/** These tests dispatch in one environment; webhooks-environments.test.ts crosses them. */
const ENV = 'default';
/** The tests share one table: each uses a kind of its own (dispatch does not check kinds), so their subscriptions never mix. */
let kind: string = KIND;
const freshKind = () => (kind = `test.kind_${randomBytes(4).toString('hex')}`);
const local = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

let sqsLocal: SqsLocal;
let sqs: SQSClient;
let runtime: ServiceRuntime;
let table: string;
let sequence = 1000;

beforeAll(async () => {
  ({ runtime } = await testTables());
  table = runtime.config.tables.webhooks;
  sqsLocal = await startSqsLocal();
  sqs = new SQSClient({ ...local, endpoint: sqsLocal.endpoint });
});
afterAll(async () => {
  sqs?.destroy();
  await sqsLocal?.stop();
});

/** A fresh deliveries queue, so each test reads only its own messages. */
async function freshDeps(overrides: Partial<DispatchDeps> = {}): Promise<DispatchDeps> {
  freshKind();
  const queues = await ensureQueues(sqs, `q${randomBytes(4).toString('hex')}-`);
  return {
    doc: runtime.doc,
    sqs,
    table,
    queueUrl: queues.DELIVERIES_QUEUE_URL!,
    cacheTtlMs: 0,
    ...overrides,
  };
}

async function subscribe(configId: string, active: boolean, forKind: string = kind) {
  await runtime.doc.send(
    new PutCommand({
      TableName: table,
      Item: { ...subscriptionKey(ENV, forKind, configId), configId, active },
    }),
  );
}

/** An event row as the ledger writes it, and its INSERT stream record. */
function eventRecord(
  ofKind: string = kind,
  eventName = 'INSERT',
  row?: Record<string, unknown>,
): { row: Record<string, unknown>; record: StreamRecordLike } {
  const seq = String(++sequence).padStart(21, '0');
  const r =
    row ??
    outboxRow({
      type: ofKind as typeof KIND,
      seed: `test/${randomBytes(8).toString('hex')}`,
      idempotencyKey: 'ik',
      date: '2026-11-22T10:00:00.000000Z',
      payload: { ledger: 'main', amount: 12345678901234567890123456789n },
      environment: ENV,
      nowMs: Date.now(),
      attributes: {},
    });
  return {
    row: r,
    record: {
      eventID: `ev-${seq}`,
      eventName,
      dynamodb: { SequenceNumber: seq, NewImage: marshall(r) as Record<string, unknown> },
    },
  };
}

const eventIdOf = (row: Record<string, unknown>) => parseEventKey(String(row.pk), 'EVENT')!.id;

async function deliveriesOf(eventId: string, configIds: string[]) {
  const out: Record<string, unknown>[] = [];
  for (const c of configIds) {
    const { Items = [] } = await runtime.doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: {
          ':p': deliveryKeys.delivery(ENV, deliveryId(eventId, c)).pk,
        },
      }),
    );
    out.push(...Items);
  }
  return out;
}

/** Every message currently visible on the queue (bounded). */
async function drain(queueUrl: string, expectAtLeast = 0): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
      }),
    );
    bodies.push(...Messages.map((m) => m.Body ?? ''));
    if (Messages.length === 0 && bodies.length >= expectAtLeast) break;
    if (Messages.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return bodies;
}

describe('dispatchBatch', () => {
  it('creates one pending delivery per active subscribed config and enqueues a pointer to each', async () => {
    const deps = await freshDeps();
    const [a, b, c] = ['cfg-a', 'cfg-b', 'cfg-c'].map(
      (p) => `${p}-${randomBytes(4).toString('hex')}`,
    ) as [string, string, string];
    await subscribe(a, true);
    await subscribe(b, true);
    await subscribe(c, false);
    await subscribe(`other-${a}`, true, `${kind}.other`);
    const { row, record } = eventRecord();
    const eventId = eventIdOf(row);

    // Other tests' configs share the table: only those created here are checked.
    const result = await dispatchBatch([record], deps);
    expect(result).toEqual({ batchItemFailures: [] });

    const stored = await deliveriesOf(eventId, [a, b, c]);
    expect(stored.map((d) => d.id).sort()).toEqual(
      [deliveryId(eventId, a), deliveryId(eventId, b)].sort(),
    );
    for (const d of stored) {
      expect(d).toMatchObject({
        sk: 'DELIVERY',
        eventId,
        eventType: kind,
        status: 'pending',
        attempts: 0,
        body: row.body,
        gsi1pk: 'E#default#DELIVERIES',
      });
      expect(d.gsi1sk).toBe(
        `${sortableInstant(parseInstant(String(d.createdAt), 'createdAt'))}#${d.id}`,
      );
      expect(d.id).toMatch(/^[0-9a-f]{32}$/);
      // Its filter index items, written in the same transaction.
      for (const pk of [
        `E#default#DELIVERIES#config=${d.configId}`,
        'E#default#DELIVERIES#status=pending',
        `E#default#DELIVERIES#config=${d.configId}#status=pending`,
      ]) {
        const { Item } = await runtime.doc.send(
          new GetCommand({ TableName: table, Key: { pk, sk: d.gsi1sk }, ConsistentRead: true }),
        );
        expect(Item).toEqual({ pk, sk: d.gsi1sk, deliveryId: d.id });
      }
    }
    // The body is the event row's text, byte for byte (the big integer stays exact).
    expect(String(stored[0]!.body)).toContain('12345678901234567890123456789');

    const messages = await drain(deps.queueUrl, 2);
    // Each message names the delivery's environment with its id.
    expect(messages.map((m) => decodeDeliveryMessage(m)?.environment)).toEqual([ENV, ENV]);
    const ids = messages.map((m) => decodeDeliveryMessage(m)?.deliveryId);
    expect(
      ids.filter((id) => id === deliveryId(eventId, a) || id === deliveryId(eventId, b)).sort(),
    ).toEqual([deliveryId(eventId, a), deliveryId(eventId, b)].sort());
    expect(messages).toHaveLength(2);

    // The stream redelivers the same batch after deliver started on both (one attempt made): no new record,
    // no second message. (Deliveries not started yet are enqueued again: next test.)
    for (const d of stored) {
      await runtime.doc.send(new PutCommand({ TableName: table, Item: { ...d, attempts: 1 } }));
    }
    const again = await dispatchBatch([record], deps);
    expect(again).toEqual({ batchItemFailures: [] });
    expect(await deliveriesOf(eventId, [a, b, c])).toHaveLength(2);
    expect(await drain(deps.queueUrl)).toEqual([]);
  });

  it('on redelivery, enqueues again only deliveries still pending with no attempt', async () => {
    const deps = await freshDeps();
    const [started, fresh, settled] = ['started', 'fresh', 'settled'].map(
      (p) => `${p}-${randomBytes(4).toString('hex')}`,
    ) as [string, string, string];
    for (const c of [started, fresh, settled]) await subscribe(c, true);
    const { row, record } = eventRecord();
    const eventId = eventIdOf(row);
    expect(await dispatchBatch([record], deps)).toEqual({ batchItemFailures: [] });
    expect(await drain(deps.queueUrl, 3)).toHaveLength(3);
    const before = await deliveriesOf(eventId, [started, fresh, settled]);
    const byConfig = new Map(before.map((d) => [d.configId, d]));
    await runtime.doc.send(
      new PutCommand({ TableName: table, Item: { ...byConfig.get(started)!, attempts: 1 } }),
    );
    await runtime.doc.send(
      new PutCommand({
        TableName: table,
        Item: { ...byConfig.get(settled)!, status: 'succeeded', attempts: 1 },
      }),
    );

    expect(await dispatchBatch([record], deps)).toEqual({ batchItemFailures: [] });
    const after = await deliveriesOf(eventId, [started, fresh, settled]);
    expect(after).toHaveLength(3);
    // Unchanged: the conditional Put never overwrites.
    expect(after.find((d) => d.configId === fresh)).toEqual(byConfig.get(fresh));
    expect(
      (await drain(deps.queueUrl, 1)).map((m) => decodeDeliveryMessage(m)?.deliveryId),
    ).toEqual([deliveryId(eventId, fresh)]);
  });

  it('ignores MODIFY and REMOVE records and rows that are not events', async () => {
    const deps = await freshDeps();
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true);
    const modify = eventRecord(kind, 'MODIFY');
    const remove = eventRecord(kind, 'REMOVE');
    const other = eventRecord(kind, 'INSERT', {
      pk: 'LEDGER#x',
      sk: 'META',
      type: kind,
      body: '{}',
    });
    expect(await dispatchBatch([modify.record, remove.record, other.record], deps)).toEqual({
      batchItemFailures: [],
    });
    expect(await deliveriesOf(eventIdOf(modify.row), [config])).toEqual([]);
    expect(await deliveriesOf(eventIdOf(remove.row), [config])).toEqual([]);
    expect(await drain(deps.queueUrl)).toEqual([]);
  });

  it('reports the first failing record (a malformed body) and stops there', async () => {
    const deps = await freshDeps();
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true);
    const good = eventRecord();
    const bad = eventRecord(kind, 'INSERT', {
      ...eventKey(ENV, randomBytes(16).toString('hex')),
      type: kind,
      body: '{not json',
    });
    const after = eventRecord();
    const result = await dispatchBatch([good.record, bad.record, after.record], deps);
    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: bad.record.dynamodb!.SequenceNumber }],
    });
    expect(await deliveriesOf(eventIdOf(good.row), [config])).toHaveLength(1);
    // Records after the failure are left for the retry, which starts at the failed one.
    expect(await deliveriesOf(eventIdOf(after.row), [config])).toEqual([]);
  });

  it('reports an event row whose key names no environment (malformed), and stops there', async () => {
    const deps = await freshDeps();
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true);
    const good = eventRecord();
    const id = randomBytes(16).toString('hex');
    const unscoped = eventRecord(kind, 'INSERT', {
      ...good.row,
      pk: `EVENT#${id}`,
    });
    const invalid = eventRecord(kind, 'INSERT', { ...good.row, pk: `E#Not-An-Env#EVENT#${id}` });
    expect(await dispatchBatch([good.record, unscoped.record], deps)).toEqual({
      batchItemFailures: [{ itemIdentifier: unscoped.record.dynamodb!.SequenceNumber }],
    });
    expect(await dispatchBatch([invalid.record], deps)).toEqual({
      batchItemFailures: [{ itemIdentifier: invalid.record.dynamodb!.SequenceNumber }],
    });
    // Only the well-keyed event was dispatched: one delivery, one message.
    expect(await deliveriesOf(eventIdOf(good.row), [config])).toHaveLength(1);
    expect(await deliveriesOf(id, [config])).toEqual([]);
    expect(await drain(deps.queueUrl, 1)).toHaveLength(1);
  });

  it('reports a record whose messages cannot be sent, and its retry loses nothing', async () => {
    const healthy = await freshDeps();
    const broken = new SQSClient({ ...local, endpoint: sqsLocal.endpoint });
    const mock = mockClient(broken);
    mock
      .on(SendMessageBatchCommand)
      .rejects(Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' }));
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true);
    const { row, record } = eventRecord();
    const eventId = eventIdOf(row);

    const failed = await dispatchBatch([record], { ...healthy, sqs: broken });
    expect(failed).toEqual({
      batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber }],
    });
    // The record was created before the send failed: the retry finds it pending with no attempt and sends.
    expect(await deliveriesOf(eventId, [config])).toHaveLength(1);
    mock.restore();
    broken.destroy();

    expect(await dispatchBatch([record], healthy)).toEqual({ batchItemFailures: [] });
    expect(
      (await drain(healthy.queueUrl, 1)).map((m) => decodeDeliveryMessage(m)?.deliveryId),
    ).toEqual([deliveryId(eventId, config)]);
  });

  it('sends entries SQS reports as failed again, and fails the record when they keep failing', async () => {
    const deps = await freshDeps();
    const flaky = new SQSClient({ ...local, endpoint: sqsLocal.endpoint });
    const mock = mockClient(flaky);
    let calls = 0;
    mock.on(SendMessageBatchCommand).callsFake((input: { Entries: Array<{ Id: string }> }) => {
      calls++;
      return calls === 1
        ? {
            Successful: [],
            Failed: input.Entries.map((e) => ({
              Id: e.Id,
              Code: 'InternalError',
              SenderFault: false,
            })),
          }
        : {
            Successful: input.Entries.map((e) => ({
              Id: e.Id,
              MessageId: 'm',
              MD5OfMessageBody: 'x',
            })),
            Failed: [],
          };
    });
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true);
    expect(await dispatchBatch([eventRecord().record], { ...deps, sqs: flaky })).toEqual({
      batchItemFailures: [],
    });
    expect(calls).toBe(2);

    mock.on(SendMessageBatchCommand).resolves({
      Successful: [],
      Failed: [{ Id: 'x', Code: 'InvalidParameterValue', SenderFault: true }],
    });
    const { record } = eventRecord();
    expect((await dispatchBatch([record], { ...deps, sqs: flaky })).batchItemFailures).toEqual([
      { itemIdentifier: record.dynamodb!.SequenceNumber },
    ]);
    mock.restore();
    flaky.destroy();
  });

  it('sends in batches of at most 10 and reuses the configs of a kind within the cache ttl', async () => {
    const configs = Array.from(
      { length: 23 },
      (_, i) => `many-${i}-${randomBytes(3).toString('hex')}`,
    );
    const counting = new SQSClient({ ...local, endpoint: sqsLocal.endpoint });
    // The cache belongs to the deps object: the same one for both batches.
    const deps = await freshDeps({ cacheTtlMs: 60_000, sqs: counting });
    const sizes: number[] = [];
    counting.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Entries?: unknown[] };
        if (input.Entries) sizes.push(input.Entries.length);
        return next(args);
      },
      { step: 'initialize' },
    );
    for (const c of configs) await subscribe(c, true, kind);
    const first = eventRecord(kind);
    expect(await dispatchBatch([first.record], deps)).toEqual({ batchItemFailures: [] });
    expect(sizes).toEqual([10, 10, 3]);
    expect(await deliveriesOf(eventIdOf(first.row), configs)).toHaveLength(23);

    // A subscription written behind the config store's back (the version not moved) is not seen while the cached
    // list is fresh: the ttl is only a backstop.
    const late = `late-${randomBytes(3).toString('hex')}`;
    await subscribe(late, true, kind);
    const second = eventRecord(kind);
    await dispatchBatch([second.record], deps);
    expect(await deliveriesOf(eventIdOf(second.row), [late])).toEqual([]);
    counting.destroy();
  });

  it('sees a config created, deactivated or deleted through the store in the very next batch, cache or not', async () => {
    const deps = await freshDeps({ cacheTtlMs: 60_000 });
    const store = new ConfigStore({ doc: runtime.doc, table, environment: ENV });
    const now = '2026-11-22T10:00:00.000Z';
    const config = {
      id: `cfg-${randomBytes(4).toString('hex')}`,
      name: '',
      endpoint: 'https://example.com/hook',
      eventTypes: [KIND],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      active: true,
      createdAt: now,
      updatedAt: now,
    };
    const batch = async () => {
      const { row, record } = eventRecord(KIND);
      expect(await dispatchBatch([record], deps)).toEqual({ batchItemFailures: [] });
      return (await deliveriesOf(eventIdOf(row), [config.id])).length;
    };
    // Fills the cache for the kind, before the config exists.
    expect(await batch()).toBe(0);
    await store.create(config);
    expect(await batch()).toBe(1);
    await store.update(config.id, (c) => ({ ...c, active: false }));
    expect(await batch()).toBe(0);
    await store.update(config.id, (c) => ({ ...c, active: true }));
    expect(await batch()).toBe(1);
    await store.delete(config.id);
    expect(await batch()).toBe(0);
  });

  // Ledger items of the default environment (`E#default#L#...`); other environments: webhooks-environments.test.ts.
  it("reads the ledger tables' streams: events of log and mapping items (INSERT or MODIFY), every other item passed over", async () => {
    const deps = await freshDeps();
    const ledger = `l${randomBytes(4).toString('hex')}`;
    const config = `cfg-${randomBytes(4).toString('hex')}`;
    await subscribe(config, true, 'ledger.saved_metadata');
    await subscribe(config, true, 'ledger.updated_mapping');
    const record = (eventName: string, item: Record<string, unknown>): StreamRecordLike => {
      const seq = String(++sequence).padStart(21, '0');
      return {
        eventID: `ev-${seq}`,
        eventName,
        dynamodb: { SequenceNumber: seq, NewImage: marshall(item) as Record<string, unknown> },
      };
    };
    const date = '2026-11-22T10:00:00.000Z';
    const log = {
      pk: `E#default#L#${ledger}#LOG`,
      sk: '000000000000001',
      id: 1,
      type: 'SET_METADATA',
      date,
      body: `{"id":1,"type":"SET_METADATA","data":{"targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"b"}},"date":"${date}","idempotencyKey":"","hash":""}`,
      ev: '{}',
    };
    const mapping = {
      pk: `E#default#L#${ledger}`,
      sk: 'MAPPING',
      version: 2,
      mapping: '{"contracts":[]}',
      date,
      ev: '{}',
    };
    const records = [
      // A volume item: 38-digit numbers, no event; never unmarshalled.
      record('INSERT', {
        pk: `E#default#L#${ledger}#A#users:1`,
        sk: 'V#USD',
        input: 10n ** 37n,
        output: 0n,
        balance: 10n ** 37n,
      }),
      record('INSERT', log),
      record('MODIFY', {
        pk: `E#default#L#${ledger}`,
        sk: 'HEAD',
        lastLogId: 1,
        version: 2,
        mappingVersion: 2,
      }),
      record('MODIFY', mapping),
    ];
    expect(await dispatchBatch(records, deps)).toEqual({ batchItemFailures: [] });

    const sha = (seed: string) => createHash('sha256').update(seed).digest('hex').slice(0, 32);
    const [metadataEvent, mappingEvent] = [
      sha(`ledger/${ledger}/1`),
      sha(`ledger/${ledger}/head/2`),
    ];
    const delivered = [
      ...(await deliveriesOf(metadataEvent, [config])),
      ...(await deliveriesOf(mappingEvent, [config])),
    ];
    expect(delivered.map((d) => [d.eventType, d.body])).toEqual([
      [
        'ledger.saved_metadata',
        `{"id":"${metadataEvent}","idempotency_key":"","date":"${date}","app":"ledger","version":"v2","type":"ledger.saved_metadata","payload":{"ledger":"${ledger}","targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"b"}}}`,
      ],
      [
        'ledger.updated_mapping',
        `{"id":"${mappingEvent}","idempotency_key":"","date":"${date}","app":"ledger","version":"v2","type":"ledger.updated_mapping","payload":{"ledger":"${ledger}","mapping":{"contracts":[]}}}`,
      ],
    ]);
    expect(
      (await drain(deps.queueUrl, 2)).map((b) => decodeDeliveryMessage(b)?.deliveryId).sort(),
    ).toEqual([deliveryId(metadataEvent, config), deliveryId(mappingEvent, config)].sort());

    // A ledger item whose ev cannot be read is reported, and nothing after it is handled.
    const broken = record('INSERT', { ...log, sk: '000000000000002', ev: 'not json' });
    const after = record('INSERT', {
      ...log,
      sk: '000000000000003',
      body: log.body.replace('"id":1', '"id":3'),
    });
    expect(await dispatchBatch([broken, after], deps)).toEqual({
      batchItemFailures: [{ itemIdentifier: broken.dynamodb!.SequenceNumber }],
    });
    expect(await deliveriesOf(sha(`ledger/${ledger}/3`), [config])).toEqual([]);
  });
});
