import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { DEFAULT_CLIENT_SCOPES } from '../../../lib/tokens/scopes.js';
import { ADMIN, authApp, basic, bearer, FORM, form, READER, tokenFor } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;
let admin: Record<string, string>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  app = authApp(runtime);
  admin = bearer(await tokenFor(app, ADMIN));
});

const call = (
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = admin,
) =>
  app.request(`/api/auth${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

async function createClient(body: Record<string, unknown> = { name: 'svc' }) {
  const res = await call('POST', '/clients', body);
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string; name: string; scopes: string[] } }).data;
}

async function createSecret(clientId: string, name = 'app') {
  const res = await call('POST', `/clients/${clientId}/secrets`, { name });
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      data: { id: string; clear: string; lastDigits: string; name: string; createdAt: string };
    }
  ).data;
}

const tokenRequest = (id: string, secret: string) =>
  app.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: { ...FORM, authorization: basic(id, secret) },
    body: form({ grant_type: 'client_credentials' }),
  });

async function auditTable() {
  const { Items = [] } = await runtime.doc.send(
    new ScanCommand({ TableName: runtime.config.tables.auth }),
  );
  return Items;
}

describe('clients', () => {
  it('creates a client with default scopes (no auth:*), and reads it back', async () => {
    const created = await createClient({
      name: 'payments-worker',
      description: 'moves money',
      metadata: { team: 'core' },
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({
      name: 'payments-worker',
      description: 'moves money',
      metadata: { team: 'core' },
      scopes: [...DEFAULT_CLIENT_SCOPES],
      accessTokenLifetime: 3600,
      secrets: [],
    });
    const read = await call('GET', `/clients/${created.id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: unknown }).data).toEqual(created);
  });

  it('replaces a client in full with PUT (absent options reset to defaults)', async () => {
    const created = await createClient({
      name: 'a',
      description: 'd',
      scopes: ['ledger:read'],
      accessTokenLifetime: 600,
    });
    const res = await call('PUT', `/clients/${created.id}`, { name: 'b', metadata: { k: 'v' } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      id: created.id,
      name: 'b',
      metadata: { k: 'v' },
      scopes: [...DEFAULT_CLIENT_SCOPES],
      accessTokenLifetime: 3600,
    });
    expect(data).not.toHaveProperty('description');
  });

  it('lists clients with cursor pagination in creation order, and refuses bad paging input', async () => {
    const { runtime: own } = await testTables();
    const listApp = authApp(own);
    const token = bearer(await tokenFor(listApp, ADMIN));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await listApp.request('/api/auth/clients', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...token },
        body: JSON.stringify({ name: `c${i}` }),
      });
      ids.push(((await res.json()) as { data: { id: string } }).data.id);
    }
    const page = async (query: string) => {
      const res = await listApp.request(`/api/auth/clients${query}`, { headers: token });
      expect(res.status).toBe(200);
      return (
        (await res.json()) as {
          cursor: {
            pageSize: number;
            hasMore: boolean;
            next?: string;
            previous?: string;
            data: Array<{ id: string }>;
          };
        }
      ).cursor;
    };
    const first = await page('?pageSize=2');
    expect(first.pageSize).toBe(2);
    expect(first.hasMore).toBe(true);
    expect(first.previous).toBeUndefined();
    expect(first.data.map((c) => c.id)).toEqual(ids.slice(0, 2));
    const second = await page(`?cursor=${first.next}`);
    expect(second.data.map((c) => c.id)).toEqual(ids.slice(2, 4));
    const third = await page(`?cursor=${second.next}`);
    expect(third.data.map((c) => c.id)).toEqual(ids.slice(4));
    expect(third.hasMore).toBe(false);
    expect(third.next).toBeUndefined();
    const back = await page(`?cursor=${third.previous}`);
    expect(back.data.map((c) => c.id)).toEqual(ids.slice(2, 4));
    // Paged, `data` holds the same page as the cursor (the reference's SDK reads `data`).
    const paged = await listApp.request('/api/auth/clients?pageSize=2', { headers: token });
    const pagedBody = (await paged.json()) as { data: Array<{ id: string }>; cursor: unknown };
    expect(pagedBody.data.map((c) => c.id)).toEqual(ids.slice(0, 2));
    // Unpaged, as the reference's SDK asks: every client in `data` and nothing the SDK does not read.
    const unpaged = await listApp.request('/api/auth/clients', { headers: token });
    const unpagedBody = (await unpaged.json()) as Record<string, Array<{ id: string }>>;
    expect(Object.keys(unpagedBody)).toEqual(['data']);
    expect(unpagedBody.data!.map((c) => c.id)).toEqual(ids);
    expect((await page('?pageSize=5000')).pageSize).toBe(1000);

    for (const bad of [
      '?pageSize=abc',
      '?pageSize=-1',
      '?pageSize=0',
      '?cursor=not*base64',
      `?cursor=${Buffer.from('{"l":"other","p":2,"k":{},"d":"n"}').toString('base64url')}`,
      `?cursor=${first.next}&name=x`,
      '?unknown=1',
    ]) {
      const res = await listApp.request(`/api/auth/clients${bad}`, { headers: token });
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { errorCode: string }).errorCode).toBe('VALIDATION');
    }
  });

  it('does not list or expose static clients', async () => {
    const res = await call('GET', '/clients?pageSize=1000');
    const { cursor } = (await res.json()) as { cursor: { data: Array<{ id: string }> } };
    expect(cursor.data.map((c) => c.id)).not.toContain(ADMIN.id);
    expect((await call('GET', `/clients/${ADMIN.id}`)).status).toBe(404);
  });

  it('answers 404 NOT_FOUND for unknown ids on every route', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, body] of [
      ['GET', `/clients/${unknown}`],
      ['PUT', `/clients/${unknown}`, { name: 'x' }],
      ['DELETE', `/clients/${unknown}`],
      ['POST', `/clients/${unknown}/secrets`, { name: 'x' }],
      ['DELETE', `/clients/${unknown}/secrets/${unknown}`],
      ['GET', `/clients/${'x'.repeat(5000)}`],
    ] as Array<[string, string, unknown?]>) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path.slice(0, 60)}`).toBe(404);
      expect(((await res.json()) as { errorCode: string }).errorCode).toBe('NOT_FOUND');
    }
  });

  it('refuses bad bodies with VALIDATION naming the field, and stores nothing', async () => {
    const before = (await auditTable()).length;
    const cases: Array<[unknown, string]> = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 42 }, 'body.name'],
      [{ name: 'x'.repeat(256) }, 'body.name'],
      [{ name: 'bell\u0007' }, 'body.name'],
      [{ name: 'x', scopes: ['has space'] }, 'body.scopes'],
      [{ name: 'x', scopes: [''] }, 'body.scopes'],
      [{ name: 'x', scopes: ['quote"d'] }, 'body.scopes'],
      [{ name: 'x', scopes: [7] }, 'body.scopes'],
      [{ name: 'x', scopes: ['s'.repeat(129)] }, 'body.scopes'],
      [{ name: 'x', scopes: ['ledger:read', 'ledger:read'] }, 'body.scopes'],
      [{ name: 'x', metadata: { k: 1 } }, 'body.metadata'],
      [{ name: 'x', accessTokenLifetime: 10 }, 'body.accessTokenLifetime'],
      [{ name: 'x', accessTokenLifetime: 1.5 }, 'body.accessTokenLifetime'],
      [{ name: 'x', redirectUris: [] }, 'body'],
      [[], 'body'],
      ['{"name": "x"', 'body is not valid JSON'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/clients', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json()) as { errorCode: string; errorMessage: string };
      expect(err.errorCode).toBe('VALIDATION');
      expect(err.errorMessage.startsWith(field), err.errorMessage).toBe(true);
    }
    const wrongType = await app.request('/api/auth/clients', {
      method: 'POST',
      headers: { ...admin, 'content-type': 'text/plain' },
      body: '{"name":"x"}',
    });
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { errorMessage: string }).errorMessage).toBe(
      'content-type must be application/json',
    );
    const huge = await call('POST', '/clients', {
      name: 'x',
      description: 'y'.repeat(1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { errorCode: string }).errorCode).toBe('VALIDATION');
    expect((await auditTable()).length).toBe(before);
  });
});

describe('secrets', () => {
  it('shows the clear secret once, stores only its digest, and lists it without the clear value', async () => {
    const client = await createClient();
    const secret = await createSecret(client.id, 'billing');
    expect(secret.clear).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(secret.lastDigits).toBe(secret.clear.slice(-4));
    expect(secret.name).toBe('billing');

    const read = (await (await call('GET', `/clients/${client.id}`)).json()) as {
      data: { secrets: Array<Record<string, unknown>> };
    };
    expect(read.data.secrets).toEqual([
      {
        id: secret.id,
        name: 'billing',
        lastDigits: secret.lastDigits,
        metadata: {},
        createdAt: secret.createdAt,
      },
    ]);
    const raw = JSON.stringify(await auditTable());
    expect(raw).not.toContain(secret.clear);
  });

  it('authenticates with the new secret, records lastUsedAt, and grants the client scopes', async () => {
    const client = await createClient({
      name: 'reader',
      scopes: ['ledger:read'],
      accessTokenLifetime: 300,
    });
    const secret = await createSecret(client.id);
    const res = await tokenRequest(client.id, secret.clear);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scope: string; expires_in: number };
    expect(body).toMatchObject({ scope: 'ledger:read', expires_in: 300 });
    const read = (await (await call('GET', `/clients/${client.id}`)).json()) as {
      data: { secrets: Array<{ lastUsedAt?: string }> };
    };
    expect(Date.parse(read.data.secrets[0]!.lastUsedAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('accepts any OAuth scope on a client and issues tokens with it; the services honour only their own', async () => {
    const client = await createClient({
      name: 'custom-scopes',
      scopes: ['openid', 'ledger:admin', 'billing:invoices.read', 'auth:read'],
    });
    expect(client.scopes).toEqual(['openid', 'ledger:admin', 'billing:invoices.read', 'auth:read']);
    const secret = await createSecret(client.id);
    const res = await app.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: { ...FORM, authorization: basic(client.id, secret.clear) },
      body: form({ grant_type: 'client_credentials', scope: 'ledger:admin billing:invoices.read' }),
    });
    expect(res.status).toBe(200);
    const token = (await res.json()) as { access_token: string; scope: string };
    expect(token.scope).toBe('ledger:admin billing:invoices.read');
    // Neither scope is one of auth's: its routes refuse the token.
    const refused = await call('GET', '/clients', undefined, bearer(token.access_token));
    expect(refused.status).toBe(403);
    // A scope the client lacks is still refused at the token endpoint.
    const more = await app.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: { ...FORM, authorization: basic(client.id, secret.clear) },
      body: form({ grant_type: 'client_credentials', scope: 'ledger:write' }),
    });
    expect(more.status).toBe(400);
    expect(((await more.json()) as { error: string }).error).toBe('invalid_scope');
  });

  it('revoking one secret leaves the others working', async () => {
    const client = await createClient();
    const first = await createSecret(client.id, 'first');
    const second = await createSecret(client.id, 'second');
    expect((await tokenRequest(client.id, first.clear)).status).toBe(200);
    expect((await tokenRequest(client.id, second.clear)).status).toBe(200);
    expect((await call('DELETE', `/clients/${client.id}/secrets/${first.id}`)).status).toBe(204);
    expect((await tokenRequest(client.id, first.clear)).status).toBe(401);
    expect((await tokenRequest(client.id, second.clear)).status).toBe(200);
    expect((await call('DELETE', `/clients/${client.id}/secrets/${first.id}`)).status).toBe(404);
  });

  it('deleting a client removes its secrets: they stop authenticating', async () => {
    const client = await createClient();
    const secret = await createSecret(client.id);
    expect((await call('DELETE', `/clients/${client.id}`)).status).toBe(204);
    expect((await tokenRequest(client.id, secret.clear)).status).toBe(401);
    expect((await call('GET', `/clients/${client.id}`)).status).toBe(404);
  });

  it('caps secrets per client', async () => {
    const client = await createClient();
    for (let i = 0; i < 20; i++) await createSecret(client.id, `s${i}`);
    const res = await call('POST', `/clients/${client.id}/secrets`, { name: 'one-too-many' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errorMessage: string }).errorMessage).toContain(
      'at most 20 secrets',
    );
  });

  it('refuses bad secret bodies', async () => {
    const client = await createClient();
    for (const body of [
      {},
      { name: '' },
      { name: 'x', clear: 'chosen' },
      { name: 'x', metadata: 'no' },
    ]) {
      const res = await call('POST', `/clients/${client.id}/secrets`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('scopes on management routes', () => {
  it('lets auth:read list but not create, with RFC 6750 insufficient_scope', async () => {
    const reader = bearer(await tokenFor(app, READER));
    expect((await call('GET', '/clients', undefined, reader)).status).toBe(200);
    const res = await call('POST', '/clients', { name: 'x' }, reader);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="auth:write"',
    );
    expect(await res.json()).toEqual({
      errorCode: 'FORBIDDEN',
      errorMessage: 'scope "auth:write" required',
    });
  });

  it('refuses a token restricted to another audience', async () => {
    const res = await app.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: FORM,
      body: form({
        grant_type: 'client_credentials',
        client_id: ADMIN.id,
        client_secret: ADMIN.secret,
        resource: 'https://other.example/api',
      }),
    });
    const { access_token } = (await res.json()) as { access_token: string };
    const denied = await call('GET', '/clients', undefined, bearer(access_token));
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
