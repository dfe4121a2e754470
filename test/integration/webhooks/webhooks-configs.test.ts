import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../../events/catalog.js';
import type { HonoTypes } from '../../../lib/http/types.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createWebhooksApp, type WebhooksAppOptions } from '../../../lib/webhooks/app.js';
import { secretKey } from '../../../lib/webhooks/domain/secret-key.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { type JsonCall, jsonCaller } from '../../support/json-call.js';
import { scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

/** A webhooks app and a JSON caller; a string body is sent verbatim. */
async function webhooksClient(
  runtime: ServiceRuntime,
  options: Partial<WebhooksAppOptions> & { scope?: string } = {},
) {
  const { scope, ...appOptions } = options;
  const app: Hono<HonoTypes> = createWebhooksApp(runtime, {
    documents: generatedDocuments,
    ...appOptions,
  });
  const token = await tokenFor(authApp(runtime), ADMIN, scope);
  const as = (bearerToken: string): JsonCall =>
    jsonCaller(app, '/api/webhooks', bearerToken, JSON.parse);
  return { app, call: as(token), as };
}

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const HOUR = 3600_000;

let runtime: ServiceRuntime;
let call: JsonCall;
let clock = Date.parse('2026-11-22T10:00:00Z');
let sequence = 0;

const create = (body: unknown, headers: Record<string, string> = {}) =>
  call('POST', '/configs', body, headers);
const validBody = (overrides: Record<string, unknown> = {}) => ({
  endpoint: `https://hooks.example.com/in/${++sequence}`,
  eventTypes: ['ledger.committed_transactions'],
  ...overrides,
});
async function created(overrides: Record<string, unknown> = {}) {
  const res = await create(validBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.body.data as Record<string, any>;
}
const items = () => scanTable(runtime, runtime.config.tables.webhooks);
const storedConfig = async (id: string) =>
  (await items()).find((i) => i.pk === `E#default#CONFIG#${id}` && i.sk === 'CONFIG');
/** The subscription items of one config: kind → active. */
async function subscriptions(id: string): Promise<Record<string, boolean>> {
  const subs = (await items()).filter(
    (i) => String(i.pk).startsWith('E#default#SUB#') && i.sk === id,
  );
  for (const s of subs) expect(s.configId).toBe(id);
  return Object.fromEntries(
    subs.map((s) => [String(s.pk).slice('E#default#SUB#'.length), s.active as boolean]),
  );
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await webhooksClient(runtime, { now: () => clock }));
});

describe('POST /configs', () => {
  it('creates an active config with a generated secret, stored with its index and subscription items', async () => {
    const res = await create({
      endpoint: 'https://hooks.example.com/a?x=1',
      eventTypes: [
        'LEDGER.Committed_Transactions',
        'payments.saved_payment',
        'ledger.committed_transactions',
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const config = res.body.data;
    expect(Object.keys(config).sort()).toEqual([
      'active',
      'createdAt',
      'endpoint',
      'eventTypes',
      'id',
      'name',
      'secret',
      'updatedAt',
    ]);
    expect(config).toMatchObject({
      name: '',
      endpoint: 'https://hooks.example.com/a?x=1',
      eventTypes: ['ledger.committed_transactions', 'payments.saved_payment'],
      active: true,
      createdAt: '2026-11-22T10:00:00Z',
      updatedAt: '2026-11-22T10:00:00Z',
    });
    expect(config.id).toMatch(UUID);
    expect(config.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(config.secret.slice(6), 'base64')).toHaveLength(32);

    const item = await storedConfig(config.id);
    expect(item).toMatchObject({
      gsi1pk: 'E#default#CONFIGS',
      gsi1sk: `2026-11-22T10:00:00.000000Z#${config.id}`,
      version: 1n,
      secret: config.secret,
    });
    expect(item).not.toHaveProperty('previousSecret');
    expect(item).not.toHaveProperty('expiresAt');
    expect(await subscriptions(config.id)).toEqual({
      'ledger.committed_transactions': true,
      'payments.saved_payment': true,
    });
    const endpointItems = (await items()).filter(
      (i) => String(i.pk).startsWith('E#default#CONFIGS#endpoint=') && i.configId === config.id,
    );
    expect(endpointItems).toHaveLength(1);
    expect(endpointItems[0]!.sk).toBe(item!.gsi1sk);
  });

  it('takes a given secret (24 to 64 bytes) and a name, and accepts every known kind', async () => {
    for (const bytes of [24, 32, 64]) {
      const secret = secretOf(bytes);
      const config = await created({ secret, name: 'Orders hook', eventTypes: [...EVENT_KINDS] });
      expect(config).toMatchObject({ secret, name: 'Orders hook', eventTypes: [...EVENT_KINDS] });
    }
  });

  it('accepts application/json with a charset, and http endpoints in the local stage', async () => {
    const res = await create(
      JSON.stringify(validBody({ endpoint: 'http://127.0.0.1:9000/hook' })),
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.endpoint).toBe('http://127.0.0.1:9000/hook');
  });

  it.each([
    ['not a URL', 'not-a-url', 'must be an absolute URL'],
    ['relative', '/hooks/in', 'must be an absolute URL'],
    ['ftp', 'ftp://files.example.com/in', 'must be an http(s) URL'],
    ['javascript', 'javascript:alert(1)', 'must be an http(s) URL'],
    ['mailto', 'mailto:ops@example.com', 'must be an http(s) URL'],
    ['no host', 'https:///path', 'must name a host'],
    ['no slashes', 'https:hooks.example.com', 'must name a host'],
    ['userinfo', 'https://user:pass@hooks.example.com/in', 'must not contain credentials'],
    ['user only', 'https://user@hooks.example.com/in', 'must not contain credentials'],
    ['empty userinfo', 'https://@hooks.example.com/in', 'must not contain credentials'],
    ['fragment', 'https://hooks.example.com/in#frag', 'must not contain a fragment'],
    ['empty fragment', 'https://hooks.example.com/in#', 'must not contain a fragment'],
    ['spaces', 'https://hooks.example.com/a b', 'must not contain spaces'],
    [
      'too long',
      `https://hooks.example.com/${'a'.repeat(2048)}`,
      'must be at most 2048 characters',
    ],
    ['empty', '', 'must be an absolute URL'],
    ['a number', 42, 'must be a string'],
  ])(
    'refuses an endpoint that is %s (400 VALIDATION naming the field), storing nothing',
    async (_what, endpoint, message) => {
      const before = (await items()).length;
      const res = await create(validBody({ endpoint }));
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain('body.endpoint');
      expect(res.body.errorMessage).toContain(message);
      expect((await items()).length).toBe(before);
    },
  );

  it('accepts an endpoint of exactly 2048 characters', async () => {
    const prefix = 'https://hooks.example.com/';
    const config = await created({ endpoint: prefix + 'a'.repeat(2048 - prefix.length) });
    expect(config.endpoint).toHaveLength(2048);
  });

  it.each([
    ['missing', undefined, 'body.eventTypes'],
    ['empty', [], 'must not be empty'],
    [
      'unknown',
      ['ledger.committed_transactions', 'ledger.nope'],
      'unknown event kind "ledger.nope"',
    ],
    ['a prefix, not a kind', ['ledger.'], 'unknown event kind'],
    ['a wildcard', ['*'], 'unknown event kind'],
    ['a string, not an array', 'ledger.committed_transactions', 'must be an array'],
    ['an empty string entry', [''], 'unknown event kind'],
    ['a non-string entry', [1], 'must be strings'],
    ['too many entries', Array(65).fill('ledger.saved_metadata'), 'at most 64'],
  ])('refuses eventTypes that are %s, storing nothing', async (_what, eventTypes, message) => {
    const before = (await items()).length;
    const body: Record<string, unknown> = validBody({ eventTypes });
    if (eventTypes === undefined) delete body.eventTypes;
    const res = await create(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(message);
    expect((await items()).length).toBe(before);
  });

  it('deduplicates event kinds case-insensitively, keeping the first occurrence order', async () => {
    const config = await created({
      eventTypes: [
        'payments.saved_payment',
        'LEDGER.saved_metadata',
        'Payments.Saved_Payment',
        'ledger.SAVED_METADATA',
      ],
    });
    expect(config.eventTypes).toEqual(['payments.saved_payment', 'ledger.saved_metadata']);
    expect(await subscriptions(config.id)).toEqual({
      'payments.saved_payment': true,
      'ledger.saved_metadata': true,
    });
  });

  it.each([
    ['with a wrong prefix', `whsk_${randomBytes(32).toString('base64')}`, 'standard base64'],
    ['without the prefix and not base64', 'not*base64!not*base64!not*base64!', 'standard base64'],
    ['not base64', 'whsec_not*base64!not*base64!not*base64!', 'standard base64'],
    [
      'base64url, not standard',
      `whsec_${Buffer.from(Array(33).fill(0xfb)).toString('base64url')}`,
      'standard base64',
    ],
    [
      'without padding',
      `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`,
      'standard base64',
    ],
    [
      'non-canonical base64',
      `whsec_${randomBytes(32).toString('base64').slice(0, 42)}B=`,
      'standard base64',
    ],
    ['too short (23 bytes)', secretOf(23), 'between 24 and 64 bytes (got 23)'],
    ['too long (65 bytes)', secretOf(65), 'between 24 and 64 bytes (got 65)'],
    ['empty after the prefix', 'whsec_', 'standard base64'],
    ['not a string', 123, 'must be a string'],
  ])('refuses a secret %s, storing nothing', async (_what, secret, message) => {
    const before = (await items()).length;
    const res = await create(validBody({ secret }));
    expect(res.status, res.text).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain('body.secret');
    expect(res.body.errorMessage).toContain(message);
    expect((await items()).length).toBe(before);
  });

  it('refuses unknown fields, a bad name, a non-object body and malformed JSON, storing nothing', async () => {
    const before = (await items()).length;
    for (const [body, message] of [
      [validBody({ active: false }), 'body.active'],
      [validBody({ id: '6f1c1b1e-0000-4000-8000-000000000000' }), 'body.id'],
      [validBody({ name: 'x'.repeat(257) }), 'body.name'],
      [validBody({ name: 'a\u0000b' }), 'body.name'],
      [[validBody()], 'body'],
      ['{"endpoint":', 'body is not valid JSON'],
      ['null', 'body'],
    ] as const) {
      const res = await create(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(message);
    }
    expect((await items()).length).toBe(before);
  });

  it('refuses a wrong content type and an empty body with 400, a body over 1 MiB with 413, storing nothing', async () => {
    const before = (await items()).length;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const res = await create(JSON.stringify(validBody()), { 'content-type': type });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'content-type must be application/json',
      });
    }
    const empty = await call('POST', '/configs', '', { 'content-type': 'application/json' });
    expect(empty.status).toBe(400);
    const huge = await create(JSON.stringify(validBody({ name: 'x'.repeat(1024 * 1024) })));
    expect(huge.status).toBe(413);
    expect(huge.body.errorCode).toBe('VALIDATION');
    expect((await items()).length).toBe(before);
  });
});

describe('http endpoints outside the local stage', () => {
  it('are refused when STAGE is dev; https is accepted', async () => {
    const { runtime: devRuntime } = await testTables({ STAGE: 'dev' });
    const { call: devCall } = await webhooksClient(devRuntime);
    const res = await devCall(
      'POST',
      '/configs',
      validBody({ endpoint: 'http://hooks.example.com/in' }),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'VALIDATION' });
    expect(res.body.errorMessage).toContain('body.endpoint: must use https');
    expect(await scanTable(devRuntime, devRuntime.config.tables.webhooks)).toEqual([]);
    const ok = await devCall('POST', '/configs', validBody());
    expect(ok.status, ok.text).toBe(200);
    // A change to an http endpoint is refused too.
    const put = await devCall('PUT', `/configs/${ok.body.data.id}`, {
      endpoint: 'http://hooks.example.com/in',
    });
    expect(put.status).toBe(400);
    expect(put.body.errorMessage).toContain('must use https');
  });
});

describe('endpoints on non-public IP literals', () => {
  it.each([
    [
      'the metadata service',
      'http://169.254.169.254/latest/meta-data',
      '169.254.169.254 is refused: metadata',
    ],
    ['a private IPv4 in decimal form', 'http://167772161/hook', '10.0.0.1 is refused: private'],
    ['a unique-local IPv6', 'http://[fd00::1]/hook', 'fd00::1 is refused: unique-local'],
    [
      'an IPv4-mapped private IPv6',
      'http://[::ffff:10.0.0.1]/hook',
      'of 10.0.0.1: private network 10.0.0.0/8',
    ],
    ['0.0.0.0', 'http://0.0.0.0:8080/', '0.0.0.0 is refused: unspecified'],
  ])(
    'refuses %s at creation and on update (400 VALIDATION), storing nothing',
    async (_what, endpoint, reason) => {
      const before = await items();
      const res = await create(validBody({ endpoint }));
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(
        'body.endpoint: must not target a non-public address',
      );
      expect(res.body.errorMessage).toContain(reason);
      expect(await items()).toEqual(before);

      const config = await created();
      const put = await call('PUT', `/configs/${config.id}`, { endpoint });
      expect(put.status, put.text).toBe(400);
      expect(put.body.errorMessage).toContain(reason);
      expect((await call('GET', `/configs/${config.id}`)).body.data).toEqual(config);
    },
  );

  it('refuses loopback outside the local stage', async () => {
    const { runtime: devRuntime } = await testTables({ STAGE: 'dev' });
    const { call: devCall } = await webhooksClient(devRuntime);
    const res = await devCall(
      'POST',
      '/configs',
      validBody({ endpoint: 'https://127.0.0.1/hook' }),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.errorMessage).toContain('127.0.0.1 is refused: loopback');
    expect(await scanTable(devRuntime, devRuntime.config.tables.webhooks)).toEqual([]);
  });
});

describe('GET /configs and /configs/<id>', () => {
  let listRuntime: ServiceRuntime;
  let listCall: JsonCall;
  const ids: string[] = [];
  const shared = 'https://shared.example.com/hook';

  beforeAll(async () => {
    // A table of its own, so the list holds exactly what this block created.
    ({ runtime: listRuntime } = await testTables());
    let t = Date.parse('2026-01-01T00:00:00Z');
    ({ call: listCall } = await webhooksClient(listRuntime, { now: () => (t += 1000) }));
    for (let i = 0; i < 5; i++) {
      const res = await listCall('POST', '/configs', {
        endpoint: i % 2 === 0 ? shared : `https://other.example.com/${i}`,
        eventTypes: ['ledger.saved_metadata'],
      });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.data.id);
    }
  });

  it('gets one config by id', async () => {
    const res = await listCall('GET', `/configs/${ids[0]}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: ids[0], endpoint: shared, active: true });
    expect(res.body.data.secret).toMatch(/^whsec_/);
  });

  it('answers 404 NOT_FOUND for an unknown id and for what cannot be an id', async () => {
    for (const id of ['6f1c1b1e-0000-4000-8000-000000000000', 'nope', 'CONFIG%23x']) {
      for (const [method, path, body] of [
        ['GET', `/configs/${id}`],
        ['PUT', `/configs/${id}`, { name: 'x' }],
        ['DELETE', `/configs/${id}`],
        ['PUT', `/configs/${id}/activate`],
        ['PUT', `/configs/${id}/deactivate`],
        ['PUT', `/configs/${id}/secret/change`, {}],
      ] as const) {
        const res = await listCall(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.errorCode).toBe('NOT_FOUND');
      }
    }
  });

  it('lists newest first with cursors both ways, secrets included', async () => {
    const first = await listCall('GET', '/configs?pageSize=2');
    expect(first.status).toBe(200);
    expect(first.body.cursor).toMatchObject({ pageSize: 2, hasMore: true });
    expect(first.body.cursor.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.cursor.data[0].secret).toMatch(/^whsec_/);
    const second = await listCall('GET', `/configs?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data.map((c: any) => c.id)).toEqual([ids[2], ids[1]]);
    const third = await listCall('GET', `/configs?cursor=${second.body.cursor.next}`);
    expect(third.body.cursor).toMatchObject({ hasMore: false });
    expect(third.body.cursor.data.map((c: any) => c.id)).toEqual([ids[0]]);
    const back = await listCall('GET', `/configs?cursor=${second.body.cursor.previous}`);
    expect(back.body.cursor.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
    const all = await listCall('GET', '/configs');
    expect(all.body.cursor).toMatchObject({ pageSize: 15, hasMore: false });
    expect(all.body.cursor.data).toHaveLength(5);
  });

  it('filters by id (by key) and by endpoint (its index partition), with cursors that keep the filter', async () => {
    const byId = await listCall('GET', `/configs?id=${ids[1]}`);
    expect(byId.body.cursor).toEqual({
      pageSize: 15,
      hasMore: false,
      data: [expect.objectContaining({ id: ids[1] })],
    });
    expect(
      (await listCall('GET', '/configs?id=6f1c1b1e-0000-4000-8000-000000000000')).body.cursor.data,
    ).toEqual([]);
    expect((await listCall('GET', '/configs?id=whatever')).body.cursor.data).toEqual([]);
    const both = await listCall(
      'GET',
      `/configs?id=${ids[1]}&endpoint=${encodeURIComponent(shared)}`,
    );
    expect(both.body.cursor.data).toEqual([]);
    const bothMatch = await listCall(
      'GET',
      `/configs?id=${ids[2]}&endpoint=${encodeURIComponent(shared)}`,
    );
    expect(bothMatch.body.cursor.data.map((c: any) => c.id)).toEqual([ids[2]]);

    const byEndpoint = await listCall(
      'GET',
      `/configs?endpoint=${encodeURIComponent(shared)}&pageSize=2`,
    );
    expect(byEndpoint.body.cursor.data.map((c: any) => c.id)).toEqual([ids[4], ids[2]]);
    expect(byEndpoint.body.cursor.hasMore).toBe(true);
    const next = await listCall('GET', `/configs?cursor=${byEndpoint.body.cursor.next}`);
    expect(next.body.cursor.data.map((c: any) => c.id)).toEqual([ids[0]]);
    expect(next.body.cursor.hasMore).toBe(false);
    expect(
      (
        await listCall(
          'GET',
          `/configs?endpoint=${encodeURIComponent('https://nobody.example.com/')}`,
        )
      ).body.cursor.data,
    ).toEqual([]);
  });

  it('follows an endpoint change in the endpoint filter', async () => {
    const moved = await listCall('PUT', `/configs/${ids[4]}`, {
      endpoint: 'https://moved.example.com/hook',
    });
    expect(moved.status, moved.text).toBe(200);
    const byShared = await listCall('GET', `/configs?endpoint=${encodeURIComponent(shared)}`);
    expect(byShared.body.cursor.data.map((c: any) => c.id)).toEqual([ids[2], ids[0]]);
    const byNew = await listCall(
      'GET',
      `/configs?endpoint=${encodeURIComponent('https://moved.example.com/hook')}`,
    );
    expect(byNew.body.cursor.data.map((c: any) => c.id)).toEqual([ids[4]]);
    const endpointItems = (await scanTable(listRuntime, listRuntime.config.tables.webhooks)).filter(
      (i) => String(i.pk).startsWith('E#default#CONFIGS#endpoint='),
    );
    expect(endpointItems).toHaveLength(5);
  });

  it('refuses unknown query parameters, bad page sizes and foreign or tampered cursors', async () => {
    for (const query of [
      'status=active',
      'pageSize=-1',
      'pageSize=abc',
      'cursor=%%%',
      `cursor=${Buffer.from('{"l":"payments","p":1,"k":{},"d":"n"}').toString('base64url')}`,
    ]) {
      const res = await listCall('GET', `/configs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    const first = await listCall('GET', '/configs?pageSize=1');
    const withFilter = await listCall(
      'GET',
      `/configs?cursor=${first.body.cursor.next}&endpoint=x`,
    );
    expect(withFilter.status).toBe(400);
    expect((await listCall('GET', '/configs?pageSize=5000')).body.cursor.pageSize).toBe(1000);
  });
});

describe('PUT /configs/<id>', () => {
  it('changes endpoint, event kinds and name; subscription items follow exactly; updatedAt moves, createdAt does not', async () => {
    const config = await created({
      eventTypes: ['ledger.committed_transactions', 'ledger.saved_metadata'],
      name: 'before',
    });
    clock += 60_000;
    const res = await call('PUT', `/configs/${config.id}`, {
      endpoint: 'https://new.example.com/hook',
      eventTypes: ['ledger.saved_metadata', 'PAYMENTS.saved_payment'],
      name: 'after',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      ...config,
      endpoint: 'https://new.example.com/hook',
      eventTypes: ['ledger.saved_metadata', 'payments.saved_payment'],
      name: 'after',
      updatedAt: '2026-11-22T10:01:00Z',
    });
    expect(await subscriptions(config.id)).toEqual({
      'ledger.saved_metadata': true,
      'payments.saved_payment': true,
    });
    expect((await storedConfig(config.id))!.version).toBe(2n);
    expect((await call('GET', `/configs/${config.id}`)).body.data).toEqual(res.body.data);
  });

  it('keeps fields left out; a change that changes nothing writes nothing', async () => {
    const config = await created({ name: 'keep' });
    clock += 1000;
    const same = await call('PUT', `/configs/${config.id}`, {
      eventTypes: ['LEDGER.COMMITTED_TRANSACTIONS'],
    });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(config);
    expect((await storedConfig(config.id))!.version).toBe(1n);
    const renamed = await call('PUT', `/configs/${config.id}`, { name: '' });
    expect(renamed.body.data).toMatchObject({
      name: '',
      endpoint: config.endpoint,
      eventTypes: config.eventTypes,
      secret: config.secret,
    });
  });

  it('refuses invalid and unknown fields, a wrong content type and an empty body, changing nothing', async () => {
    const config = await created();
    const before = await items();
    for (const [body, headers] of [
      [{ active: false }, {}],
      [{ eventTypes: [] }, {}],
      [{ eventTypes: ['nope'] }, {}],
      [{ endpoint: 'ftp://x.example.com' }, {}],
      [{ secret: 'plain' }, {}],
      [JSON.stringify({ name: 'x' }), { 'content-type': 'text/plain' }],
      ['', {}],
    ] as const) {
      const res = await call('PUT', `/configs/${config.id}`, body, headers);
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    expect(await items()).toEqual(before);
  });

  it('treats a different secret as a rotation (the official SDK sends one in ConfigUser)', async () => {
    const config = await created();
    const secret = secretOf(32);
    const res = await call('PUT', `/configs/${config.id}`, {
      endpoint: config.endpoint,
      eventTypes: config.eventTypes,
      secret,
    });
    expect(res.body.data.secret).toBe(secret);
    expect(await storedConfig(config.id)).toMatchObject({ previousSecret: config.secret });
  });
});

describe('activate and deactivate', () => {
  it("are idempotent, and move the subscription items' active flag", async () => {
    const config = await created({
      eventTypes: ['ledger.committed_transactions', 'ledger.reverted_transaction'],
    });
    clock += 1000;
    const activeAgain = await call('PUT', `/configs/${config.id}/activate`);
    expect(activeAgain.status).toBe(200);
    expect(activeAgain.body.data).toEqual(config);
    expect((await storedConfig(config.id))!.version).toBe(1n);

    clock += 1000;
    const off = await call('PUT', `/configs/${config.id}/deactivate`);
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({
      active: false,
      updatedAt: new Date(clock).toISOString().replace('.000Z', 'Z'),
    });
    expect(await subscriptions(config.id)).toEqual({
      'ledger.committed_transactions': false,
      'ledger.reverted_transaction': false,
    });
    clock += 1000;
    const offAgain = await call('PUT', `/configs/${config.id}/deactivate`);
    expect(offAgain.body.data).toEqual(off.body.data);
    expect((await storedConfig(config.id))!.version).toBe(2n);

    // Kinds added while inactive are written inactive.
    const added = await call('PUT', `/configs/${config.id}`, {
      eventTypes: ['ledger.committed_transactions', 'payments.saved_payment'],
    });
    expect(added.body.data.active).toBe(false);
    expect(await subscriptions(config.id)).toEqual({
      'ledger.committed_transactions': false,
      'payments.saved_payment': false,
    });

    const on = await call('PUT', `/configs/${config.id}/activate`);
    expect(on.body.data.active).toBe(true);
    expect(await subscriptions(config.id)).toEqual({
      'ledger.committed_transactions': true,
      'payments.saved_payment': true,
    });
  });
});

describe('endpoint health and rate limit on a config', () => {
  it('activating a switched-off config opens a fresh failing period and keeps when and why it was switched off', async () => {
    const config = await created();
    // As the deliverer leaves it after five days of failures (lib/webhooks/deliver/record-health.ts).
    await runtime.doc.send(
      new UpdateCommand({
        TableName: runtime.config.tables.webhooks,
        Key: { pk: `E#default#CONFIG#${config.id}`, sk: 'CONFIG' },
        UpdateExpression:
          'SET active = :f, failingSince = :s, disabledAt = :d, disabledReason = :r',
        ExpressionAttributeValues: {
          ':f': false,
          ':s': '2026-11-17T10:00:00Z',
          ':d': '2026-11-22T10:00:00Z',
          ':r': 'failing',
        },
      }),
    );
    const off = await call('GET', `/configs/${config.id}`);
    expect(off.body.data).toEqual({
      ...config,
      active: false,
      failingSince: '2026-11-17T10:00:00Z',
      disabledAt: '2026-11-22T10:00:00Z',
      disabledReason: 'failing',
    });
    const on = await call('PUT', `/configs/${config.id}/activate`);
    expect(on.body.data).toEqual({
      ...config,
      updatedAt: on.body.data.updatedAt,
      disabledAt: '2026-11-22T10:00:00Z',
      disabledReason: 'failing',
    });
  });

  it('takes rateLimitPerSecond on create and update, 0 removes it, and refuses what is not 0 to 10000', async () => {
    const limited = await created({ rateLimitPerSecond: 20 });
    expect(limited.rateLimitPerSecond).toBe(20);
    expect((await storedConfig(limited.id))!.rateLimitPerSecond).toBe(20n);
    const changed = await call('PUT', `/configs/${limited.id}`, { rateLimitPerSecond: 5 });
    expect(changed.body.data.rateLimitPerSecond).toBe(5);
    const kept = await call('PUT', `/configs/${limited.id}`, { name: 'n' });
    expect(kept.body.data.rateLimitPerSecond).toBe(5);
    const removed = await call('PUT', `/configs/${limited.id}`, { rateLimitPerSecond: 0 });
    expect(removed.status).toBe(200);
    expect('rateLimitPerSecond' in removed.body.data).toBe(false);
    expect((await storedConfig(limited.id))!.rateLimitPerSecond).toBeUndefined();
    expect('rateLimitPerSecond' in (await created({ rateLimitPerSecond: 0 }))).toBe(false);
    for (const [bad, message] of [
      [-1, 'must be 0 (no limit) or more'],
      [10_001, 'must be at most 10000'],
      [1.5, 'must be a whole number of attempts per second'],
      ['5', 'must be a whole number of attempts per second'],
    ] as const) {
      const res = await create(validBody({ rateLimitPerSecond: bad }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: `body.rateLimitPerSecond: ${message}`,
      });
    }
  });
});

describe('PUT /configs/<id>/secret/change', () => {
  it('generates a new secret with an empty body; the old one is kept for 24 h, internally only', async () => {
    const config = await created();
    clock += 1000;
    const res = await call('PUT', `/configs/${config.id}/secret/change`);
    expect(res.status, res.text).toBe(200);
    const changed = res.body.data;
    expect(changed.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(changed.secret).not.toBe(config.secret);
    expect(changed).not.toHaveProperty('previousSecret');
    expect(changed.updatedAt).not.toBe(config.updatedAt);
    const item = await storedConfig(config.id);
    expect(item).toMatchObject({
      secret: changed.secret,
      previousSecret: config.secret,
      previousSecretExpiresAt: new Date(clock + 24 * HOUR).toISOString().replace('.000Z', 'Z'),
    });
    expect(String(item!.previousSecretExpiresAt)).toMatch(RFC3339);
  });

  it('takes a given secret ({} and {"secret": ...}); a second change within the window replaces the previous one', async () => {
    const config = await created();
    const generated = await call('PUT', `/configs/${config.id}/secret/change`, {});
    expect(generated.status).toBe(200);
    const second = secretOf(48);
    clock += HOUR;
    const res = await call('PUT', `/configs/${config.id}/secret/change`, { secret: second });
    expect(res.body.data.secret).toBe(second);
    expect(await storedConfig(config.id)).toMatchObject({
      secret: second,
      previousSecret: generated.body.data.secret,
      previousSecretExpiresAt: new Date(clock + 24 * HOUR).toISOString().replace('.000Z', 'Z'),
    });
    // The same secret again changes nothing.
    const again = await call('PUT', `/configs/${config.id}/secret/change`, { secret: second });
    expect(again.body.data).toEqual(res.body.data);
    expect((await storedConfig(config.id))!.previousSecret).toBe(generated.body.data.secret);
  });

  it('refuses malformed secrets and unknown fields, changing nothing', async () => {
    const config = await created();
    const before = await items();
    for (const body of [
      { secret: 'abc' },
      { secret: secretOf(16) },
      { secret: 'whsec_***' },
      { rotate: true },
      '[1]',
    ]) {
      const res = await call('PUT', `/configs/${config.id}/secret/change`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    expect(await items()).toEqual(before);
    // `null` is no value: the secret is generated, as when none is sent.
    const generated = await call('PUT', `/configs/${config.id}/secret/change`, { secret: null });
    expect(generated.status, generated.text).toBe(200);
    expect(generated.body.data.secret).toMatch(/^whsec_/);
    expect(generated.body.data.secret).not.toBe(config.secret);
  });

  it("takes the reference platform's secrets (base64 of 24 bytes, no prefix), kept as given, signing with the same key", async () => {
    const reference = randomBytes(24).toString('base64');
    const made = await create(validBody({ secret: reference }));
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.secret).toBe(reference);
    // The HMAC key is the decoded bytes either way: with or without the prefix, one key.
    expect(secretKey(reference).equals(secretKey(`whsec_${reference}`))).toBe(true);
    expect(secretKey(reference).equals(Buffer.from(reference, 'base64'))).toBe(true);
    const changed = await call('PUT', `/configs/${made.body.data.id}/secret/change`, {
      secret: '',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('uses WEBHOOK_SECRET_OVERLAP_SECONDS; 0 drops the old secret at once', async () => {
    const { runtime: r } = await testTables({ WEBHOOK_SECRET_OVERLAP_SECONDS: '600' });
    const t = Date.parse('2026-05-01T00:00:00Z');
    const { call: c } = await webhooksClient(r, { now: () => t });
    const made = await c('POST', '/configs', validBody());
    await c('PUT', `/configs/${made.body.data.id}/secret/change`);
    const item = (await scanTable(r, r.config.tables.webhooks)).find((i) => i.sk === 'CONFIG');
    expect(item).toMatchObject({
      previousSecret: made.body.data.secret,
      previousSecretExpiresAt: '2026-05-01T00:10:00Z',
    });

    const { runtime: r0 } = await testTables({ WEBHOOK_SECRET_OVERLAP_SECONDS: '0' });
    const { call: c0 } = await webhooksClient(r0);
    const made0 = await c0('POST', '/configs', validBody());
    await c0('PUT', `/configs/${made0.body.data.id}/secret/change`);
    const item0 = (await scanTable(r0, r0.config.tables.webhooks)).find((i) => i.sk === 'CONFIG');
    expect(item0).not.toHaveProperty('previousSecret');

    // A bad value stops start-up, where the configuration is read (lib/config/env.ts).
    await expect(testTables({ WEBHOOK_SECRET_OVERLAP_SECONDS: '1h' })).rejects.toThrow(
      'WEBHOOK_SECRET_OVERLAP_SECONDS must be a whole number of seconds (got "1h")',
    );
  });
});

describe('DELETE /configs/<id>', () => {
  it('deletes the config with its index and subscription items (200, empty body); then 404', async () => {
    const config = await created({
      eventTypes: ['ledger.committed_transactions', 'payments.saved_payment'],
    });
    const res = await call('DELETE', `/configs/${config.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const left = (await items()).filter(
      (i) =>
        i.pk === `E#default#CONFIG#${config.id}` || i.sk === config.id || i.configId === config.id,
    );
    expect(left).toEqual([]);
    expect((await call('GET', `/configs/${config.id}`)).status).toBe(404);
    expect((await call('DELETE', `/configs/${config.id}`)).status).toBe(404);
    expect((await call('GET', `/configs?id=${config.id}`)).body.cursor.data).toEqual([]);
  });
});

describe('concurrent changes', () => {
  it('lose nothing: parallel changes of different fields all land, subscription items match the final kinds', async () => {
    const config = await created({ eventTypes: ['ledger.committed_transactions'] });
    const results = await Promise.all([
      call('PUT', `/configs/${config.id}`, { name: 'renamed' }),
      call('PUT', `/configs/${config.id}/deactivate`),
      call('PUT', `/configs/${config.id}`, {
        eventTypes: ['ledger.saved_metadata', 'payments.saved_payment'],
      }),
      call('PUT', `/configs/${config.id}`, { endpoint: 'https://concurrent.example.com/' }),
    ]);
    for (const r of results) expect([200, 503], r.text).toContain(r.status);
    const ok = results.filter((r) => r.status === 200).length;
    const final = (await call('GET', `/configs/${config.id}`)).body.data;
    const item = await storedConfig(config.id);
    expect(Number(item!.version)).toBe(1 + ok);
    if (ok === 4)
      expect(final).toMatchObject({
        name: 'renamed',
        active: false,
        eventTypes: ['ledger.saved_metadata', 'payments.saved_payment'],
        endpoint: 'https://concurrent.example.com/',
      });
    expect(await subscriptions(config.id)).toEqual(
      Object.fromEntries(final.eventTypes.map((k: string) => [k, final.active])),
    );
  });
});

describe('contended changes of one config', () => {
  it('50 concurrent writers (secret changes, renames, activate, deactivate) all apply; none is answered 5xx', async () => {
    const config = await created({
      eventTypes: ['ledger.committed_transactions', 'payments.saved_payment'],
    });
    const secrets = Array.from({ length: 20 }, () => secretOf(32));
    const names = Array.from({ length: 20 }, (_, i) => `writer-${i}`);
    type Job = { run: () => ReturnType<JsonCall>; check: (data: Record<string, any>) => void };
    const jobs: Job[] = [
      ...secrets.map(
        (secret): Job => ({
          run: () => call('PUT', `/configs/${config.id}/secret/change`, { secret }),
          check: (d) => expect(d.secret).toBe(secret),
        }),
      ),
      ...names.map(
        (name): Job => ({
          run: () => call('PUT', `/configs/${config.id}`, { name }),
          check: (d) => expect(d.name).toBe(name),
        }),
      ),
      ...Array.from(
        { length: 5 },
        (): Job => ({
          run: () => call('PUT', `/configs/${config.id}/deactivate`),
          check: (d) => expect(d.active).toBe(false),
        }),
      ),
      ...Array.from(
        { length: 5 },
        (): Job => ({
          run: () => call('PUT', `/configs/${config.id}/activate`),
          check: (d) => expect(d.active).toBe(true),
        }),
      ),
    ];
    expect(jobs).toHaveLength(50);
    const results = await Promise.all(jobs.map((job) => job.run()));
    results.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      // Each answer is the config as its own change left it: the change was applied, not merely accepted.
      jobs[i]!.check(res.body.data);
    });
    // Every distinct secret and name was written once (a version each); activations add 0 to 10 more.
    const item = await storedConfig(config.id);
    expect(Number(item!.version)).toBeGreaterThanOrEqual(1 + 40);
    expect(Number(item!.version)).toBeLessThanOrEqual(1 + 50);
    const final = (await call('GET', `/configs/${config.id}`)).body.data;
    expect(secrets).toContain(final.secret);
    expect(names).toContain(final.name);
    // The previous secret is always the one replaced last: one of the writers' (or the original).
    expect([config.secret, ...secrets]).toContain(item!.previousSecret);
    expect(item!.previousSecret).not.toBe(final.secret);
    expect(await subscriptions(config.id)).toEqual({
      'ledger.committed_transactions': final.active,
      'payments.saved_payment': final.active,
    });
  });
});

describe('scopes', () => {
  it('a webhooks:read token lists and reads but cannot write (403 insufficient_scope); no token is 401', async () => {
    const config = await created();
    const { call: reader } = await webhooksClient(runtime, { scope: 'webhooks:read' });
    expect((await reader('GET', '/configs')).status).toBe(200);
    expect((await reader('GET', `/configs/${config.id}`)).status).toBe(200);
    const before = await items();
    for (const [method, path, body] of [
      ['POST', '/configs', validBody()],
      ['PUT', `/configs/${config.id}`, { name: 'x' }],
      ['DELETE', `/configs/${config.id}`],
      ['PUT', `/configs/${config.id}/deactivate`],
      ['PUT', `/configs/${config.id}/secret/change`, {}],
    ] as const) {
      const res = await reader(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('scope="webhooks:write"');
    }
    const { call: ledgerOnly } = await webhooksClient(runtime, { scope: 'ledger:write' });
    expect((await ledgerOnly('GET', '/configs')).status).toBe(403);
    const { app } = await webhooksClient(runtime);
    expect((await app.request('/api/webhooks/configs')).status).toBe(401);
    expect(await items()).toEqual(before);
  });
});
