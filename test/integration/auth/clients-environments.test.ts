/**
 * Clients per environment (docs/decisions/tenancy.md, "Environments"): a dynamic client lives in the environment
 * of the token that created it, every /clients route works within the request token's environment (another
 * environment's client is unknown: 404), and its tokens name its environment. Static clients name theirs, or are
 * platform-level clients with platform tokens.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAuthConfig } from '../../../lib/auth/domain/static-clients.js';
import { clientsExist } from '../../../lib/auth/store/environment-probe.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { authApp, basic, bearer, FORM, form, tokenFor } from '../../support/auth.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

const A = { id: 'admin-a', secret: 'admin-a-secret-0123456789' };
const B = { id: 'admin-b', secret: 'admin-b-secret-0123456789' };
const DEFAULT_ADMIN = { id: 'admin-default', secret: 'admin-default-secret-0123' };
const OPS = { id: 'ops', secret: 'ops-platform-secret-012345' };

let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;
let tokenA: Record<string, string>;
let tokenB: Record<string, string>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  const authConfig = parseAuthConfig(
    JSON.stringify({
      clients: [
        { id: A.id, secrets: [A.secret], environment: 'env-a' },
        { id: B.id, secrets: [B.secret], environment: 'env-b' },
        { id: DEFAULT_ADMIN.id, secrets: [DEFAULT_ADMIN.secret] },
        { id: OPS.id, secrets: [OPS.secret], platform: { organization: 'acme', role: 'admin' } },
      ],
    }),
    'test',
    {},
    'local',
  );
  app = authApp(runtime, { authConfig });
  tokenA = bearer(await tokenFor(app, A));
  tokenB = bearer(await tokenFor(app, B));
});

const call = (method: string, path: string, token: Record<string, string>, body?: unknown) =>
  app.request(`/api/auth${path}`, {
    method,
    headers: body === undefined ? token : { 'content-type': 'application/json', ...token },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function createIn(token: Record<string, string>, name: string) {
  const res = await call('POST', '/clients', token, { name });
  expect(res.status).toBe(201);
  const { data } = (await res.json()) as { data: { id: string } };
  const secret = await call('POST', `/clients/${data.id}/secrets`, token, { name: 's' });
  expect(secret.status).toBe(200);
  const { data: s } = (await secret.json()) as { data: { id: string; clear: string } };
  return { id: data.id, secretId: s.id, secret: s.clear };
}

const listIds = async (token: Record<string, string>) => {
  const res = await call('GET', '/clients', token);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((c) => c.id);
};

const clientToken = (id: string, secret: string) =>
  app.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: { ...FORM, authorization: basic(id, secret) },
    body: form({ grant_type: 'client_credentials' }),
  });

describe('clients in environments', () => {
  it('tokens of static clients name their configured environment (default `default`)', async () => {
    expect(decodeJwt(tokenA.authorization!.slice(7)).environment).toBe('env-a');
    expect(decodeJwt(tokenB.authorization!.slice(7)).environment).toBe('env-b');
    expect(decodeJwt(await tokenFor(app, DEFAULT_ADMIN)).environment).toBe('default');
  });

  it("keeps one environment's clients out of another's reach: list, read, update, delete, secrets", async () => {
    const a = await createIn(tokenA, 'client-of-a');
    const b = await createIn(tokenB, 'client-of-b');
    expect(await listIds(tokenA)).toEqual([a.id]);
    expect(await listIds(tokenB)).toEqual([b.id]);

    const notFound = async (res: Response) => {
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ errorCode: 'NOT_FOUND' });
    };
    await notFound(await call('GET', `/clients/${a.id}`, tokenB));
    await notFound(await call('PUT', `/clients/${a.id}`, tokenB, { name: 'taken' }));
    await notFound(await call('POST', `/clients/${a.id}/secrets`, tokenB, { name: 'mine' }));
    await notFound(await call('DELETE', `/clients/${a.id}/secrets/${a.secretId}`, tokenB));
    await notFound(await call('DELETE', `/clients/${a.id}`, tokenB));

    // Nothing of A's changed: same name, same single secret, which still authenticates.
    const read = await call('GET', `/clients/${a.id}`, tokenA);
    expect(read.status).toBe(200);
    const { data } = (await read.json()) as { data: { name: string; secrets: unknown[] } };
    expect(data.name).toBe('client-of-a');
    expect(data.secrets).toHaveLength(1);
    expect((await clientToken(a.id, a.secret)).status).toBe(200);
  });

  it("gives a dynamic client's tokens the environment it was created in", async () => {
    const a = await createIn(tokenA, 'issuer-a');
    const b = await createIn(tokenB, 'issuer-b');
    const tokenOf = async (c: { id: string; secret: string }) => {
      const res = await clientToken(c.id, c.secret);
      expect(res.status).toBe(200);
      return decodeJwt(((await res.json()) as { access_token: string }).access_token);
    };
    expect(await tokenOf(a)).toMatchObject({ environment: 'env-a', sub: a.id, aud: TEST_BASE_URL });
    expect(await tokenOf(b)).toMatchObject({ environment: 'env-b', sub: b.id });
    // A client of A with auth:read reads A's clients, and B's are unknown to it.
    const created = await call('POST', '/clients', tokenA, {
      name: 'reader',
      scopes: ['auth:read'],
    });
    const reader = ((await created.json()) as { data: { id: string } }).data.id;
    const secret = await call('POST', `/clients/${reader}/secrets`, tokenA, { name: 's' });
    const { clear } = ((await secret.json()) as { data: { clear: string } }).data;
    const issued = await clientToken(reader, clear);
    const fromA = bearer(((await issued.json()) as { access_token: string }).access_token);
    expect((await call('GET', `/clients/${a.id}`, fromA)).status).toBe(200);
    expect((await call('GET', `/clients/${b.id}`, fromA)).status).toBe(404);
  });

  it("refuses another environment's cursor instead of paging through its clients", async () => {
    const { runtime: own } = await testTables();
    const authConfig = parseAuthConfig(
      JSON.stringify({
        clients: [
          { id: A.id, secrets: [A.secret], environment: 'env-a' },
          { id: B.id, secrets: [B.secret], environment: 'env-b' },
        ],
      }),
      'test',
      {},
      'local',
    );
    const paged = authApp(own, { authConfig });
    const [ownA, ownB] = [bearer(await tokenFor(paged, A)), bearer(await tokenFor(paged, B))];
    for (const name of ['one', 'two', 'three']) {
      const res = await paged.request('/api/auth/clients', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ownA },
        body: JSON.stringify({ name }),
      });
      expect(res.status).toBe(201);
    }
    const first = (await (
      await paged.request('/api/auth/clients?pageSize=1', { headers: ownA })
    ).json()) as { cursor: { next: string } };
    const stolen = await paged.request(`/api/auth/clients?cursor=${first.cursor.next}`, {
      headers: ownB,
    });
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ errorCode: 'VALIDATION' });
  });

  it('writes and deletes the directory item with the client; a deleted client stops authenticating', async () => {
    const a = await createIn(tokenA, 'short-lived');
    const items = async () => {
      const { Items = [] } = await runtime.doc.send(
        new ScanCommand({ TableName: runtime.config.tables.auth }),
      );
      return Items.filter((i) => String(i.pk).includes(a.id)).map((i) => [i.pk, i.sk]);
    };
    expect((await items()).sort()).toEqual([
      [`CLIENT#${a.id}`, 'ENVIRONMENT'],
      [`E#env-a#CLIENT#${a.id}`, 'CLIENT'],
    ]);
    expect((await call('DELETE', `/clients/${a.id}`, tokenA)).status).toBe(204);
    expect(await items()).toEqual([]);
    const res = await clientToken(a.id, a.secret);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('answers whether an environment has clients (the platform service asks before deleting one)', async () => {
    const { runtime: own } = await testTables();
    const probe = (env: string) => clientsExist(own.doc, own.config.tables.auth, env);
    expect(await probe('env-a')).toBe(false);
    const authConfig = parseAuthConfig(
      JSON.stringify({ clients: [{ id: A.id, secrets: [A.secret], environment: 'env-a' }] }),
      'test',
      {},
      'local',
    );
    const probed = authApp(own, { authConfig });
    const token = bearer(await tokenFor(probed, A));
    const created = await probed.request('/api/auth/clients', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...token },
      body: JSON.stringify({ name: 'x' }),
    });
    const { data } = (await created.json()) as { data: { id: string } };
    expect(await probe('env-a')).toBe(true);
    expect(await probe('env-b')).toBe(false);
    await probed.request(`/api/auth/clients/${data.id}`, { method: 'DELETE', headers: token });
    expect(await probe('env-a')).toBe(false);
  });
});

describe('a platform-level static client', () => {
  it('gets platform tokens: the platform audience, its organization and role, no environment', async () => {
    const res = await app.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: FORM,
      body: form({
        grant_type: 'client_credentials',
        client_id: OPS.id,
        client_secret: OPS.secret,
      }),
    });
    expect(res.status).toBe(200);
    const claims = decodeJwt(((await res.json()) as { access_token: string }).access_token);
    expect(claims).toMatchObject({
      aud: `${TEST_BASE_URL}/api/platform`,
      sub: OPS.id,
      client_id: OPS.id,
      principal_type: 'client',
      organization: 'acme',
      role: 'admin',
    });
    expect(claims).not.toHaveProperty('environment');
  });

  it('is refused by the environment routes (401), and cannot ask for the API audience', async () => {
    const token = await tokenFor(app, OPS);
    const res = await call('GET', '/clients', bearer(token));
    expect(res.status).toBe(401);
    const elsewhere = await app.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: FORM,
      body: form({
        grant_type: 'client_credentials',
        client_id: OPS.id,
        client_secret: OPS.secret,
        resource: TEST_BASE_URL,
      }),
    });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_target' });
  });
});
