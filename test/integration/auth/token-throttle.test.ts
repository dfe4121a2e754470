import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { handle } from 'hono/aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as secrets from '../../../lib/auth/domain/secrets.js';
import { DEFAULT_THROTTLE, type ThrottlePolicy } from '../../../lib/auth/domain/throttle.js';
import { throttleKeys } from '../../../lib/auth/store/throttle-store.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { httpApiEvent } from '../../support/api-gateway.js';
import { ADMIN, authApp, FORM, form, READER } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

// Every real comparison of a presented secret goes through findMatchingSecret: counting its calls counts them.
vi.mock('../../../lib/auth/domain/secrets.js', async (importOriginal) => {
  const original = await importOriginal<typeof secrets>();
  return { ...original, findMatchingSecret: vi.fn(original.findMatchingSecret) };
});
const comparisons = vi.mocked(secrets.findMatchingSecret);

const TOKEN = '/api/auth/oauth/token';
const T0 = Date.parse('2026-11-24T10:00:05Z');

let runtime: ServiceRuntime;

// Fresh tables per test: one test's counters must not count in another.
beforeEach(async () => {
  ({ runtime } = await testTables());
  comparisons.mockClear();
});

function throttledApp(policy: Partial<ThrottlePolicy>, now: () => number = () => T0) {
  const app = authApp(runtime, { throttle: { ...DEFAULT_THROTTLE, ...policy }, now });
  /** A token request from `address`, as the Node server sees it (the local platform). */
  const from = (address: string, client: { id: string; secret: string }) =>
    app.request(
      TOKEN,
      {
        method: 'POST',
        headers: FORM,
        body: form({
          grant_type: 'client_credentials',
          client_id: client.id,
          client_secret: client.secret,
        }),
      },
      { incoming: { socket: { remoteAddress: address } } },
    );
  return { app, from };
}

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
const wrong = (n: number) => ({ id: READER.id, secret: `wrong-secret-${n}` });

describe('the failure budget under concurrency', () => {
  it('compares at most the budget of 30 concurrent wrong secrets for one client', async () => {
    const { from } = throttledApp({ maxFailuresPerSource: 10 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => from('203.0.113.9', wrong(i))),
    );
    expect(statuses(answers)).toEqual([...Array(10).fill(401), ...Array(20).fill(429)]);
    expect(comparisons).toHaveBeenCalledTimes(10);
    const throttled = answers.find((r) => r.status === 429)!;
    expect(await throttled.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'too many failed authentication attempts; retry later',
    });
    // 55 s left in the window that started at 10:00:00.
    expect(throttled.headers.get('retry-after')).toBe('55');
  });

  it('holds the client budget when concurrent guesses come from many addresses', async () => {
    const { from } = throttledApp({
      maxFailuresPerSource: 10,
      maxFailuresPerClient: 12,
      maxFailuresPerSourceOnceClientSpent: 0,
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => from(`198.51.100.${i % 4}`, wrong(i))),
    );
    expect(statuses(answers)).toEqual([...Array(12).fill(401), ...Array(28).fill(429)]);
    expect(comparisons).toHaveBeenCalledTimes(12);
  });

  it('counts nothing for successes: a client can get many tokens, and its failures stay within budget', async () => {
    const { from } = throttledApp({ maxFailuresPerSource: 3 });
    for (let i = 0; i < 8; i++) expect((await from('203.0.113.9', READER)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await from('203.0.113.9', wrong(i))).status).toBe(401);
    expect((await from('203.0.113.9', READER)).status).toBe(200);
    const { client, source } = throttleKeys(READER.id, '203.0.113.9', T0, DEFAULT_THROTTLE);
    for (const Key of [client, source]) {
      const { Item } = await runtime.doc.send(
        new GetCommand({ TableName: runtime.config.tables.auth, Key }),
      );
      // Exactly the two failures stay counted, and the counter expires a minute after its window.
      expect(Item).toMatchObject({
        attempts: 2,
        expiresAt: Date.parse('2026-11-24T10:02:00Z') / 1000,
      });
    }
  });

  it('gives a source its budget back in the next window', async () => {
    let now = T0;
    const { from } = throttledApp({ maxFailuresPerSource: 2 }, () => now);
    for (let i = 0; i < 2; i++) expect((await from('203.0.113.9', wrong(i))).status).toBe(401);
    expect((await from('203.0.113.9', READER)).status).toBe(429);
    now = Date.parse('2026-11-24T10:01:00Z');
    expect((await from('203.0.113.9', READER)).status).toBe(200);
  });
});

describe('the budget is not a lock-out lever', () => {
  it('keeps serving the genuine client from another address while a guesser exhausts its own budget', async () => {
    const { from } = throttledApp({ maxFailuresPerSource: 10 });
    const guesses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => from('203.0.113.9', wrong(i))),
    );
    expect(guesses.filter((r) => r.status === 401)).toHaveLength(10);
    // The guesser's own source is closed, even to the right secret...
    expect((await from('203.0.113.9', READER)).status).toBe(429);
    // ...the genuine client's address is not, nor is another client behind the guesser's address (a shared NAT).
    expect((await from('192.0.2.44', READER)).status).toBe(200);
    expect((await from('203.0.113.9', ADMIN)).status).toBe(200);
  });

  it('once the client budget is spent, still serves an address that has not been failing', async () => {
    const { from } = throttledApp({
      maxFailuresPerSource: 5,
      maxFailuresPerClient: 12,
      maxFailuresPerSourceOnceClientSpent: 1,
    });
    for (const address of ['198.51.100.1', '198.51.100.2']) {
      for (let i = 0; i < 5; i++) expect((await from(address, wrong(i))).status).toBe(401);
    }
    for (let i = 0; i < 2; i++) expect((await from('198.51.100.3', wrong(i))).status).toBe(401);
    expect(comparisons).toHaveBeenCalledTimes(12);
    // The client budget is spent: a source that has failed is refused...
    expect((await from('198.51.100.3', wrong(9))).status).toBe(429);
    expect((await from('198.51.100.3', READER)).status).toBe(429);
    // ...a fresh one gets one attempt at a time: a guesser one guess per address, the genuine client its tokens.
    expect((await from('198.51.100.4', wrong(0))).status).toBe(401);
    expect((await from('198.51.100.4', wrong(1))).status).toBe(429);
    expect((await from('192.0.2.44', READER)).status).toBe(200);
    expect((await from('192.0.2.44', READER)).status).toBe(200);
    expect(comparisons).toHaveBeenCalledTimes(15);
  });

  it('counts an IPv6 /64 as one source, and an IPv4-mapped address as its IPv4 address', async () => {
    const { from } = throttledApp({ maxFailuresPerSource: 3 });
    for (let i = 0; i < 3; i++)
      expect((await from(`2001:db8:5:6::${i + 1}`, wrong(i))).status).toBe(401);
    expect((await from('2001:db8:5:6:ffff::9', wrong(3))).status).toBe(429);
    expect((await from('2001:db8:5:7::1', READER)).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await from('::ffff:203.0.113.9', wrong(i))).status).toBe(401);
    expect((await from('203.0.113.9', READER)).status).toBe(429);
  });
});

describe('the source address under API Gateway', () => {
  it("is the gateway's sourceIp, never a forwarded-for header the caller wrote", async () => {
    const handler = handle(
      authApp(runtime, {
        throttle: { ...DEFAULT_THROTTLE, maxFailuresPerSource: 2 },
        now: () => T0,
      }),
    ) as unknown as (
      event: APIGatewayProxyEventV2,
      context: Context,
    ) => Promise<APIGatewayProxyResult>;
    const call = (sourceIp: string, secret: string, forwardedFor: string) => {
      const event = httpApiEvent('POST', TOKEN, {
        service: 'auth',
        headers: { ...FORM, 'x-forwarded-for': forwardedFor },
        body: form({
          grant_type: 'client_credentials',
          client_id: READER.id,
          client_secret: secret,
        }),
      });
      event.requestContext.http.sourceIp = sourceIp;
      return handler(event, {} as Context).then((r) => r.statusCode);
    };
    expect(await call('203.0.113.9', 'wrong-1', '10.0.0.1')).toBe(401);
    expect(await call('203.0.113.9', 'wrong-2', '10.0.0.2')).toBe(401);
    // A fresh forwarded-for address buys no fresh budget...
    expect(await call('203.0.113.9', 'wrong-3', '10.0.0.3')).toBe(429);
    // ...a different gateway source address has its own.
    expect(await call('192.0.2.44', READER.secret, '203.0.113.9')).toBe(200);
    expect(comparisons).toHaveBeenCalledTimes(3);
  });
});
