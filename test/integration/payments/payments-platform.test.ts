/**
 * The payments service as `npm start` serves it: the local platform over real HTTP (API Gateway-like routing,
 * the auth service's token endpoint), on the run's shared DynamoDB Local. Webhooks have not landed, so the
 * outgoing event is checked where the dispatcher will find it: the events table.
 */
import { type DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../../events/catalog.js';
import { savedPaymentPayloadSchema } from '../../../events/payments.js';
import type { RunningPlatform } from '../../../infra/local/platform.js';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { platformDocumentClient, startTestPlatform } from '../../support/platform.js';

let platform: RunningPlatform;
let doc: DynamoDBDocumentClient;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  doc = platformDocumentClient(platform, { bigintNumbers: true });
  const res = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('local-dev:local-dev-secret').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=payments:read payments:write',
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  doc?.destroy();
  await platform?.stop();
});

const api = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  fetch(`${platform.baseUrl}/api/payments${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body } : {}),
  });

describe('payments through the local platform', () => {
  it('records a payment over HTTP (the README walkthrough) and writes its payments.saved_payment event row', async () => {
    const amount = '12345678901234567890123456789012345678'; // 38 digits, as a bare JSON number
    const created = await api(
      'POST',
      '/v3/payments',
      `{"reference":"po-2026-0001","connectorID":"bank-1","type":"PAYOUT","amount":${amount},"asset":"EUR/2",` +
        `"scheme":"SEPA_CREDIT","createdAt":"2026-11-22T10:04:05Z","destinationAccountID":"supplier-7","metadata":{"invoice":"INV-1"}}`,
    );
    expect(created.status).toBe(201);
    const text = await created.text();
    expect(text).toContain(`"amount":${amount}`);
    const payment = (parseJson(text) as { data: Record<string, unknown> }).data;
    expect(payment).toMatchObject({
      status: 'PENDING',
      initialAmount: BigInt(amount),
      metadata: { invoice: 'INV-1' },
    });
    const id = String(payment.id);

    const updated = await api(
      'POST',
      '/v3/payments',
      JSON.stringify({
        reference: 'po-2026-0001',
        connectorID: 'bank-1',
        type: 'PAYOUT',
        amount,
        asset: 'EUR/2',
        scheme: 'SEPA_CREDIT',
        createdAt: '2026-11-22T10:04:05Z',
        status: 'SUCCEEDED',
      }),
    );
    expect(updated.status).toBe(201);
    expect(await api('PATCH', `/v3/payments/${id}/metadata`, '{"batch":"7"}')).toHaveProperty(
      'status',
      204,
    );

    const got = await api('GET', `/v3/payments/${id}`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(got.status).toBe(200);
    const current = ((await got.json()) as { data: Record<string, unknown> }).data;
    expect(current).toMatchObject({
      id,
      status: 'SUCCEEDED',
      amount,
      metadata: { invoice: 'INV-1', batch: '7' },
    });
    const listed = await api('GET', '/v3/payments?status=SUCCEEDED&connectorID=bank-1');
    expect(
      ((await listed.json()) as { cursor: { data: Array<{ id: string }> } }).cursor.data.map(
        (p) => p.id,
      ),
    ).toEqual([id]);

    const { Items = [] } = await doc.send(
      new ScanCommand({ TableName: platform.variables.EVENTS_TABLE!, ConsistentRead: true }),
    );
    const rows = Items.filter((r) => r.paymentId === id).sort(
      (a, b) => Number(a.paymentVersion) - Number(b.paymentVersion),
    );
    expect(rows.map((r) => r.type)).toEqual([
      'payments.saved_payment',
      'payments.saved_payment',
      'payments.saved_payment',
    ]);
    const envelopes = rows.map(
      (r) => parseJson(String(r.body)) as { id: string; payload: Record<string, unknown> },
    );
    for (const [i, envelope] of envelopes.entries()) {
      expect(v.safeParse(envelopeSchema, envelope).success).toBe(true);
      expect(v.safeParse(savedPaymentPayloadSchema, envelope.payload).success).toBe(true);
      expect(rows[i]!.pk).toBe(`E#default#EVENT#${envelope.id}`);
    }
    expect(envelopes[0]!.payload.amount).toBe(BigInt(amount));
    expect(envelopes.map((e) => e.payload.status)).toEqual(['PENDING', 'SUCCEEDED', 'SUCCEEDED']);
    expect(envelopes[2]!.payload.metadata).toEqual({ invoice: 'INV-1', batch: '7' });

    const { Item } = await doc.send(
      new GetCommand({
        TableName: platform.variables.PAYMENTS_TABLE!,
        Key: { pk: `E#default#PAYMENT#${id}`, sk: 'PAYMENT' },
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ version: 3n, amount: BigInt(amount) });
  });

  it('reports the payments app in the platform health check', async () => {
    const res = await fetch(`${platform.baseUrl}/_health`);
    expect(((await res.json()) as { components: Record<string, string> }).components.payments).toBe(
      'up',
    );
  });
});
