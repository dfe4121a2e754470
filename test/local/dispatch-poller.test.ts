/**
 * The events stream poller of the local platform, end to end: a committed transaction's event reaches the
 * webhooks table as a delivery for every subscribed config, exactly as the dispatch Lambda would create it.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { createDocumentClient } from '../../lib/dynamo/client.js';
import { deliveryId } from '../../lib/webhooks/deliveries/model.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';

let platform: RunningPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await testClientToken(platform);
});
afterAll(async () => {
  await platform?.stop();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: any }> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

describe('local dispatch (events stream poller)', () => {
  it('turns a committed transaction into a delivery for the subscribed config', async () => {
    const config = await call('POST', '/api/webhooks/configs', { endpoint: 'http://127.0.0.1:9/hook', eventTypes: ['ledger.committed_transactions'] });
    expect(config.status, config.text).toBe(200);
    const configId: string = config.body.data.id;

    const ledger = `dispatch${randomBytes(4).toString('hex')}`;
    const created = await call('POST', `/api/ledger/v2/${ledger}`);
    expect(created.status, created.text).toBeLessThan(300);
    const tx = await call('POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:1', amount: 42, asset: 'USD' }],
    });
    expect(tx.status, tx.text).toBeLessThan(300);

    const doc = createDocumentClient({ endpoint: platform.env.DYNAMODB_ENDPOINT!, region: 'us-east-1' });
    try {
      let delivery: Record<string, any> | undefined;
      const deadline = Date.now() + 10_000;
      while (!delivery && Date.now() < deadline) {
        const { Items = [] } = await doc.send(
          new QueryCommand({
            TableName: platform.env.WEBHOOKS_TABLE!,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :p',
            ExpressionAttributeValues: { ':p': 'DELIVERIES' },
          }),
        );
        delivery = Items.find((d) => d.configId === configId);
        if (!delivery) await new Promise((r) => setTimeout(r, 100));
      }
      expect(delivery, 'no delivery within 10 s').toBeDefined();
      const envelope = JSON.parse(delivery!.body);
      expect(envelope).toMatchObject({ type: 'ledger.committed_transactions', app: 'ledger', payload: { ledger } });
      expect(delivery).toMatchObject({ id: deliveryId(envelope.id, configId), eventId: envelope.id, status: 'pending' });
      // Exactly the event row's body.
      const { Item: event } = await doc.send(
        new GetCommand({ TableName: platform.env.EVENTS_TABLE!, Key: { pk: `EVENT#${envelope.id}`, sk: 'EVENT' } }),
      );
      expect(delivery!.body).toBe(event?.body);
    } finally {
      doc.destroy();
    }
  });
});
