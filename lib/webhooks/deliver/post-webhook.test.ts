// postWebhook against a real local server on 127.0.0.1 — the only network traffic in these tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryHeaders, unixSeconds } from '../domain/signing.js';
import { verifyWithTolerance } from '../receiver/verify.js';
import { isFailure, postWebhook } from './post-webhook.js';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;
const seen: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      const handler = routes.get(req.url ?? '');
      if (handler) handler(req, body, res);
      else res.writeHead(404).end('no route');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  routes.set('/ok', (_req, _body, res) => res.writeHead(204).end());
  routes.set('/receiver', (req, body, res) => {
    const h = (name: string) => req.headers[name];
    const ok = verifyWithTolerance(
      h('service-webhook-signature'),
      h('service-webhook-id'),
      h('service-webhook-timestamp'),
      SECRET,
      body,
    );
    res.writeHead(ok ? 200 : 401).end(ok ? 'verified' : 'bad signature');
  });
  routes.set('/echo', (_req, body, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${body}`),
  );
  routes.set('/boom', (_req, _body, res) => res.writeHead(500).end('internal error'));
  routes.set('/gone', (_req, _body, res) => res.writeHead(410).end('gone'));
  routes.set('/moved', (_req, _body, res) => res.writeHead(302, { location: `${base}/ok` }).end());
  routes.set('/slow', (_req, _body, res) => {
    const timer = setTimeout(() => res.writeHead(200).end('late'), 2_000);
    res.on('close', () => clearTimeout(timer));
  });
  routes.set('/big', (_req, _body, res) => res.writeHead(200).end('x'.repeat(100_000)));
  routes.set('/busy', (_req, _body, res) =>
    res.writeHead(503, { 'retry-after': '120' }).end('busy'),
  );
  routes.set('/throttled', (_req, _body, res) =>
    res.writeHead(429, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }).end(),
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

const post = (path: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({
    url: `${base}${path}`,
    headers: { 'content-type': 'application/json', 'webhook-id': 'dlv_1' },
    body: '{"hello":"world"}',
    allowLoopback: true,
    ...extra,
  });

describe('postWebhook', () => {
  it('posts the body and headers and reports a 2xx', async () => {
    const result = await post('/echo');
    expect(result).toMatchObject({ status: 200, bodyPreview: 'got {"hello":"world"}' });
    expect(isFailure(result)).toBe(false);
    if (!isFailure(result)) expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const request = seen.find((s) => s.path === '/echo')!;
    expect(request.headers['webhook-id']).toBe('dlv_1');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['content-length']).toBe('17');
    await expect(post('/ok')).resolves.toMatchObject({ status: 204, bodyPreview: '' });
  });

  it('delivers a signed body that the receiver helper verifies end to end', async () => {
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'ledger.saved_metadata',
      payload: { note: 'é ✓' },
    });
    const headers = deliveryHeaders({
      id: 'dlv_e2e',
      timestamp: unixSeconds(Date.now()),
      body,
      secrets: [SECRET],
    });
    await expect(post('/receiver', { headers, body })).resolves.toMatchObject({
      status: 200,
      bodyPreview: 'verified',
    });
    await expect(
      post('/receiver', { headers, body: body.replace('1', '2') }),
    ).resolves.toMatchObject({ status: 401 });
  });

  it('reports 500 and 410 as plain statuses', async () => {
    await expect(post('/boom')).resolves.toMatchObject({
      status: 500,
      bodyPreview: 'internal error',
    });
    await expect(post('/gone')).resolves.toMatchObject({ status: 410, bodyPreview: 'gone' });
  });

  it('does not follow a 302', async () => {
    const before = seen.filter((s) => s.path === '/ok').length;
    const result = await post('/moved');
    expect(result).toMatchObject({ status: 302 });
    expect(seen.filter((s) => s.path === '/ok').length).toBe(before);
  });

  it('gives up on a slow server at the timeout', async () => {
    const result = await post('/slow', { timeoutMs: 200 });
    expect(result).toMatchObject({ errorKind: 'timeout', error: 'no response within 200 ms' });
    if (isFailure(result)) expect(result.durationMs).toBeLessThan(1_500);
  });

  it('keeps only the first 4096 bytes of the response body', async () => {
    const result = await post('/big');
    expect(result).toMatchObject({ status: 200 });
    if (!isFailure(result)) {
      expect(Buffer.byteLength(result.bodyPreview)).toBe(4096);
      expect(result.bodyPreview).toBe('x'.repeat(4096));
    }
  });

  it('surfaces Retry-After as sent, in seconds or as a date', async () => {
    await expect(post('/busy')).resolves.toMatchObject({ status: 503, retryAfter: '120' });
    await expect(post('/throttled')).resolves.toMatchObject({
      status: 429,
      retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT',
    });
    const plain = await post('/ok');
    expect(plain).not.toHaveProperty('retryAfter');
  });

  it('refuses loopback without allowLoopback, before sending anything', async () => {
    const before = seen.length;
    const result = await post('/ok', { allowLoopback: false });
    expect(result).toMatchObject({
      errorKind: 'refused',
      error: expect.stringMatching(/127\.0\.0\.1.*loopback/),
    });
    const port = new URL(base).port;
    for (const host of [
      'localhost',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '127.1',
      '[::ffff:127.0.0.1]',
    ]) {
      const refused = await postWebhook({
        url: `http://${host}:${port}/ok`,
        headers: {},
        body: '{}',
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(refused, host).toMatchObject({ errorKind: 'refused' });
    }
    expect(seen.length).toBe(before);
  });

  it('checks names through the guarded lookup, with an injected resolver', async () => {
    const port = new URL(base).port;
    const local = { resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    await expect(
      postWebhook({
        url: `http://receiver.test:${port}/ok`,
        headers: {},
        body: '{}',
        allowLoopback: true,
        ...local,
      }),
    ).resolves.toMatchObject({ status: 204 });
    await expect(
      postWebhook({
        url: `http://internal.test:${port}/ok`,
        headers: {},
        body: '{}',
        allowLoopback: true,
        resolve: async () => [{ address: '10.0.0.1', family: 4 }],
      }),
    ).resolves.toMatchObject({
      errorKind: 'refused',
      error: expect.stringMatching(/internal\.test resolves to 10\.0\.0\.1.*private/),
    });
  });

  it('refuses private literals even with allowLoopback, and rejects non-http URLs', async () => {
    await expect(post('', { url: 'http://10.0.0.1/hook' })).resolves.toMatchObject({
      errorKind: 'refused',
    });
    await expect(
      post('', { url: 'http://169.254.169.254/latest/meta-data/' }),
    ).resolves.toMatchObject({
      errorKind: 'refused',
      error: expect.stringMatching(/metadata/),
    });
    await expect(post('', { url: 'file:///etc/passwd' })).resolves.toMatchObject({
      errorKind: 'invalid-url',
    });
    await expect(post('', { url: 'not a url' })).resolves.toMatchObject({
      errorKind: 'invalid-url',
    });
  });

  it('guards https targets the same way', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(
      post('', { url: 'https://127.0.0.1/hook', allowLoopback: false }),
    ).resolves.toMatchObject({ errorKind: 'refused' });
    await expect(
      post('', { url: 'https://receiver.test/hook', allowLoopback: false, resolve }),
    ).resolves.toMatchObject({
      errorKind: 'refused',
      error: expect.stringMatching(/receiver\.test resolves to 127\.0\.0\.1/),
    });
  });

  it('reports a refused connection as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((ready) => closed.listen(0, '127.0.0.1', ready));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    await expect(post('', { url: `http://127.0.0.1:${port}/` })).resolves.toMatchObject({
      errorKind: 'network',
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
