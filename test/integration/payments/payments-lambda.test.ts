import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { httpApiEvent } from '../../support/api-gateway.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResult>;
let handler: Handler;
let token: string;

beforeAll(async () => {
  const { variables: env, runtime } = await testTables();
  token = await tokenFor(authApp(runtime), ADMIN, 'payments:write');
  Object.assign(process.env, env);
  // The module builds its runtime from process.env at import, as it does in a Lambda container.
  ({ handler } = (await import('../../../functions/payments.js')) as unknown as {
    handler: Handler;
  });
});

function event(method: string, path: string, body?: string): APIGatewayProxyEventV2 {
  const headers = {
    authorization: `Bearer ${token}`,
    ...(body ? { 'content-type': 'application/json' } : {}),
  };
  return httpApiEvent(method, path, {
    service: 'payments',
    headers,
    requestId: 'gw-payments-1',
    ...(body !== undefined ? { body } : {}),
  });
}

describe('functions/payments.ts under an API Gateway HTTP API event', () => {
  it('creates and reads a payment with exact amounts', async () => {
    const body =
      '{"reference":"l-1","connectorID":"c","type":"PAY-IN","amount":99999999999999999999,"asset":"USD/2","scheme":"ACH","createdAt":"2026-11-22T10:04:05Z"}';
    const created = await handler(event('POST', '/api/payments/v3/payments', body), {} as Context);
    expect(created.statusCode).toBe(201);
    expect(created.headers?.['x-request-id']).toBe('gw-payments-1');
    const { data } = parseJson(created.body) as { data: { id: string; amount: bigint } };
    expect(data.amount).toBe(99999999999999999999n);
    const got = await handler(event('GET', `/api/payments/v3/payments/${data.id}`), {} as Context);
    expect(got.statusCode).toBe(200);
    expect(got.body).toContain('"amount":99999999999999999999');
  });

  it('answers an unknown payment with the contract 404', async () => {
    const res = await handler(event('GET', '/api/payments/v3/payments/nope'), {} as Context);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body).errorCode).toBe('NOT_FOUND');
  });
});
