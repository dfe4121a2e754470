/**
 * Environments never meet (docs/data-model.md, "Environments: every key says which") in the webhooks service: a token
 * of environment B never sees or touches A's configs, deliveries, attempts or replay answers (ids, lists, every
 * filter, cursors, single and bulk replays, equal Idempotency-Keys); an event of A (a payment saved in A, a ledger
 * log item with A's prefix) reaches A's configs only, never B's config of the same kind and endpoint; and every item
 * written has its environment's `E#<env>#` at the start of its pk and gsi1pk.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { environmentOfKey } from '../../../lib/environments/key-scope.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createWebhooksApp } from '../../../lib/webhooks/app.js';
import { deliverBatch } from '../../../lib/webhooks/deliver/deliver-batch.js';
import {
  dispatchBatch,
  type StreamRecordLike,
} from '../../../lib/webhooks/dispatch/dispatch-batch.js';
import type { Delivery } from '../../../lib/webhooks/domain/delivery.js';
import { decodeDeliveryMessage } from '../../../lib/webhooks/store/delivery-queue.js';
import { DeliveryStore } from '../../../lib/webhooks/store/delivery-store.js';
import { webhookConfigsExist } from '../../../lib/webhooks/store/environment-probe.js';
import { pendingDeliveriesOfEveryEnvironment } from '../../../lib/webhooks/store/pending-everywhere.js';
import { pendingDelivery } from '../../support/deliveries.js';
import { environmentToken } from '../../support/environment-tokens.js';
import { type JsonCall, type JsonReply, jsonCaller } from '../../support/json-call.js';
import { paymentBody, scanTable } from '../../support/payments.js';
import { localSqsClient } from '../../support/sqs.js';
import { testTables } from '../../support/tables.js';

const A = 'env-a';
const B = 'env-b';
let runtime: ServiceRuntime;
let table: string;
let sqsLocal: SqsLocal;
let sqs: SQSClient;
let queueUrl: string;
let as: Record<string, JsonCall>;
let payments: Record<string, JsonCall>;
let receiver: http.Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  sqsLocal = await startSqsLocal();
  sqs = localSqsClient(sqsLocal.endpoint);
  const queues = await ensureQueues(sqs, `e${randomBytes(4).toString('hex')}-`);
  queueUrl = queues.DELIVERIES_QUEUE_URL!;
  ({ runtime } = await testTables({ SQS_ENDPOINT: sqsLocal.endpoint, ...queues }));
  table = runtime.config.tables.webhooks;
  const app = createWebhooksApp(runtime, { documents: generatedDocuments });
  const paymentsApp = createPaymentsApp(runtime, { documents: generatedDocuments });
  as = {};
  payments = {};
  for (const env of [A, B, 'prop-a', 'prop-b']) {
    const token = await environmentToken(runtime, env);
    // Webhooks' tests read plain numbers (attempt counts, sizes).
    as[env] = jsonCaller(app, '/api/webhooks', token, JSON.parse);
    payments[env] = jsonCaller(paymentsApp, '/api/payments', token, JSON.parse);
  }
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  sqs?.destroy();
  await sqsLocal?.stop();
});

async function createConfig(env: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await as[env]!('POST', '/configs', {
    endpoint: `https://hooks.example.com/${randomUUID()}`,
    eventTypes: ['ledger.committed_transactions'],
    ...body,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

/** A delivery of `env` that ended `failed` after one attempt, as dispatch and deliver write it. */
async function failedDelivery(env: string, configId: string, createdAt: string): Promise<Delivery> {
  const store = new DeliveryStore({ doc: runtime.doc, table, environment: env });
  const d = pendingDelivery(configId, createdAt);
  expect(await store.create(d)).toBe(true);
  expect(await store.claimAttempt(d.id, 0, createdAt, 0)).toBe(true);
  const attempt = { deliveryId: d.id, attempt: 1, at: createdAt, durationMs: 1, statusCode: 500 };
  expect(await store.recordAttempt(d, attempt, { status: 'failed', updatedAt: createdAt })).toBe(
    true,
  );
  return d;
}

const ids = (res: JsonReply): string[] => {
  expect(res.status, res.text).toBe(200);
  return res.body.cursor.data.map((x: { id: string }) => x.id);
};

describe("environment B and A's configs", () => {
  it('answers 404 to every route naming an A config, exactly as for an unknown one, and changes nothing', async () => {
    const a = await createConfig(A);
    const before = (await as[A]!('GET', `/configs/${a}`)).body;
    const unknown = randomUUID();
    for (const [method, path, body] of [
      ['GET', '/configs/:id'],
      ['PUT', '/configs/:id', { name: 'taken' }],
      ['PUT', '/configs/:id/activate'],
      ['PUT', '/configs/:id/deactivate'],
      ['PUT', '/configs/:id/secret/change', {}],
      ['GET', '/configs/:id/test'],
      ['DELETE', '/configs/:id'],
    ] as Array<[string, string, unknown?]>) {
      const theirs = await as[B]!(method, path.replace(':id', a), body);
      const none = await as[B]!(method, path.replace(':id', unknown), body);
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(theirs.body).toEqual({
        ...none.body,
        errorMessage: none.body.errorMessage.replace(unknown, a),
      });
    }
    expect((await as[A]!('GET', `/configs/${a}`)).body).toEqual(before);
  });

  it("lists only B's configs, by id and endpoint too; A's cursor is refused", async () => {
    const endpoint = `https://shared.example.com/${randomUUID()}`;
    const a1 = await createConfig(A, { endpoint });
    await createConfig(A, { endpoint });
    const b = await createConfig(B, { endpoint });
    const listedByB = ids(await as[B]!('GET', '/configs?pageSize=1000'));
    expect(listedByB).toContain(b);
    expect(listedByB).not.toContain(a1);
    expect(ids(await as[B]!('GET', `/configs?id=${a1}`))).toEqual([]);
    expect(ids(await as[B]!('GET', `/configs?endpoint=${encodeURIComponent(endpoint)}`))).toEqual([
      b,
    ]);
    for (const query of ['pageSize=1', `pageSize=1&endpoint=${encodeURIComponent(endpoint)}`]) {
      const page = await as[A]!('GET', `/configs?${query}`);
      expect(page.body.cursor.hasMore, query).toBe(true);
      const foreign = await as[B]!('GET', `/configs?cursor=${page.body.cursor.next}`);
      expect(foreign.status, query).toBe(400);
      expect(foreign.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'cursor: not a cursor of this list',
      });
    }
  });
});

describe("environment B and A's deliveries", () => {
  it('never reads, lists, filters, pages through or replays them', async () => {
    const a = await createConfig(A);
    const b = await createConfig(B);
    const from = '2017-01-01T00:00:00Z';
    const da1 = await failedDelivery(A, a, '2017-01-01T00:00:01Z');
    const da2 = await failedDelivery(A, a, '2017-01-01T00:00:02Z');
    const db = await failedDelivery(B, b, '2017-01-01T00:00:03Z');

    for (const path of [
      `/deliveries/${da1.id}`,
      `/deliveries/${da1.id}/attempts`,
      `/deliveries/${da1.id}/replay`,
    ]) {
      const res = await as[B]!(path.endsWith('replay') ? 'POST' : 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
    const window = `createdAtFrom=${from}&createdAtTo=2017-01-02T00:00:00Z`;
    for (const query of [
      'pageSize=1000',
      `configId=${a}`,
      'status=failed',
      `configId=${a}&status=failed`,
      window,
      `status=failed&${window}`,
    ]) {
      const listed = ids(await as[B]!('GET', `/deliveries?${query}`));
      expect(listed, query).not.toContain(da1.id);
      expect(listed, query).not.toContain(da2.id);
    }
    expect(ids(await as[B]!('GET', `/deliveries?status=failed&${window}`))).toEqual([db.id]);
    // A's cursors, of every listing and of the attempts list, are not B's.
    for (const query of ['pageSize=1', 'pageSize=1&status=failed', `pageSize=1&configId=${a}`]) {
      const page = await as[A]!('GET', `/deliveries?${query}`);
      expect(page.body.cursor.hasMore, query).toBe(true);
      expect((await as[B]!('GET', `/deliveries?cursor=${page.body.cursor.next}`)).status).toBe(400);
    }

    // Bulk replay in B over the window, with and without A's config: nothing of A's moves.
    const bulk = await as[B]!('POST', '/deliveries/replay', {
      createdAtFrom: from,
      createdAtTo: '2017-01-02T00:00:00Z',
    });
    expect(bulk.body.data).toMatchObject({ replayed: 1, expedited: 0, skipped: 0, hasMore: false });
    const byConfig = await as[B]!('POST', '/deliveries/replay', {
      createdAtFrom: from,
      createdAtTo: '2017-01-02T00:00:00Z',
      configIds: [a],
    });
    expect(byConfig.body.data).toMatchObject({ replayed: 0, expedited: 0, skipped: 0 });
    // A's bulk cursor under B continues B's walk, never A's partition.
    const pagedA = await as[A]!('POST', '/deliveries/replay', {
      createdAtFrom: from,
      createdAtTo: '2017-01-02T00:00:00Z',
      statuses: ['pending'],
      pageSize: 1,
    });
    expect(pagedA.status, pagedA.text).toBe(200);
    const storeA = new DeliveryStore({ doc: runtime.doc, table, environment: A });
    for (const d of [da1, da2])
      expect(await storeA.get(d.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });
    const aWalk = await as[A]!('POST', '/deliveries/replay', {
      createdAtFrom: from,
      createdAtTo: '2017-01-02T00:00:00Z',
      statuses: ['failed'],
      pageSize: 1,
    });
    expect(aWalk.body.data).toMatchObject({ replayed: 1, hasMore: true });
    const continued = await as[B]!('POST', '/deliveries/replay', {
      createdAtFrom: from,
      createdAtTo: '2017-01-02T00:00:00Z',
      statuses: ['failed'],
      pageSize: 1,
      cursor: aWalk.body.data.nextCursor,
    });
    expect(continued.status, continued.text).toBe(200);
    expect(continued.body.data).toMatchObject({ replayed: 0 });
    expect(await storeA.get(da2.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });
  });

  it('keeps equal Idempotency-Keys of two environments apart', async () => {
    const a = await createConfig(A);
    const b = await createConfig(B);
    const da = await failedDelivery(A, a, '2016-05-01T00:00:00Z');
    const db = await failedDelivery(B, b, '2016-05-01T00:00:00Z');
    const key = `same-${randomUUID()}`;
    const header = { 'idempotency-key': key };
    const inA = await as[A]!('POST', `/deliveries/${da.id}/replay`, undefined, header);
    expect(inA.status, inA.text).toBe(200);
    expect(inA.body.data.id).toBe(da.id);
    // B naming A's delivery with the key A used: unknown, not A's remembered answer.
    expect((await as[B]!('POST', `/deliveries/${da.id}/replay`, undefined, header)).status).toBe(
      404,
    );
    // B's own delivery under the same key: B's first use of it, replayed and answered for B.
    const inB = await as[B]!('POST', `/deliveries/${db.id}/replay`, undefined, header);
    expect(inB.status, inB.text).toBe(200);
    expect(inB.body.data).toMatchObject({ id: db.id, replayGeneration: 1 });
    // Bulk with one key in both: each environment's own first answer.
    const bulkKey = { 'idempotency-key': `bulk-${randomUUID()}` };
    const window = { createdAtFrom: '2016-05-01T00:00:00Z', createdAtTo: '2016-05-02T00:00:00Z' };
    const bulkA = await as[A]!('POST', '/deliveries/replay', window, bulkKey);
    const bulkB = await as[B]!('POST', '/deliveries/replay', window, bulkKey);
    expect(bulkA.body.data).toMatchObject({ replayed: 0, expedited: 1 });
    expect(bulkB.body.data).toMatchObject({ replayed: 0, expedited: 1 });
  });
});

describe('dispatch by environment', () => {
  it("delivers an A payment's event and an A ledger log item to A's configs only, never to B's twin config", async () => {
    const twin = {
      endpoint: receiverUrl,
      eventTypes: ['payments.saved_payment', 'ledger.saved_metadata'],
    };
    const a = await createConfig(A, twin);
    const b = await createConfig(B, twin);
    const drain = async (): Promise<Array<{ id: string; body: string }>> => {
      const out: Array<{ id: string; body: string }> = [];
      for (let i = 0; i < 5; i++) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
        );
        out.push(...Messages.map((m) => ({ id: m.MessageId!, body: m.Body! })));
      }
      return out;
    };
    await drain();

    // A payment saved in A: its outbox row, read back as the events table's stream carries it.
    const saved = await payments[A]!('POST', '/v3/payments', paymentBody());
    expect(saved.status, saved.text).toBe(201);
    const row = (await scanTable(runtime, runtime.config.tables.events)).find(
      (r) => r.paymentId === saved.body.data.id,
    )!;
    expect(String(row.pk).startsWith(`E#${A}#EVENT#`)).toBe(true);
    const date = '2026-11-22T10:00:00.000Z';
    // A ledger log item with A's prefix (the layout of the ledger's keys in environments).
    const log = {
      pk: `E#${A}#L#main#LOG`,
      sk: '000000000000001',
      id: 1,
      type: 'SET_METADATA',
      date,
      body: `{"id":1,"type":"SET_METADATA","data":{"targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"b"}},"date":"${date}","idempotencyKey":"","hash":""}`,
      ev: '{}',
    };
    const records: StreamRecordLike[] = [row, log].map((item, i) => ({
      eventID: `env-${i}`,
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: String(i + 1),
        NewImage: marshall(item, { removeUndefinedValues: true }) as Record<string, unknown>,
      },
    }));
    const deps = { doc: runtime.doc, sqs, table, queueUrl, cacheTtlMs: 0 };
    expect(await dispatchBatch(records, deps)).toEqual({ batchItemFailures: [] });

    const inA = ids(await as[A]!('GET', `/deliveries?configId=${a}`));
    expect(inA).toHaveLength(2);
    expect(ids(await as[B]!('GET', `/deliveries?configId=${b}`))).toEqual([]);
    const messages = await drain();
    expect(messages.map((m) => decodeDeliveryMessage(m.body))).toEqual(
      expect.arrayContaining(inA.map((id) => ({ environment: A, deliveryId: id }))),
    );
    expect(messages).toHaveLength(2);

    // Deliver works in the message's environment: A's two deliveries are sent and recorded in A.
    const result = await deliverBatch(
      messages.map((m) => ({ messageId: m.id, body: m.body })),
      { doc: runtime.doc, sqs, table, queueUrl, logger: { log: () => {} }, allowLoopback: true },
    );
    expect(result).toEqual({ batchItemFailures: [] });
    expect(received.filter((id) => inA.includes(id)).sort()).toEqual([...inA].sort());
    for (const id of inA)
      expect((await as[A]!('GET', `/deliveries/${id}`)).body.data.status).toBe('succeeded');

    // The same log item without any environment in its key is malformed: reported as the batch's failure, and
    // A's config gets nothing more.
    const unscoped = { ...log, pk: 'L#main#LOG', sk: '000000000000002' };
    expect(
      await dispatchBatch(
        [
          {
            eventID: 'x',
            eventName: 'INSERT',
            dynamodb: {
              SequenceNumber: '9',
              NewImage: marshall(unscoped) as Record<string, unknown>,
            },
          },
        ],
        deps,
      ),
    ).toEqual({ batchItemFailures: [{ itemIdentifier: '9' }] });
    expect(ids(await as[A]!('GET', `/deliveries?configId=${a}`))).toHaveLength(2);
  });

  it('finds the pending deliveries of every environment (the local start-up requeue), each named with its own', async () => {
    const a = await createConfig(A);
    const b = await createConfig(B);
    const pending = async (env: string, configId: string) => {
      const store = new DeliveryStore({ doc: runtime.doc, table, environment: env });
      const d = pendingDelivery(configId, '2015-01-01T00:00:00Z');
      expect(await store.create(d)).toBe(true);
      return d.id;
    };
    const pa = await pending(A, a);
    const pb = await pending(B, b);
    const found: Array<[string, string]> = [];
    for await (const page of pendingDeliveriesOfEveryEnvironment(runtime.doc, table))
      for (const id of page.ids) found.push([page.environment, id]);
    expect(found).toContainEqual([A, pa]);
    expect(found).toContainEqual([B, pb]);
    expect(found).not.toContainEqual([B, pa]);
    expect(found).not.toContainEqual([A, pb]);
  });
});

describe('the environment probe', () => {
  it('says whether an environment has a webhook config, from its own list only', async () => {
    const env = `probe-${randomBytes(3).toString('hex')}`;
    expect(await webhookConfigsExist(runtime.doc, table, env)).toBe(false);
    const token = await environmentToken(runtime, env);
    const app = createWebhooksApp(runtime, { documents: generatedDocuments });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await app.request('/api/webhooks/configs', {
      method: 'POST',
      headers,
      body: JSON.stringify({
        endpoint: 'https://probe.example.com/',
        eventTypes: ['ledger.saved_metadata'],
      }),
    });
    expect(created.status).toBe(200);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    expect(await webhookConfigsExist(runtime.doc, table, env)).toBe(true);
    expect(await webhookConfigsExist(runtime.doc, table, `${env}-x`)).toBe(false);
    expect(
      (await app.request(`/api/webhooks/configs/${id}`, { method: 'DELETE', headers })).status,
    ).toBe(200);
    expect(await webhookConfigsExist(runtime.doc, table, env)).toBe(false);
  });
});

describe('every item in its environment', () => {
  it("writes every item with pk and gsi1pk in its environment's E#<env># (property)", async () => {
    const created = new Map<string, string>();
    const envs = ['prop-a', 'prop-b'] as const;
    const step = fc.record({
      env: fc.constantFrom(...envs),
      action: fc.constantFrom('create', 'update', 'deactivate', 'activate', 'rotate', 'delete'),
      pick: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 8 }), async (steps) => {
        for (const { env, action, pick } of steps) {
          const own = [...created].filter(([, e]) => e === env).map(([id]) => id);
          const id = own[pick % Math.max(own.length, 1)];
          const call = as[env]!;
          if (action === 'create' || id === undefined) {
            created.set(
              await createConfig(env, {
                eventTypes: ['ledger.saved_metadata', 'payments.saved_payment'].slice(pick % 2),
              }),
              env,
            );
          } else if (action === 'update')
            expect((await call('PUT', `/configs/${id}`, { name: `n${pick}` })).status).toBe(200);
          else if (action === 'rotate')
            expect((await call('PUT', `/configs/${id}/secret/change`, {})).status).toBe(200);
          else if (action === 'delete') {
            expect((await call('DELETE', `/configs/${id}`)).status).toBe(200);
            created.delete(id);
          } else expect((await call('PUT', `/configs/${id}/${action}`)).status).toBe(200);
        }
        for (const item of await scanTable(runtime, table)) {
          const env = environmentOfKey(String(item.pk));
          expect(env, String(item.pk)).toBeDefined();
          if (item.gsi1pk !== undefined) expect(environmentOfKey(String(item.gsi1pk))).toBe(env);
          // An item of a config made here (the config, its subscriptions, its endpoint item) is in the
          // environment it was made in.
          const owner = [item.id, item.configId, item.sk]
            .map((v) => created.get(String(v)))
            .find((e) => e !== undefined);
          if (owner !== undefined) expect(env, String(item.pk)).toBe(owner);
        }
      }),
      { numRuns: 6 },
    );
    for (const item of await scanTable(runtime, runtime.config.tables.events))
      expect(environmentOfKey(String(item.pk))).toBeDefined();
  });
});
