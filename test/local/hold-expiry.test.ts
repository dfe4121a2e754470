/**
 * Holds expire by themselves on the local platform: the hold sweeper's timer (the stack's scheduled Lambda, the
 * same sweep) finds a due hold on the ledger table's `due` index and releases it — a VOIDED_PENDING entry with
 * reason EXPIRED in the log, its `ledger.voided_pending` event delivered to a webhook, the money available again —
 * while a hold that is not due, and one posted, are left as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform, until } from '../support/platform.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let platform: RunningPlatform;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const call = (method: string, path: string, body?: unknown) =>
  platformCall(platform, method, `/api/ledger${path}`, body);
const usd = (source: string, destination: string, amount: number) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  platform = await startTestPlatform({ holdSweepIntervalMs: 200 });
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

describe('hold expiry on the local platform', () => {
  it('a hold with a short expiry is released by itself: EXPIRED, logged, evented, available restored', async () => {
    const hook = await platformCall(platform, 'POST', '/api/webhooks/configs', {
      endpoint: receiver.url,
      eventTypes: ['ledger.voided_pending'],
    });
    expect(hook.status).toBe(200);
    expect(
      (await call('POST', '/v2/holds', { features: { PENDING_TRANSFERS: 'ON' } })).status,
    ).toBe(204);
    const fund = await call('POST', '/v2/holds/transactions', {
      postings: [usd('world', 'card', 100)],
    });
    expect(fund.status).toBe(200);
    const short = await call('POST', '/v2/holds/pending', {
      postings: [usd('card', 'shop', 30)],
      timeout: 1,
    });
    const long = await call('POST', '/v2/holds/pending', {
      postings: [usd('card', 'shop', 20)],
      timeout: 3600,
    });
    const captured = await call('POST', '/v2/holds/pending', {
      postings: [usd('card', 'shop', 10)],
      timeout: 3600,
    });
    expect([short.status, long.status, captured.status]).toEqual([201, 201, 201]);
    expect((await call('POST', `/v2/holds/pending/${captured.body.data.id}/post`, {})).status).toBe(
      200,
    );

    const expired = await until('the short hold to expire', async () => {
      const hold = (await call('GET', `/v2/holds/pending/${short.body.data.id}`)).body.data;
      return hold.status === 'EXPIRED' ? hold : undefined;
    });
    expect(expired.postings).toEqual([
      { ...usd('card', 'shop', 30), posted: 0, voided: 30, remaining: 0 },
    ]);
    expect((await call('GET', '/v2/holds/accounts/card/balances')).body.data).toEqual({
      USD: { posted: 90, pendingIn: 0, pendingOut: 20, available: 70 },
    });
    const statuses = await Promise.all(
      [long, captured].map(
        async (h) => (await call('GET', `/v2/holds/pending/${h.body.data.id}`)).body.data.status,
      ),
    );
    expect(statuses).toEqual(['PENDING', 'POSTED']);

    const logs = (await call('GET', '/v2/holds/logs?pageSize=100')).body.cursor.data as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    const voids = logs.filter((l) => l.type === 'VOIDED_PENDING');
    expect(voids.map((l) => [l.data.reason, (l.data.pending as { id: number }).id])).toEqual([
      ['EXPIRED', short.body.data.id],
    ]);

    const delivered = await until('the voided_pending event', () =>
      receiver.received.length > 0 ? receiver.received : undefined,
    );
    const event = JSON.parse(delivered[0]!.body);
    expect([event.type, event.payload.ledger, event.payload.reason]).toEqual([
      'ledger.voided_pending',
      'holds',
      'EXPIRED',
    ]);
    expect(event.payload.pending.id).toBe(short.body.data.id);
  });
});
