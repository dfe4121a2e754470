/**
 * The local gateway's API Gateway mapping (`infra/local/lambda/http-*.ts`): a request becomes the HTTP API
 * payload 2.0 event, and a function's result the HTTP response. Round trips go through `hono/aws-lambda`'s
 * `handle`, the adapter every service function uses, so both directions are checked against the real reader.
 */
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  FunctionCrashedError,
  FunctionError,
  FunctionTimeoutError,
  InvalidResultError,
  PoolStoppedError,
} from './errors.js';
import { gatewayErrorResponse } from './gateway-errors.js';
import { type EventFacts, httpApiEvent } from './http-event.js';
import { httpResponse } from './http-response.js';

const FACTS: EventFacts = {
  prefix: '/api/echo',
  sourceIp: '127.0.0.7',
  requestId: 'gw-req-1',
  now: new Date('2026-11-24T20:15:53.250Z'),
};
const BASE = 'http://127.0.0.1:8080/api/echo';
/** 40 digits: past DynamoDB's 38, far past a JS number's 15-16. */
const HUGE = '1234567890123456789012345678901234567890';

const echo = new Hono();
echo.get('/api/echo/request', (c) =>
  c.json({
    url: c.req.url,
    tags: c.req.queries('tag'),
    name: c.req.query('name'),
    cookie: c.req.header('cookie'),
    accept: c.req.header('accept'),
    custom: c.req.header('x-custom'),
  }),
);
// The body exactly as received, so nothing in between may have parsed (and rounded) a number.
echo.post(
  '/api/echo/json',
  async (c) =>
    new Response(await c.req.text(), {
      status: 201,
      headers: { 'content-type': 'application/json' },
    }),
);
echo.put('/api/echo/binary', async (c) => {
  const bytes = new Uint8Array(await c.req.arrayBuffer()).reverse();
  return new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } });
});
echo.get('/api/echo/cookies', (c) => {
  c.header('set-cookie', 'a=1; Path=/', { append: true });
  c.header('set-cookie', 'b=2; HttpOnly', { append: true });
  return c.json({ ok: true });
});
echo.delete('/api/echo/thing', (c) => c.body(null, 204));
const lambda = handle(echo);

async function roundTrip(request: Request): Promise<Response> {
  const event = await httpApiEvent(request, FACTS);
  const result = await lambda(event as unknown as Parameters<typeof lambda>[0]);
  return httpResponse(JSON.parse(JSON.stringify(result)), request.method); // as it crosses the IPC channel
}

describe('a request as an API Gateway HTTP API (payload 2.0) event', () => {
  it('has the route, raw path and query, lower-cased headers, cookies apart and the request context', async () => {
    const request = new Request(
      `${BASE}/accounts/users%3A001?tag=a&tag=b%2Cc&name=J%C3%A9r%C3%B4me`,
      {
        headers: {
          Accept: 'application/json',
          'X-Custom': 'v',
          Cookie: 'session=abc; theme=dark',
          'User-Agent': 'probe/1',
        },
      },
    );
    expect(await httpApiEvent(request, FACTS)).toEqual({
      version: '2.0',
      routeKey: 'ANY /api/echo/{proxy+}',
      rawPath: '/api/echo/accounts/users%3A001',
      rawQueryString: 'tag=a&tag=b%2Cc&name=J%C3%A9r%C3%B4me',
      cookies: ['session=abc', 'theme=dark'],
      headers: {
        accept: 'application/json',
        host: '127.0.0.1:8080',
        'user-agent': 'probe/1',
        'x-custom': 'v',
        'x-forwarded-for': '127.0.0.7',
        'x-forwarded-port': '8080',
        'x-forwarded-proto': 'http',
      },
      queryStringParameters: { tag: 'a,b,c', name: 'Jérôme' },
      pathParameters: { proxy: 'accounts/users:001' },
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: '127.0.0.1:8080',
        domainPrefix: '127',
        http: {
          method: 'GET',
          path: '/api/echo/accounts/users%3A001',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.7',
          userAgent: 'probe/1',
        },
        requestId: 'gw-req-1',
        routeKey: 'ANY /api/echo/{proxy+}',
        stage: '$default',
        time: '24/Nov/2026:20:15:53 +0000',
        timeEpoch: Date.parse('2026-11-24T20:15:53.250Z'),
      },
      isBase64Encoded: false,
    });
  });

  it('routes the bare prefix to `ANY <prefix>` without a proxy parameter, and omits an empty query', async () => {
    const event = await httpApiEvent(new Request(BASE), FACTS);
    expect([
      event.routeKey,
      event.rawPath,
      event.rawQueryString,
      event.pathParameters,
      event.queryStringParameters,
    ]).toEqual(['ANY /api/echo', '/api/echo', '', undefined, undefined]);
  });

  it('passes a text body as text and any other body base64-encoded; an empty body is absent', async () => {
    const json = await httpApiEvent(
      new Request(BASE, {
        method: 'POST',
        body: `{"amount":${HUGE}}`,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
      FACTS,
    );
    expect([json.body, json.isBase64Encoded]).toEqual([`{"amount":${HUGE}}`, false]);
    const binary = await httpApiEvent(
      new Request(BASE, {
        method: 'PUT',
        body: new Uint8Array([0, 1, 254, 255]),
        headers: { 'content-type': 'image/png' },
      }),
      FACTS,
    );
    expect([binary.body, binary.isBase64Encoded]).toEqual(['AAH+/w==', true]);
    const empty = await httpApiEvent(new Request(BASE, { method: 'POST', body: '' }), FACTS);
    expect(['body' in empty, empty.isBase64Encoded]).toEqual([false, false]);
  });

  it('passes a JSON body that is not valid UTF-8 base64-encoded, byte for byte, never with U+FFFD', async () => {
    const bytes = Buffer.from([...Buffer.from('{"k":"a'), 0xff, 0xfe, ...Buffer.from('b"}')]);
    const event = await httpApiEvent(
      new Request(BASE, {
        method: 'POST',
        body: bytes,
        headers: { 'content-type': 'application/json' },
      }),
      FACTS,
    );
    expect([event.body, event.isBase64Encoded]).toEqual([bytes.toString('base64'), true]);
    const res = await roundTrip(
      new Request(`${BASE}/binary`, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([...bytes].reverse());
  });
});

describe('round trip through hono/aws-lambda', () => {
  it('keeps repeated and percent-encoded query keys, headers and cookies as the app reads them', async () => {
    const res = await roundTrip(
      new Request(`${BASE}/request?tag=a&tag=b%2Cc&name=J%C3%A9r%C3%B4me%20%2B1`, {
        headers: { Accept: 'text/plain', 'X-Custom': 'v', Cookie: 'session=abc; theme=dark' },
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      url: `${BASE}/request?tag=a&tag=b%2Cc&name=J%C3%A9r%C3%B4me%20%2B1`.replace(
        'http://127.0.0.1:8080',
        'https://127.0.0.1:8080',
      ),
      tags: ['a', 'b,c'],
      name: 'Jérôme +1',
      cookie: 'session=abc; theme=dark',
      accept: 'text/plain',
      custom: 'v',
    });
  });

  it('keeps a 40-digit integer in a JSON body exact both ways', async () => {
    const body = `{"postings":[{"amount":${HUGE},"asset":"USD/2"}],"metadata":{"n":"-${HUGE}"}}`;
    const res = await roundTrip(
      new Request(`${BASE}/json`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(body);
  });

  it('carries binary bodies base64-encoded both ways, byte for byte', async () => {
    const bytes = new Uint8Array([0, 10, 13, 127, 128, 200, 255]);
    const res = await roundTrip(
      new Request(`${BASE}/binary`, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'application/octet-stream' },
      }),
    );
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([255, 200, 128, 127, 13, 10, 0]);
  });

  it('answers every Set-Cookie of the app as its own header', async () => {
    const res = await roundTrip(new Request(`${BASE}/cookies`));
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const res = await roundTrip(new Request(`${BASE}/cookies`, { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toBeNull();
  });

  it('answers a 204 with no body', async () => {
    const res = await roundTrip(new Request(`${BASE}/thing`, { method: 'DELETE' }));
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });
});

describe('a function result as the HTTP response', () => {
  it('appends multi-value headers and cookies to the single-value ones', () => {
    const res = httpResponse(
      {
        statusCode: 202,
        headers: { 'x-one': 'a', 'x-count': 3 },
        multiValueHeaders: { vary: ['accept', 'origin'] },
        cookies: ['c=3'],
        body: 'ok',
      },
      'POST',
    );
    expect([
      res.status,
      res.headers.get('x-one'),
      res.headers.get('x-count'),
      res.headers.get('vary'),
      res.headers.getSetCookie(),
    ]).toEqual([202, 'a', '3', 'accept, origin', ['c=3']]);
  });

  it('takes a result without statusCode as a 200 JSON body, as payload 2.0 infers', async () => {
    const res = httpResponse({ hello: 'world' }, 'GET');
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
      200,
      'application/json',
      '{"hello":"world"}',
    ]);
  });

  it('refuses a status code outside 100-599', () => {
    expect(() => httpResponse({ statusCode: 42, body: '' }, 'GET')).toThrow(
      new InvalidResultError('statusCode 42'),
    );
  });
});

describe('gateway errors', () => {
  it("answers a timeout 504, a stopped pool 503 and any other failure 502, in API Gateway's own bodies", async () => {
    const answers = await Promise.all(
      [
        new FunctionTimeoutError('ledger', 15000),
        new PoolStoppedError('ledger'),
        new FunctionCrashedError('ledger', 'code 3'),
        new FunctionError('ledger', 'TypeError', 'boom'),
        new InvalidResultError('statusCode 42'),
      ].map(async (err) => {
        const res = gatewayErrorResponse(err);
        return [res.status, await res.json()];
      }),
    );
    expect(answers).toEqual([
      [504, { message: 'Endpoint request timed out' }],
      [503, { message: 'Service Unavailable' }],
      [502, { message: 'Internal Server Error' }],
      [502, { message: 'Internal Server Error' }],
      [502, { message: 'Internal Server Error' }],
    ]);
  });
});
