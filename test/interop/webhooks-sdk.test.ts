/**
 * The official TypeScript SDK, unmodified, against the local platform's webhook configurations over real HTTP:
 * its OAuth flow (webhooks:read / webhooks:write), its request shapes and its strict (zod) parsing of Config.
 */
import { randomBytes } from 'node:crypto';
import type { SDK } from '@formance/formance-sdk';
import type { Delivery } from '@formance/formance-sdk/sdk/models/webhooks/delivery.js';
import { ErrorResponse } from '@formance/formance-sdk/sdk/models/webhooks/errorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { testClientToken } from '../support/platform.js';
import { startSdkPlatform } from '../support/sdk.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let platform: RunningPlatform;
let sdk: SDK;

beforeAll(async () => {
  ({ platform, sdk } = await startSdkPlatform());
});

afterAll(async () => {
  await platform?.stop();
});

describe('@formance/formance-sdk 7 against webhook configurations', () => {
  it('inserts, lists, gets, activates, deactivates, changes the secret of, updates and deletes a config', async () => {
    // http is allowed: the local platform runs in the `local` stage.
    const endpoint = 'http://127.0.0.1:9/sdk-hook';
    const inserted = await sdk.webhooks.v1.insertConfig({
      endpoint,
      eventTypes: ['Ledger.Committed_Transactions'],
    });
    expect(inserted.statusCode).toBe(200);
    const config = inserted.configResponse!.data;
    expect(config).toMatchObject({
      endpoint,
      eventTypes: ['ledger.committed_transactions'],
      active: true,
    });
    expect(config.createdAt).toBeInstanceOf(Date);
    expect(config.updatedAt).toBeInstanceOf(Date);
    expect(config.secret).toMatch(/^whsec_/);

    const many = await sdk.webhooks.v1.getManyConfigs({});
    expect(many.configsResponse!.cursor.data.map((c) => c.id)).toContain(config.id);
    expect(many.configsResponse!.cursor.hasMore).toBe(false);
    const byId = await sdk.webhooks.v1.getManyConfigs({ id: config.id });
    expect(byId.configsResponse!.cursor.data).toEqual([config]);
    const byEndpoint = await sdk.webhooks.v1.getManyConfigs({ endpoint });
    expect(byEndpoint.configsResponse!.cursor.data.map((c) => c.id)).toEqual([config.id]);

    const off = await sdk.webhooks.v1.deactivateConfig({ id: config.id });
    expect(off.configResponse!.data.active).toBe(false);
    const offAgain = await sdk.webhooks.v1.deactivateConfig({ id: config.id });
    expect(offAgain.configResponse!.data.active).toBe(false);
    const on = await sdk.webhooks.v1.activateConfig({ id: config.id });
    expect(on.configResponse!.data.active).toBe(true);

    const generated = await sdk.webhooks.v1.changeConfigSecret({ id: config.id });
    expect(generated.configResponse!.data.secret).toMatch(/^whsec_/);
    expect(generated.configResponse!.data.secret).not.toBe(config.secret);
    const given = `whsec_${randomBytes(24).toString('base64')}`;
    const changed = await sdk.webhooks.v1.changeConfigSecret({
      id: config.id,
      configChangeSecret: { secret: given },
    });
    expect(changed.configResponse!.data.secret).toBe(given);

    const updated = await sdk.webhooks.v1.updateConfig({
      id: config.id,
      configUser: { endpoint, eventTypes: ['payments.saved_payment'] },
    });
    expect(updated.statusCode).toBe(200);
    const afterUpdate = await sdk.webhooks.v1.getManyConfigs({ id: config.id });
    expect(afterUpdate.configsResponse!.cursor.data[0]!.eventTypes).toEqual([
      'payments.saved_payment',
    ]);

    const deleted = await sdk.webhooks.v1.deleteConfig({ id: config.id });
    expect(deleted.statusCode).toBe(200);
    expect(
      (await sdk.webhooks.v1.getManyConfigs({ id: config.id })).configsResponse!.cursor.data,
    ).toEqual([]);
  });

  it("surfaces our errors as the SDK's typed webhooks ErrorResponse (codes within its closed enum)", async () => {
    const err = await sdk.webhooks.v1
      .insertConfig({
        endpoint: 'ftp://x.example.com',
        eventTypes: ['ledger.committed_transactions'],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrorResponse);
    expect((err as ErrorResponse).errorCode).toBe('VALIDATION');
    expect((err as ErrorResponse).statusCode).toBe(400);

    const missing = await sdk.webhooks.v1
      .activateConfig({ id: '6f1c1b1e-0000-4000-8000-000000000000' })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ErrorResponse);
    expect((missing as ErrorResponse).errorCode).toBe('NOT_FOUND');
    expect((missing as ErrorResponse).statusCode).toBe(404);
  });
});

describe('@formance/formance-sdk 7 against deliveries, attempts, replays and the config test', () => {
  it('parses a real delivery, its attempts, a replay and a bulk replay with exact values', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const config = (
        await sdk.webhooks.v1.insertConfig({
          endpoint: receiver.url,
          eventTypes: ['ledger.committed_transactions'],
        })
      ).configResponse!.data;
      // A committed transaction on the ledger: its event reaches the receiver through dispatch and deliver.
      const token = await testClientToken(platform);
      const ledger = `sdkhooks${randomBytes(3).toString('hex')}`;
      const post = (path: string, body?: unknown) =>
        fetch(`${platform.baseUrl}/api/ledger/v2/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      expect((await post(ledger)).status).toBe(204);
      const before = new Date(Date.now() - 1000);
      expect(
        (
          await post(`${ledger}/transactions`, {
            postings: [{ source: 'world', destination: 'a', amount: 7, asset: 'USD' }],
          })
        ).status,
      ).toBe(200);

      let delivery: Delivery;
      const deadline = Date.now() + WAIT_LIMIT_MS;
      for (;;) {
        const listed = await sdk.webhooks.v1.getDeliveries({
          configId: config.id,
          status: 'succeeded',
        });
        if (listed.deliveriesResponse!.cursor.data.length > 0) {
          delivery = listed.deliveriesResponse!.cursor.data[0]!;
          break;
        }
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(receiver.received).toHaveLength(1);
      const sent = receiver.received[0]!;
      expect(delivery).toMatchObject({
        id: sent.headers['webhook-id'],
        configID: config.id,
        eventType: 'ledger.committed_transactions',
        status: 'succeeded',
        attemptCount: 1,
        replayGeneration: 0,
        lastStatusCode: 200,
      });
      expect(delivery.eventID).toBe((JSON.parse(sent.body) as { id: string }).id);
      expect(delivery.payload).toBeUndefined();
      expect(delivery.createdAt).toBeInstanceOf(Date);
      expect(delivery.lastAttemptAt).toBeInstanceOf(Date);

      const one = (await sdk.webhooks.v1.getDelivery({ id: delivery.id })).deliveryResponse!.data;
      expect(one.payload).toBe(sent.body);
      expect({ ...one, payload: undefined }).toEqual({ ...delivery, payload: undefined });

      const attempts = (await sdk.webhooks.v1.getDeliveryAttempts({ id: delivery.id }))
        .deliveryAttemptsResponse!.cursor;
      expect(attempts.hasMore).toBe(false);
      expect(attempts.data).toHaveLength(1);
      expect(attempts.data[0]).toMatchObject({
        id: `${delivery.id}-0001`,
        deliveryID: delivery.id,
        attemptNumber: 1,
        replayGeneration: 0,
        endpoint: receiver.url,
        outcome: 'succeeded',
        statusCode: 200,
      });
      expect(attempts.data[0]!.createdAt).toBeInstanceOf(Date);
      expect(typeof attempts.data[0]!.durationMillis).toBe('number');

      // Replay: a new generation, sent again with the same id; the SDK's Idempotency-Key returns the same answer.
      const replay = await sdk.webhooks.v1.replayDelivery({
        id: delivery.id,
        idempotencyKey: `k-${delivery.id}`,
      });
      expect(replay.deliveryResponse!.data).toMatchObject({
        id: delivery.id,
        status: 'pending',
        replayGeneration: 1,
        payload: sent.body,
      });
      const again = await sdk.webhooks.v1.replayDelivery({
        id: delivery.id,
        idempotencyKey: `k-${delivery.id}`,
      });
      expect(again.deliveryResponse!.data).toEqual(replay.deliveryResponse!.data);
      const resendDeadline = Date.now() + WAIT_LIMIT_MS;
      while (receiver.received.length < 2) {
        expect(Date.now()).toBeLessThan(resendDeadline);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(receiver.received[1]!.headers['webhook-id']).toBe(delivery.id);
      expect(receiver.received).toHaveLength(2);

      // Bulk replay of the window: nothing failed or pending is left once the replay has been sent.
      let settled = (await sdk.webhooks.v1.getDelivery({ id: delivery.id })).deliveryResponse!.data;
      while (settled.status !== 'succeeded') {
        expect(Date.now()).toBeLessThan(resendDeadline);
        await new Promise((r) => setTimeout(r, 100));
        settled = (await sdk.webhooks.v1.getDelivery({ id: delivery.id })).deliveryResponse!.data;
      }
      expect(settled).toMatchObject({ attemptCount: 2, replayGeneration: 1 });
      const generations = (await sdk.webhooks.v1.getDeliveryAttempts({ id: delivery.id }))
        .deliveryAttemptsResponse!.cursor.data;
      expect(generations.map((a) => [a.attemptNumber, a.replayGeneration, a.outcome])).toEqual([
        [1, 0, 'succeeded'],
        [2, 1, 'succeeded'],
      ]);
      const createdAtTo = new Date(Date.now() + 1000);
      const bulk = await sdk.webhooks.v1.replayDeliveries({
        idempotencyKey: `bulk-${delivery.id}`,
        replayDeliveriesRequest: { createdAtFrom: before, createdAtTo, configIds: [config.id] },
      });
      expect(bulk.replayDeliveriesResponse!.data).toEqual({
        replayed: 0,
        expedited: 0,
        skipped: 0,
        hasMore: false,
        createdAtTo,
      });
    } finally {
      await receiver.close();
    }
  });

  it('testConfig answers the reference Attempt after POSTing its test payload, signed', async () => {
    const receiver = await startWebhookReceiver([200, 503]);
    try {
      const config = (
        await sdk.webhooks.v1.insertConfig({
          endpoint: receiver.url,
          eventTypes: ['payments.saved_payment'],
        })
      ).configResponse!.data;
      const ok = (await sdk.webhooks.v1.testConfig({ id: config.id })).attemptResponse!.data;
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.body).toBe('{"data":"test"}');
      expect(ok).toMatchObject({
        id: receiver.received[0]!.headers['webhook-id'],
        webhookID: receiver.received[0]!.headers['webhook-id'],
        payload: '{"data":"test"}',
        retryAttempt: 0,
        status: 'success',
        statusCode: 200,
      });
      expect(ok.config).toEqual(config);
      expect(ok.createdAt).toBeInstanceOf(Date);
      expect(ok.updatedAt.getTime()).toBeGreaterThanOrEqual(ok.createdAt.getTime());
      const failed = (await sdk.webhooks.v1.testConfig({ id: config.id })).attemptResponse!.data;
      expect(failed).toMatchObject({ status: 'failed', statusCode: 503, retryAttempt: 0 });
      const missing = await sdk.webhooks.v1
        .testConfig({ id: '6f1c1b1e-0000-4000-8000-000000000000' })
        .catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(ErrorResponse);
      expect((missing as ErrorResponse).errorCode).toBe('NOT_FOUND');
    } finally {
      await receiver.close();
    }
  });
});
