/**
 * The deliveries list's filters (each served by an index partition or gsi1, the time range a sort-key range),
 * their cursors, and the eager cancellation of a config's pending deliveries on delete and deactivate.
 */
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../../infra/local/provision.js';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createWebhooksApp } from '../../../lib/webhooks/app.js';
import type { Delivery, DeliveryStatus } from '../../../lib/webhooks/domain/delivery.js';
import { DeliveryStore } from '../../../lib/webhooks/store/delivery-store.js';
import { deliveryKeys, filterPartition } from '../../../lib/webhooks/store/keys.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { pendingDelivery } from '../../support/deliveries.js';
import { type JsonCall, type JsonReply, jsonCaller } from '../../support/json-call.js';
import { localSqsClient } from '../../support/sqs.js';
import { testTables } from '../../support/tables.js';

/** The admin client's environment; webhooks-environments.test.ts crosses environments. */
const ENV = 'default';

let runtime: ServiceRuntime;
let store: DeliveryStore;
let sqsLocal: SqsLocal;
let sqs: SQSClient;
let call: JsonCall;
let table: string;

beforeAll(async () => {
  sqsLocal = await startSqsLocal();
  sqs = localSqsClient(sqsLocal.endpoint);
  const queues = await ensureQueues(sqs, `d${randomUUID().slice(0, 8)}-`);
  ({ runtime } = await testTables({ SQS_ENDPOINT: sqsLocal.endpoint, ...queues }));
  table = runtime.config.tables.webhooks;
  store = new DeliveryStore({ doc: runtime.doc, table, environment: ENV });
  const app = createWebhooksApp(runtime, { documents: generatedDocuments });
  const token = await tokenFor(authApp(runtime), ADMIN);
  call = jsonCaller(app, '/api/webhooks', token, JSON.parse);
});

afterAll(async () => {
  sqs?.destroy();
  await sqsLocal?.stop();
});

async function newConfig(): Promise<string> {
  const res = await call('POST', '/configs', {
    endpoint: `https://hooks.example.com/${randomUUID()}`,
    eventTypes: ['ledger.committed_transactions'],
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

/** A pending delivery created as the dispatcher creates it (with its index items), at `createdAt`. */
async function seed(configId: string, createdAt: string): Promise<Delivery> {
  const delivery = pendingDelivery(configId, createdAt);
  expect(await store.create(delivery)).toBe(true);
  return delivery;
}

/** One attempt ending in `status`, through the store exactly as `deliver` makes it. */
async function finish(d: Delivery, status: DeliveryStatus): Promise<void> {
  expect(await store.claimAttempt(d.id, 0, d.createdAt, Date.parse(d.createdAt) + 30_000)).toBe(
    true,
  );
  expect(
    await store.recordAttempt(
      d,
      { deliveryId: d.id, attempt: 1, at: d.createdAt, durationMs: 3, statusCode: 200 },
      { status, updatedAt: d.createdAt },
    ),
  ).toBe(true);
}

const ids = (res: JsonReply) => {
  expect(res.status, res.text).toBe(200);
  return (res.body.cursor.data as Array<{ id: string }>).map((d) => d.id);
};
const list = async (query: string) => ids(await call('GET', `/deliveries?${query}`));
/** Items of one index partition (what the filter reads). */
async function partition(pk: string): Promise<string[]> {
  const { Items = [] } = await runtime.doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
      ConsistentRead: true,
    }),
  );
  return Items.map((i) => String(i.deliveryId)).sort();
}

describe('GET /deliveries filters', () => {
  // 2020 dates: no other test of this file creates deliveries then, so unfiltered time ranges see only these.
  let a: string;
  let b: string;
  let a1: Delivery, a2: Delivery, b1: Delivery, b2: Delivery;

  beforeAll(async () => {
    [a, b] = [await newConfig(), await newConfig()];
    a1 = await seed(a, '2020-01-01T00:00:00Z');
    a2 = await seed(a, '2020-01-01T00:00:01.5Z');
    b1 = await seed(b, '2020-01-01T00:00:02Z');
    b2 = await seed(b, '2020-01-01T00:00:03.000001Z');
    await finish(a2, 'succeeded');
    await finish(b1, 'failed');
    expect(await store.cancel(b2, b2.createdAt, 0)).toBe(true);
  });

  it('configId, status and both together, newest first', async () => {
    expect(await list(`configId=${a}`)).toEqual([a2.id, a1.id]);
    expect(await list(`configId=${b}`)).toEqual([b2.id, b1.id]);
    expect(await list(`configId=${a}&status=pending`)).toEqual([a1.id]);
    expect(await list(`configId=${a}&status=succeeded`)).toEqual([a2.id]);
    expect(await list(`configId=${b}&status=cancelled`)).toEqual([b2.id]);
    expect(await list(`configId=${b}&status=pending`)).toEqual([]);
    // configID, the name the answers use, is taken for configId; both naming different configs is a 400.
    expect(await list(`configID=${b}&status=cancelled`)).toEqual([b2.id]);
    expect(await list(`configID=${b}&configId=${b}&status=cancelled`)).toEqual([b2.id]);
    expect((await call('GET', `/deliveries?configID=${a}&configId=${b}`)).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'configID: names another config than configId; send one of them',
    });
    expect(await list(`status=failed&createdAtTo=2021-01-01T00:00:00Z`)).toEqual([b1.id]);
    const view = (await call('GET', `/deliveries?configId=${b}&status=failed`)).body.cursor.data[0];
    // The official SDK's names, each field once; no payload in lists.
    expect(view).toEqual({
      id: b1.id,
      configID: b,
      eventID: b1.eventId,
      eventType: 'ledger.committed_transactions',
      status: 'failed',
      attemptCount: 1,
      replayGeneration: 0,
      lastAttemptAt: b1.createdAt,
      lastStatusCode: 200,
      createdAt: b1.createdAt,
      updatedAt: b1.createdAt,
    });
  });

  it('a time range: createdAtFrom inclusive, createdAtTo exclusive, with or without other filters', async () => {
    expect(
      await list('createdAtFrom=2020-01-01T00:00:00Z&createdAtTo=2020-01-01T00:00:04Z'),
    ).toEqual([b2.id, b1.id, a2.id, a1.id]);
    expect(
      await list('createdAtFrom=2020-01-01T00:00:01.5Z&createdAtTo=2020-01-01T00:00:03.000001Z'),
    ).toEqual([b1.id, a2.id]);
    // Any offset is read as the instant it names.
    expect(
      await list(
        'createdAtFrom=2020-01-01T01:00:01.500001%2B01:00&createdAtTo=2020-01-01T00:00:03.000002Z',
      ),
    ).toEqual([b2.id, b1.id]);
    expect(await list(`configId=${a}&createdAtFrom=2020-01-01T00:00:00.000001Z`)).toEqual([a2.id]);
    expect(await list(`configId=${a}&createdAtTo=2020-01-01T00:00:01.5Z`)).toEqual([a1.id]);
    expect(await list(`status=pending&createdAtTo=2021-01-01T00:00:00Z`)).toEqual([a1.id]);
    expect(
      await list(`createdAtFrom=2020-01-01T00:00:02Z&createdAtTo=2020-01-01T00:00:02Z`),
    ).toEqual([]);
  });

  it('pages carry their filters in the cursor; only pageSize may accompany a cursor', async () => {
    const first = await call(
      'GET',
      '/deliveries?createdAtFrom=2020-01-01T00:00:00Z&createdAtTo=2020-01-01T00:00:04Z&pageSize=3',
    );
    expect(ids(first)).toEqual([b2.id, b1.id, a2.id]);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await call('GET', `/deliveries?cursor=${first.body.cursor.next}`);
    expect(ids(second)).toEqual([a1.id]);
    expect(second.body.cursor).toMatchObject({ pageSize: 3, hasMore: false });
    expect(ids(await call('GET', `/deliveries?cursor=${second.body.cursor.previous}`))).toEqual([
      b2.id,
      b1.id,
      a2.id,
    ]);

    const byConfig = await call('GET', `/deliveries?configId=${a}&pageSize=1`);
    expect(ids(byConfig)).toEqual([a2.id]);
    expect(
      ids(await call('GET', `/deliveries?cursor=${byConfig.body.cursor.next}&pageSize=5`)),
    ).toEqual([a1.id]);
    const withFilter = await call(
      'GET',
      `/deliveries?cursor=${byConfig.body.cursor.next}&configId=${b}`,
    );
    expect(withFilter.status).toBe(400);
    expect(withFilter.body.errorCode).toBe('VALIDATION');
  });

  it('bad values and unknown parameters are 400 VALIDATION naming the parameter', async () => {
    for (const [query, field] of [
      ['status=done', 'status'],
      ['status=PENDING', 'status'],
      ['configId=not-a-config', 'configId'],
      ['createdAtFrom=yesterday', 'createdAtFrom'],
      ['createdAtTo=2020-02-30T00:00:00Z', 'createdAtTo'],
      ['createdAtFrom=2020-01-02T00:00:00Z&createdAtTo=2020-01-01T00:00:00Z', 'createdAtFrom'],
      ['eventType=ledger.committed_transactions', 'eventType'],
      ['pageSize=-1', 'pageSize'],
    ] as const) {
      const res = await call('GET', `/deliveries?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage.startsWith(`${field}:`), res.body.errorMessage).toBe(true);
    }
  });

  it('a replay moves the delivery back to the pending partitions, in the same write', async () => {
    const replayed = await call('POST', `/deliveries/${b1.id}/replay`);
    expect(replayed.status, replayed.text).toBe(200);
    expect(await list(`configId=${b}&status=pending`)).toEqual([b1.id]);
    expect(await list(`configId=${b}&status=failed`)).toEqual([]);
    expect(await partition(filterPartition(ENV, { status: 'failed' }))).not.toContain(b1.id);
    expect(await partition(filterPartition(ENV, { status: 'pending' }))).toContain(b1.id);
    // A second replay while pending: 409, nothing moved.
    expect((await call('POST', `/deliveries/${b1.id}/replay`)).status).toBe(409);
    expect(await list(`configId=${b}&status=pending`)).toEqual([b1.id]);
  });
});

describe('deleting or deactivating a config cancels its pending deliveries', () => {
  const now = '2026-11-22T10:00:00Z';

  for (const action of ['delete', 'deactivate'] as const) {
    it(`${action}: every pending delivery becomes cancelled (kept), finished ones are untouched`, async () => {
      const config = await newConfig();
      const other = await newConfig();
      const pending = [await seed(config, now), await seed(config, now), await seed(config, now)];
      const done = await seed(config, now);
      await finish(done, 'succeeded');
      const untouched = await seed(other, now);

      const res =
        action === 'delete'
          ? await call('DELETE', `/configs/${config}`)
          : await call('PUT', `/configs/${config}/deactivate`);
      expect(res.status, res.text).toBe(200);

      for (const d of pending)
        expect(await store.get(d.id)).toMatchObject({ status: 'cancelled', attempts: 0 });
      expect((await store.get(pending[0]!.id))!.nextAttemptAt).toBeUndefined();
      expect(await store.get(done.id)).toMatchObject({ status: 'succeeded' });
      expect(await store.get(untouched.id)).toMatchObject({ status: 'pending' });
      expect(
        await partition(filterPartition(ENV, { configId: config, status: 'pending' })),
      ).toEqual([]);
      expect(
        await partition(filterPartition(ENV, { configId: config, status: 'cancelled' })),
      ).toEqual(pending.map((d) => d.id).sort());
      expect(await list(`configId=${config}&status=cancelled`)).toHaveLength(3);
      expect(await list(`configId=${other}&status=pending`)).toEqual([untouched.id]);
    });
  }

  it('deactivating again sweeps deliveries dispatched since (idempotent, 200)', async () => {
    const config = await newConfig();
    expect((await call('PUT', `/configs/${config}/deactivate`)).status).toBe(200);
    const late = await seed(config, now); // dispatched from the dispatcher's stale config cache
    const again = await call('PUT', `/configs/${config}/deactivate`);
    expect(again.status).toBe(200);
    expect(again.body.data.active).toBe(false);
    expect(await store.get(late.id)).toMatchObject({ status: 'cancelled' });
  });

  it('an attempt in flight when the delivery is cancelled is still recorded; the delivery stays cancelled', async () => {
    const config = await newConfig();
    const d = await seed(config, now);
    expect(await store.claimAttempt(d.id, 0, now, Date.parse(now) + 30_000)).toBe(true);
    expect(await store.cancelPendingOf(config, now)).toBe(1);
    const recorded = await store.recordAttempt(
      d,
      { deliveryId: d.id, attempt: 1, at: now, durationMs: 5, statusCode: 500 },
      { status: 'pending', nextAttemptAt: 1, updatedAt: now },
    );
    expect(recorded).toBe(false);
    expect(await store.get(d.id)).toMatchObject({ status: 'cancelled', attempts: 1 });
    expect((await store.attempts(d.id, { pageSize: 10 })).data).toEqual([
      { deliveryId: d.id, attempt: 1, at: now, durationMs: 5, statusCode: 500 },
    ]);
    expect(await partition(filterPartition(ENV, { configId: config, status: 'pending' }))).toEqual(
      [],
    );
    const { Items = [] } = await runtime.doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': deliveryKeys.delivery(ENV, d.id).pk },
        ConsistentRead: true,
      }),
    );
    expect(Items.map((i) => i.sk)).toEqual(['ATTEMPT#0001', 'DELIVERY']);
  });
});

describe("the official SDK's shapes: one delivery, its attempts, replays", () => {
  it('GET /deliveries/<id> adds the exact payload; attempts carry attemptNumber, endpoint, outcome, statusCode 0 when nothing answered', async () => {
    const config = await newConfig();
    const d = await seed(config, '2019-06-01T00:00:00Z');
    expect(await store.claimAttempt(d.id, 0, d.createdAt, 0)).toBe(true);
    const first = {
      deliveryId: d.id,
      attempt: 1,
      at: '2019-06-01T00:00:01Z',
      durationMs: 15_000,
      error: 'timed out after 15000 ms',
      endpoint: 'https://hooks.example.com/x',
      outcome: 'retryable_failure' as const,
      replayGeneration: 0,
    };
    expect(
      await store.recordAttempt(d, first, {
        status: 'pending',
        nextAttemptAt: 0,
        updatedAt: first.at,
      }),
    ).toBe(true);
    expect(await store.claimAttempt(d.id, 1, first.at, 0)).toBe(true);
    // As recorded before attempts had endpoint and outcome.
    const second = {
      deliveryId: d.id,
      attempt: 2,
      at: '2019-06-01T00:00:07Z',
      durationMs: 12,
      statusCode: 204,
      responsePreview: 'ok',
    };
    expect(
      await store.recordAttempt(d, second, { status: 'succeeded', updatedAt: second.at }),
    ).toBe(true);

    const got = await call('GET', `/deliveries/${d.id}`);
    expect(got.body.data).toEqual({
      id: d.id,
      configID: config,
      eventID: d.eventId,
      eventType: 'ledger.committed_transactions',
      status: 'succeeded',
      attemptCount: 2,
      replayGeneration: 0,
      lastAttemptAt: second.at,
      lastStatusCode: 204,
      payload: '{}',
      createdAt: d.createdAt,
      updatedAt: second.at,
    });
    const attempts = await call('GET', `/deliveries/${d.id}/attempts`);
    expect(attempts.body.cursor).toMatchObject({ hasMore: false });
    expect(attempts.body.cursor.data).toEqual([
      {
        id: `${d.id}-0001`,
        deliveryID: d.id,
        attemptNumber: 1,
        replayGeneration: 0,
        endpoint: 'https://hooks.example.com/x',
        outcome: 'retryable_failure',
        statusCode: 0,
        durationMillis: 15_000,
        error: 'timed out after 15000 ms',
        createdAt: first.at,
      },
      {
        id: `${d.id}-0002`,
        deliveryID: d.id,
        attemptNumber: 2,
        replayGeneration: 0,
        endpoint: '',
        outcome: 'succeeded',
        statusCode: 204,
        durationMillis: 12,
        responseExcerpt: 'ok',
        createdAt: second.at,
      },
    ]);
  });

  it('a replay starts a new generation; with an Idempotency-Key a repeat gets the first answer, another delivery under the key is a 400', async () => {
    const config = await newConfig();
    const d = await seed(config, '2019-06-02T00:00:00Z');
    await finish(d, 'failed');
    const key = `replay-${randomUUID()}`;
    const replayed = await call('POST', `/deliveries/${d.id}/replay`, undefined, {
      'idempotency-key': key,
    });
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.body.data).toMatchObject({
      id: d.id,
      status: 'pending',
      replayGeneration: 1,
      attemptCount: 1,
      payload: '{}',
    });
    expect(await store.get(d.id)).toMatchObject({ status: 'pending', replayGeneration: 1 });
    // Without the key this would be a 409 (still pending); with it, the same answer again.
    const again = await call('POST', `/deliveries/${d.id}/replay`, undefined, {
      'idempotency-key': key,
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(replayed.body);
    expect((await call('POST', `/deliveries/${d.id}/replay`)).status).toBe(409);
    const other = await seed(config, '2019-06-02T00:00:01Z');
    const reused = await call('POST', `/deliveries/${other.id}/replay`, undefined, {
      'idempotency-key': key,
    });
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'Idempotency-Key: already used with a different request',
    });
    expect(await store.get(other.id)).toMatchObject({ status: 'pending', replayGeneration: 0 });
  });
});

describe('POST /deliveries/replay (bulk)', () => {
  const window = { createdAtFrom: '2018-03-01T00:00:00Z', createdAtTo: '2018-03-02T00:00:00Z' };

  it("expedites pending, replays failed, skips in-flight and inactive configs' deliveries, page by page", async () => {
    const [c, x] = [await newConfig(), await newConfig()];
    const f1 = await seed(c, '2018-03-01T00:00:00Z');
    const f2 = await seed(c, '2018-03-01T00:00:01Z');
    const p1 = await seed(c, '2018-03-01T00:00:02Z');
    const inFlight = await seed(c, '2018-03-01T00:00:03Z');
    const done = await seed(c, '2018-03-01T00:00:04Z');
    const outside = await seed(c, '2018-03-02T00:00:00.000001Z');
    const ofInactive = await seed(x, '2018-03-01T00:00:05Z');
    await finish(f1, 'failed');
    await finish(f2, 'failed');
    await finish(done, 'succeeded');
    await finish(outside, 'failed');
    await finish(ofInactive, 'failed');
    expect(await store.claimAttempt(inFlight.id, 0, inFlight.createdAt, Date.now() + 60_000)).toBe(
      true,
    );
    expect((await call('PUT', `/configs/${x}/deactivate`)).status).toBe(200);
    const before = Date.now();

    // Pages of at most 2 decisions, followed by cursor until hasMore is false.
    const body = { ...window, configIds: [x, c], pageSize: 2 };
    const totals = { replayed: 0, expedited: 0, skipped: 0 };
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await call('POST', '/deliveries/replay', {
        ...body,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status, page.text).toBe(200);
      const { replayed, expedited, skipped, hasMore, nextCursor, createdAtTo } = page.body.data;
      expect(createdAtTo).toBe(window.createdAtTo);
      expect(replayed + expedited + skipped).toBeLessThanOrEqual(2);
      Object.assign(totals, {
        replayed: totals.replayed + replayed,
        expedited: totals.expedited + expedited,
        skipped: totals.skipped + skipped,
      });
      pages++;
      if (!hasMore) {
        expect(nextCursor).toBeUndefined();
        break;
      }
      cursor = nextCursor;
      expect(pages).toBeLessThan(6);
    }
    expect(totals).toEqual({ replayed: 2, expedited: 1, skipped: 2 });
    expect(pages).toBeGreaterThanOrEqual(3);

    for (const d of [f1, f2])
      expect(await store.get(d.id)).toMatchObject({ status: 'pending', replayGeneration: 1 });
    expect((await store.get(p1.id))!.nextAttemptAt).toBeGreaterThanOrEqual(before);
    expect(await store.get(inFlight.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await store.get(inFlight.id))!.nextAttemptAt).toBeGreaterThan(before + 30_000);
    expect(await store.get(done.id)).toMatchObject({ status: 'succeeded', replayGeneration: 0 });
    expect(await store.get(outside.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });
    expect(await store.get(ofInactive.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });
  });

  it("remembers an Idempotency-Key's answer; refuses bad bodies, foreign cursors and windows over 90 days", async () => {
    const c = await newConfig();
    const f = await seed(c, '2018-03-01T12:00:00Z');
    await finish(f, 'failed');
    const key = randomUUID();
    const body = { ...window, configIds: [c], statuses: ['failed'] };
    const first = await call('POST', '/deliveries/replay', body, { 'idempotency-key': key });
    expect(first.body.data).toEqual({
      replayed: 1,
      expedited: 0,
      skipped: 0,
      hasMore: false,
      createdAtTo: window.createdAtTo,
    });
    const repeat = await call('POST', '/deliveries/replay', body, { 'idempotency-key': key });
    expect(repeat.body).toEqual(first.body);
    expect(await store.get(f.id)).toMatchObject({ replayGeneration: 1 });
    expect(
      (
        await call(
          'POST',
          '/deliveries/replay',
          { ...body, statuses: ['pending'] },
          { 'idempotency-key': key },
        )
      ).status,
    ).toBe(400);

    for (const [bad, field] of [
      [{ createdAtTo: window.createdAtTo }, 'body.createdAtFrom'],
      [{ ...window, statuses: ['succeeded'] }, 'body.statuses'],
      [{ ...window, configIds: ['nope'] }, 'body.configIds'],
      [{ ...window, pageSize: 0 }, 'body.pageSize'],
      [{ ...window, extra: 1 }, 'extra'],
      [
        { createdAtFrom: '2018-01-01T00:00:00Z', createdAtTo: '2018-04-02T00:00:00Z' },
        'at most 90 days',
      ],
      [
        { createdAtFrom: window.createdAtTo, createdAtTo: window.createdAtFrom },
        'must be positive',
      ],
      [{ ...window, cursor: 'eyJ4IjoxfQ' }, 'cursor'],
    ] as const) {
      const res = await call('POST', '/deliveries/replay', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage, JSON.stringify(bad)).toContain(field);
    }
    // A cursor continues only the request it came from.
    const paged = await call('POST', '/deliveries/replay', {
      ...window,
      pageSize: 1,
      statuses: ['pending'],
      configIds: [c],
    });
    expect(paged.body.data.hasMore).toBe(true);
    const mismatch = await call('POST', '/deliveries/replay', {
      ...window,
      statuses: ['failed'],
      configIds: [c],
      cursor: paged.body.data.nextCursor,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errorMessage).toContain('cursor: does not match the request');
  });
});

describe('replaying a delivery whose config is deleted or inactive', () => {
  // Before: 200 `pending`, then the deliverer cancelled it unsent.
  it('is a 409 naming why, and leaves the delivery as it was; once re-activated the replay goes through', async () => {
    const now = '2026-11-23T10:00:00Z';
    const deleted = await newConfig();
    const gone = await seed(deleted, now);
    await finish(gone, 'failed');
    expect((await call('DELETE', `/configs/${deleted}`)).status).toBe(200);
    const refused = await call('POST', `/deliveries/${gone.id}/replay`);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 409,
      body: {
        errorCode: 'CONFLICT',
        errorMessage: `delivery ${gone.id} cannot be replayed: its config ${deleted} was deleted`,
      },
    });
    expect(await store.get(gone.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });

    const paused = await newConfig();
    const waiting = await seed(paused, now);
    await finish(waiting, 'failed');
    expect((await call('PUT', `/configs/${paused}/deactivate`)).status).toBe(200);
    const inactive = await call('POST', `/deliveries/${waiting.id}/replay`);
    expect({ status: inactive.status, body: inactive.body }).toEqual({
      status: 409,
      body: {
        errorCode: 'CONFLICT',
        errorMessage: `delivery ${waiting.id} cannot be replayed: its config ${paused} is inactive (activate it first)`,
      },
    });
    expect(await store.get(waiting.id)).toMatchObject({ status: 'failed', replayGeneration: 0 });
    expect((await call('PUT', `/configs/${paused}/activate`)).status).toBe(200);
    const replayed = await call('POST', `/deliveries/${waiting.id}/replay`);
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.body.data).toMatchObject({ status: 'pending', replayGeneration: 1 });
  });
});
