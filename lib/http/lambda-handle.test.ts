/**
 * The HTTP API functions' Lambda adapter (lib/http/lambda-handle.ts): a method the Fetch standard forbids
 * (TRACE, TRACK, CONNECT) is answered in the contract's error shape, as any method without a route is, where
 * `hono/aws-lambda` alone answered a text/plain 400 "Invalid request".
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { handleHttpApi } from './lambda-handle.js';

const app = new Hono();
app.all('/api/ledger/*', (c) => c.json({ method: c.req.method }));
const handler = handleHttpApi(app);

const event = (method: string) => ({
  version: '2.0',
  routeKey: 'ANY /api/ledger/{proxy+}',
  rawPath: '/api/ledger/v2',
  rawQueryString: '',
  headers: { host: 'api.example.com' },
  requestContext: {
    domainName: 'api.example.com',
    http: {
      method,
      path: '/api/ledger/v2',
      protocol: 'HTTP/1.1',
      sourceIp: '1.2.3.4',
      userAgent: '',
    },
    requestId: 'r1',
    routeKey: 'ANY /api/ledger/{proxy+}',
    stage: '$default',
    timeEpoch: 0,
  },
  isBase64Encoded: false,
});
// biome-ignore lint/suspicious/noExplicitAny: a hand-made payload 2.0 event
const invoke = (method: string) => handler(event(method) as any, {} as any);

describe('a method no Request can carry', () => {
  it.each(['TRACE', 'TRACK', 'CONNECT', 'trace'])(
    '%s: 404 in the error contract',
    async (method) => {
      const result = (await invoke(method)) as {
        statusCode: number;
        headers: Record<string, string>;
        body: string;
      };
      expect({
        status: result.statusCode,
        type: result.headers['content-type'],
        body: JSON.parse(result.body),
      }).toEqual({
        status: 404,
        type: 'application/json',
        body: {
          errorCode: 'NOT_FOUND',
          errorMessage: `no route for ${method.toUpperCase()} /api/ledger/v2`,
        },
      });
    },
  );

  it('leaves every other method to the app', async () => {
    const result = (await invoke('PATCH')) as { statusCode: number; body: string };
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([200, { method: 'PATCH' }]);
  });
});
