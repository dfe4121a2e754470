/**
 * `GET /api/auth/users` and `/users/{id}` (the SDK's listUsers and readUser): the persons known to the token's
 * environment, the members of its organization who have logged in, and nobody else's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAuthConfig } from '../../../lib/auth/domain/static-clients.js';
import { personId } from '../../../lib/platform/domain/directory.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { authApp, bearer, tokenFor } from '../../support/auth.js';
import { TestDirectory } from '../../support/platform-directory.js';
import { testTables } from '../../support/tables.js';

const IN_DEFAULT = { id: 'default-reader', secret: 'default-reader-secret-012' };
const IN_ACME = { id: 'acme-reader', secret: 'acme-reader-secret-01234' };
const NO_AUTH_SCOPE = { id: 'ledger-only', secret: 'ledger-only-secret-012345' };

let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;
let inDefault: Record<string, string>;
let inAcme: Record<string, string>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  const authConfig = parseAuthConfig(
    JSON.stringify({
      clients: [
        { id: IN_DEFAULT.id, secrets: [IN_DEFAULT.secret], scopes: ['auth:read'] },
        {
          id: IN_ACME.id,
          secrets: [IN_ACME.secret],
          scopes: ['auth:read'],
          environment: 'acme-prod',
        },
        { id: NO_AUTH_SCOPE.id, secrets: [NO_AUTH_SCOPE.secret], scopes: ['ledger:read'] },
      ],
    }),
    'test',
    {},
    'local',
  );
  app = authApp(runtime, { authConfig });
  const directory = new TestDirectory(runtime.doc, runtime.config.tables.platform);
  await directory.defaults(['zoe@example.com']);
  await directory.member('default', 'adam@example.com');
  await directory.member('default', 'never-logged-in@example.com');
  await directory.organization('acme');
  await directory.environment('acme-prod', 'acme', 'production');
  await directory.member('acme', 'carol@acme.test', 'admin');
  // A stranger logged in somewhere, and never-logged-in has no profile: neither is listed.
  await directory.login('zoe@example.com', 'idp-zoe');
  await directory.login('adam@example.com', 'idp-adam');
  await directory.login('carol@acme.test', 'idp-carol');
  await directory.login('stranger@example.com', 'idp-stranger');
  inDefault = bearer(await tokenFor(app, IN_DEFAULT));
  inAcme = bearer(await tokenFor(app, IN_ACME));
});

const get = (path: string, headers: Record<string, string>) =>
  app.request(`/api/auth${path}`, { headers });

describe('users of an environment', () => {
  it("lists the organization's members who have logged in, by email", async () => {
    const res = await get('/users', inDefault);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: [
        { id: personId('adam@example.com'), subject: 'idp-adam', email: 'adam@example.com' },
        { id: personId('zoe@example.com'), subject: 'idp-zoe', email: 'zoe@example.com' },
      ],
    });
    const acme = await get('/users', inAcme);
    expect(await acme.json()).toEqual({
      data: [{ id: personId('carol@acme.test'), subject: 'idp-carol', email: 'carol@acme.test' }],
    });
  });

  it("reads one by id, and another organization's person is not found", async () => {
    const zoe = await get(`/users/${personId('zoe@example.com')}`, inDefault);
    expect(zoe.status).toBe(200);
    expect(await zoe.json()).toEqual({
      data: { id: personId('zoe@example.com'), subject: 'idp-zoe', email: 'zoe@example.com' },
    });
    const carolId = personId('carol@acme.test');
    expect((await get(`/users/${carolId}`, inAcme)).status).toBe(200);
    const crossed = await get(`/users/${carolId}`, inDefault);
    expect(crossed.status).toBe(404);
    expect(await crossed.json()).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: `user ${carolId} not found`,
    });
    for (const nobody of [
      personId('stranger@example.com'),
      personId('never-logged-in@example.com'),
      'usr_short',
      'zoe@example.com',
      '%3Cscript%3E',
    ]) {
      expect((await get(`/users/${nobody}`, inDefault)).status).toBe(404);
    }
  });

  it('forgets a member removed from the organization', async () => {
    const { runtime: own } = await testTables();
    const ownApp = authApp(own, {
      authConfig: parseAuthConfig(
        JSON.stringify({ clients: [{ id: IN_DEFAULT.id, secrets: [IN_DEFAULT.secret] }] }),
        'test',
        {},
        'local',
      ),
    });
    const directory = new TestDirectory(own.doc, own.config.tables.platform);
    await directory.defaults(['ann@example.com']);
    await directory.member('default', 'bob@example.com');
    await directory.login('ann@example.com', 'idp-ann');
    await directory.login('bob@example.com', 'idp-bob');
    const token = bearer(await tokenFor(ownApp, IN_DEFAULT));
    const emails = async () =>
      (
        (await (await ownApp.request('/api/auth/users', { headers: token })).json()) as {
          data: Array<{ email: string }>;
        }
      ).data.map((u) => u.email);
    expect(await emails()).toEqual(['ann@example.com', 'bob@example.com']);
    await directory.removeMember('default', 'bob@example.com');
    expect(await emails()).toEqual(['ann@example.com']);
    const bob = await ownApp.request(`/api/auth/users/${personId('bob@example.com')}`, {
      headers: token,
    });
    expect(bob.status).toBe(404);
  });

  it('needs auth:read, and a token at all', async () => {
    const token = bearer(await tokenFor(app, NO_AUTH_SCOPE));
    expect((await get('/users', token)).status).toBe(403);
    expect((await get(`/users/${personId('zoe@example.com')}`, token)).status).toBe(403);
    expect((await get('/users', {})).status).toBe(401);
  });

  it('knows nobody in an environment the directory does not have', async () => {
    const { runtime: empty } = await testTables();
    const emptyApp = authApp(empty, {
      authConfig: parseAuthConfig(
        JSON.stringify({ clients: [{ id: IN_DEFAULT.id, secrets: [IN_DEFAULT.secret] }] }),
        'test',
        {},
        'local',
      ),
    });
    const token = bearer(await tokenFor(emptyApp, IN_DEFAULT));
    const res = await emptyApp.request('/api/auth/users', { headers: token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [] });
  });
});
