import { beforeAll, describe, expect, it } from 'vitest';
import { platformConfigFromVariables } from '../../../lib/config/env.js';
import { createProtectedApp } from '../../../lib/runtime/protected-app.js';
import { createRuntime, type ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, bearer, READER, tokenFor } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

let env: NodeJS.ProcessEnv;
let runtime: ServiceRuntime;
let auth: ReturnType<typeof authApp>;
let ledger: ReturnType<typeof createProtectedApp>;

beforeAll(async () => {
  ({ variables: env, runtime } = await testTables());
  auth = authApp(runtime);
  ledger = createProtectedApp('ledger', runtime);
  ledger.get('/v2/probe', (c) => c.json({ client: c.get('principal').clientId }));
  ledger.post('/v2/probe', (c) => c.json({ wrote: true }));
});

async function expect401(res: Response, message: string) {
  expect(res.status).toBe(401);
  // Quotes cannot appear inside a quoted-string header parameter, so the description drops them.
  expect(res.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", error_description="${message.replaceAll('"', '')}"`,
  );
  expect(await res.json()).toEqual({ errorCode: 'UNAUTHORIZED', errorMessage: message });
}

describe('bearer middleware (another service, keys read from the auth table)', () => {
  it('accepts a valid token and passes the principal on', async () => {
    const res = await ledger.request('/api/ledger/v2/probe', {
      headers: bearer(await tokenFor(auth, ADMIN)),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ client: ADMIN.id });
  });

  it('leaves the health probe open', async () => {
    expect((await ledger.request('/api/ledger/_health')).status).toBe(200);
  });

  it('refuses a missing or malformed Authorization header', async () => {
    await expect401(await ledger.request('/api/ledger/v2/probe'), 'missing bearer token');
    await expect401(
      await ledger.request('/api/ledger/v2/probe', { headers: { authorization: 'Token abc' } }),
      'authorization header is not a bearer token',
    );
    await expect401(
      await ledger.request('/api/ledger/v2/probe', { headers: { authorization: 'Bearer' } }),
      'authorization header is not a bearer token',
    );
    await expect401(
      await ledger.request('/api/ledger/v2/probe', { headers: bearer('not.a.jwt') }),
      'token invalid',
    );
  });

  it('refuses a tampered token', async () => {
    const token = await tokenFor(auth, READER);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const escalated = Buffer.from(JSON.stringify({ ...claims, scope: 'ledger:write' })).toString(
      'base64url',
    );
    await expect401(
      await ledger.request('/api/ledger/v2/probe', {
        method: 'POST',
        headers: bearer(`${h}.${escalated}.${s}`),
      }),
      'token invalid',
    );
  });

  it('refuses an expired token', async () => {
    const past = authApp(runtime, { now: () => Date.now() - 2 * 3600_000 });
    await expect401(
      await ledger.request('/api/ledger/v2/probe', {
        headers: bearer(await tokenFor(past, ADMIN)),
      }),
      'token expired',
    );
  });

  it('refuses a token from another issuer (same keys)', async () => {
    const foreign = authApp(
      createRuntime(
        platformConfigFromVariables({
          ...env,
          PUBLIC_BASE_URL: 'http://elsewhere.test',
          TOKEN_AUDIENCE: env.PUBLIC_BASE_URL,
        }),
      ),
    );
    await expect401(
      await ledger.request('/api/ledger/v2/probe', {
        headers: bearer(await tokenFor(foreign, ADMIN)),
      }),
      'token claim "iss" rejected',
    );
  });

  it('refuses a token for another audience', async () => {
    const other = authApp(
      createRuntime(
        platformConfigFromVariables({ ...env, TOKEN_AUDIENCE: 'https://another-platform.test' }),
      ),
    );
    await expect401(
      await ledger.request('/api/ledger/v2/probe', {
        headers: bearer(await tokenFor(other, ADMIN)),
      }),
      'token claim "aud" rejected',
    );
  });

  it('applies the scope rule: read allows GET/HEAD, write allows everything', async () => {
    const readOnly = bearer(await tokenFor(auth, READER, 'ledger:read'));
    expect((await ledger.request('/api/ledger/v2/probe', { headers: readOnly })).status).toBe(200);
    const denied = await ledger.request('/api/ledger/v2/probe', {
      method: 'POST',
      headers: readOnly,
    });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="ledger:write"',
    );
    expect(await denied.json()).toEqual({
      errorCode: 'FORBIDDEN',
      errorMessage: 'scope "ledger:write" required',
    });

    const writeOnly = bearer(await tokenFor(auth, ADMIN, 'ledger:write'));
    expect((await ledger.request('/api/ledger/v2/probe', { headers: writeOnly })).status).toBe(200);
    expect(
      (await ledger.request('/api/ledger/v2/probe', { method: 'POST', headers: writeOnly })).status,
    ).toBe(200);

    const otherService = bearer(await tokenFor(auth, ADMIN, 'payments:write'));
    const res = await ledger.request('/api/ledger/v2/probe', { headers: otherService });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="ledger:read"',
    );
  });

  it('answers unknown routes with 404 in the contract shape, after authentication', async () => {
    const res = await ledger.request('/api/ledger/v2/nothing-here', {
      headers: bearer(await tokenFor(auth, ADMIN)),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errorCode: string }).errorCode).toBe('NOT_FOUND');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
