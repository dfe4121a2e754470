/**
 * Issue #8's "done when" end to end on the local platform: a mapping that allows `users:*` an overdraft of 1000
 * accepts a spend to -1000 and refuses -1001, and replacing it emits `ledger.updated_mapping`, which reaches a
 * webhook receiver on this machine signed (mapping item → ledger table stream poller → dispatch → queue → deliver).
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform } from '../support/platform.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let platform: RunningPlatform;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

const api = (method: string, path: string, body?: unknown) =>
  platformCall(platform, method, path, body);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

describe('ledger mapping on the local platform', () => {
  it('enforces a users:* overdraft of 1000 and delivers ledger.updated_mapping to a webhook receiver', async () => {
    const config = await api('POST', '/api/webhooks/configs', {
      endpoint: receiver.url,
      eventTypes: ['ledger.updated_mapping'],
    });
    expect(config.status).toBe(200);
    const secret = config.body.data.secret as string;
    expect((await api('POST', '/api/ledger/v2/overdrafts')).status).toBe(204);
    const mapping = { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -1000] } }] };
    expect(await api('PUT', '/api/ledger/overdrafts/mapping', mapping)).toEqual({
      status: 200,
      body: { data: mapping },
    });

    const spend = (amount: number) =>
      api('POST', '/api/ledger/overdrafts/transactions', {
        postings: [{ source: 'users:1', destination: 'shop', amount, asset: 'USD' }],
      });
    const ok = await spend(1000);
    expect(ok.status).toBe(200);
    expect(ok.body.data[0].postCommitVolumes['users:1'].USD.balance).toBe(-1000);
    const refused = await spend(1);
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');

    // Polls until the delivery arrives (the pollers run on their own schedule); the assertion is on content.
    const { received } = receiver;
    for (let i = 0; i < 300 && received.length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    expect(() =>
      new Webhook(secret).verify(body, {
        'webhook-id': headers['webhook-id']!,
        'webhook-timestamp': headers['webhook-timestamp']!,
        'webhook-signature': headers['webhook-signature']!,
      }),
    ).not.toThrow();
    const envelope = JSON.parse(body);
    expect(envelope).toMatchObject({
      app: 'ledger',
      version: 'v2',
      type: 'ledger.updated_mapping',
      idempotency_key: '',
      payload: { ledger: 'overdrafts', mapping },
    });
  });
});
