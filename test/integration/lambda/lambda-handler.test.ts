import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '../../support/api-gateway.js';
import { testTables } from '../../support/tables.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResult>;
let handler: Handler;

beforeAll(async () => {
  const { variables: env } = await testTables({
    AUTH_CONFIG_INLINE: JSON.stringify({
      clients: [{ id: 'lambda-client', secrets: ['lambda-secret-0123456'] }],
    }),
  });
  Object.assign(process.env, env);
  // The module builds its runtime from process.env at import, as it does in a Lambda container.
  ({ handler } = (await import('../../../functions/auth.js')) as unknown as { handler: Handler });
});

function event(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): APIGatewayProxyEventV2 {
  return httpApiEvent(method, path, {
    service: 'auth',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
}

describe('functions/auth.ts under an API Gateway HTTP API event', () => {
  it('serves discovery with the full path and the gateway request id', async () => {
    const res = await handler(
      event('GET', '/api/auth/.well-known/openid-configuration'),
      {} as Context,
    );
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).token_endpoint).toBe('http://platform.test/api/auth/oauth/token');
    expect(res.headers?.['x-request-id']).toBe('gw-request-1');
  });

  it('issues a token for a static client from AUTH_CONFIG_INLINE', async () => {
    const body =
      'grant_type=client_credentials&client_id=lambda-client&client_secret=lambda-secret-0123456';
    const res = await handler(
      event('POST', '/api/auth/oauth/token', body, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      {} as Context,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body).token_type).toBe('Bearer');
  });

  it('serves the public GET /versions too (the API routes it to this function)', async () => {
    const res = await handler(event('GET', '/versions'), {} as Context);
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.versions.map((v: { name: string; health: boolean }) => [v.name, v.health])).toEqual(
      [
        ['auth', true],
        ['ledger', true],
        ['webhooks', true],
        ['payments', true],
      ],
    );
  });

  it('answers an unknown path with the contract 404', async () => {
    const res = await handler(event('GET', '/api/auth/nope'), {} as Context);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body).errorCode).toBe('NOT_FOUND');
  });
});
