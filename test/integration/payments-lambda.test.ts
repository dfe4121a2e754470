import { beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { parseJson } from '../../lib/json/bigint-json.js';
import { ADMIN, authApp, tokenFor } from '../support/auth.js';
import { testEnvironment } from '../support/tables.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResult>;
let handler: Handler;
let token: string;

beforeAll(async () => {
  const { env, runtime } = await testEnvironment();
  token = await tokenFor(authApp(runtime), ADMIN, 'payments:write');
  Object.assign(process.env, env);
  // The module builds its runtime from process.env at import, as it does in a Lambda container.
  ({ handler } = (await import('../../functions/payments.js')) as unknown as { handler: Handler });
});

function event(method: string, path: string, body?: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'ANY /api/payments/{proxy+}',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abc123.execute-api.us-east-1.amazonaws.com', authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'test' },
      requestId: 'gw-payments-1',
      routeKey: 'ANY /api/payments/{proxy+}',
      stage: '$default',
      time: '22/Nov/2026:10:00:00 +0000',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(body !== undefined ? { body } : {}),
  } as APIGatewayProxyEventV2;
}

describe('functions/payments.ts under an API Gateway HTTP API event', () => {
  it('creates and reads a payment with exact amounts', async () => {
    const body = '{"reference":"l-1","connectorID":"c","type":"PAY-IN","amount":99999999999999999999,"asset":"USD/2","scheme":"ACH","createdAt":"2026-11-22T10:04:05Z"}';
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
