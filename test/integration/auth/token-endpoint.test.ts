import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashedClientId } from '../../../lib/auth/domain/client-id-hash.js';
import { createLogger } from '../../../lib/observability/logger.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ALL_SCOPES } from '../../../lib/tokens/scopes.js';
import { ADMIN, authApp, basic, FORM, form, READER } from '../../support/auth.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

const TOKEN = '/api/auth/oauth/token';
const ISSUER = `${TEST_BASE_URL}/api/auth`;
const GENERIC_401 = { error: 'invalid_client', error_description: 'client authentication failed' };

let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  // A generous budget here; throttling has its own tests (token-throttle.test.ts).
  app = authApp(runtime, {
    throttle: {
      windowSeconds: 60,
      maxFailuresPerSource: 1000,
      maxFailuresPerClient: 1000,
      maxFailuresPerSourceOnceClientSpent: 1,
    },
  });
});

const post = (body: string, headers: Record<string, string> = FORM, query = '') =>
  app.request(TOKEN + query, { method: 'POST', headers, body });

function expectNoStore(res: Response) {
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
}

async function expectOAuthError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expectNoStore(res);
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('successful grants', () => {
  it('issues an RFC 9068 token with client_secret_post', async () => {
    const res = await post(
      form({ grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret }),
    );
    expect(res.status).toBe(200);
    expectNoStore(res);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe(ALL_SCOPES.join(' '));

    const token = body.access_token as string;
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('RS256');
    expect(header.typ).toBe('at+jwt');
    const claims = decodeJwt(token);
    expect(claims.iss).toBe(ISSUER);
    expect(claims.sub).toBe(ADMIN.id);
    expect(claims.client_id).toBe(ADMIN.id);
    expect(claims.aud).toBe(TEST_BASE_URL);
    expect(claims.scope).toBe(ALL_SCOPES.join(' '));
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.nbf).toBe(claims.iat);
    expect(String(claims.jti)).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const jwks = (await (await app.request('/api/auth/keys')).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
  });

  it('accepts client_secret_basic, with the id and secret form-urlencoded', async () => {
    const res = await post(form({ grant_type: 'client_credentials' }), {
      ...FORM,
      authorization: basic(ADMIN.id, ADMIN.secret),
    });
    expect(res.status).toBe(200);
    expect(decodeJwt(((await res.json()) as { access_token: string }).access_token).client_id).toBe(
      ADMIN.id,
    );
  });

  it('accepts query-style parameters, and a charset on the content type', async () => {
    const query =
      '?' +
      form({
        grant_type: 'client_credentials',
        client_id: READER.id,
        client_secret: READER.secret,
      });
    const res = await app.request(TOKEN + query, { method: 'POST' });
    expect(res.status).toBe(200);
    const res2 = await post(
      form({
        grant_type: 'client_credentials',
        client_id: READER.id,
        client_secret: READER.secret,
      }),
      {
        'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
      },
    );
    expect(res2.status).toBe(200);
  });

  it('lets the form body win over the query string for the same parameter', async () => {
    const query = `?${form({ client_secret: 'wrong-secret-from-query' })}`;
    const res = await post(
      form({
        grant_type: 'client_credentials',
        client_id: READER.id,
        client_secret: READER.secret,
      }),
      FORM,
      query,
    );
    expect(res.status).toBe(200);
  });

  it('grants a requested subset of scopes and uses the per-client lifetime', async () => {
    const res = await post(
      form({
        grant_type: 'client_credentials',
        client_id: READER.id,
        client_secret: READER.secret,
        scope: 'ledger:read',
      }),
    );
    const body = (await res.json()) as { scope: string; expires_in: number; access_token: string };
    expect(body.scope).toBe('ledger:read');
    expect(body.expires_in).toBe(120);
    const claims = decodeJwt(body.access_token);
    expect(claims.exp! - claims.iat!).toBe(120);
    expect(claims.scope).toBe('ledger:read');
  });

  it('restricts the audience to an allowed resource (resource or audience parameter)', async () => {
    for (const name of ['resource', 'audience']) {
      const res = await post(
        form({
          grant_type: 'client_credentials',
          client_id: ADMIN.id,
          client_secret: ADMIN.secret,
          [name]: 'https://other.example/api',
        }),
      );
      expect(res.status).toBe(200);
      expect(decodeJwt(((await res.json()) as { access_token: string }).access_token).aud).toBe(
        'https://other.example/api',
      );
    }
  });
});

describe('errors', () => {
  const good = {
    grant_type: 'client_credentials',
    client_id: ADMIN.id,
    client_secret: ADMIN.secret,
  };

  it('refuses a missing grant_type (invalid_request) and other grant types (unsupported_grant_type)', async () => {
    await expectOAuthError(
      await post(form({ client_id: ADMIN.id, client_secret: ADMIN.secret })),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(form({ ...good, grant_type: 'password' })),
      400,
      'unsupported_grant_type',
    );
    await expectOAuthError(
      await post(form({ ...good, grant_type: 'authorization_code' })),
      400,
      'unsupported_grant_type',
    );
  });

  it('treats an empty value as absent', async () => {
    await expectOAuthError(await post(form({ ...good, grant_type: '' })), 400, 'invalid_request');
  });

  it('refuses a repeated parameter', async () => {
    const body = `${form(good)}&scope=ledger:read&scope=ledger:write`;
    const err = await expectOAuthError(await post(body), 400, 'invalid_request');
    expect(err.error_description).toContain('scope');
    await expectOAuthError(
      await post(`${form(good)}&client_id=${ADMIN.id}`),
      400,
      'invalid_request',
    );
  });

  it('refuses two authentication methods at once, and a Basic id that disagrees with client_id', async () => {
    await expectOAuthError(
      await post(form(good), { ...FORM, authorization: basic(ADMIN.id, ADMIN.secret) }),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(form({ grant_type: 'client_credentials', client_id: READER.id }), {
        ...FORM,
        authorization: basic(ADMIN.id, ADMIN.secret),
      }),
      400,
      'invalid_request',
    );
  });

  it('refuses missing credentials and a missing secret', async () => {
    await expectOAuthError(
      await post(form({ grant_type: 'client_credentials' })),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(form({ grant_type: 'client_credentials', client_id: ADMIN.id })),
      400,
      'invalid_request',
    );
  });

  it('refuses wrong content types', async () => {
    await expectOAuthError(
      await post(JSON.stringify(good), { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(form(good), { 'content-type': 'text/plain' }),
      400,
      'invalid_request',
    );
    await expectOAuthError(await post(form(good), {}), 400, 'invalid_request');
  });

  it('refuses malformed Basic credentials and other schemes', async () => {
    const g = form({ grant_type: 'client_credentials' });
    await expectOAuthError(
      await post(g, { ...FORM, authorization: 'Basic !!!not-base64' }),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(g, {
        ...FORM,
        authorization: `Basic ${Buffer.from('no-colon').toString('base64')}`,
      }),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(g, { ...FORM, authorization: `Basic ${Buffer.from('%zz:x').toString('base64')}` }),
      400,
      'invalid_request',
    );
    await expectOAuthError(
      await post(g, { ...FORM, authorization: 'Bearer abc' }),
      400,
      'invalid_request',
    );
  });

  it('answers one generic invalid_client for an unknown client and a wrong secret', async () => {
    const unknown = await expectOAuthError(
      await post(form({ ...good, client_id: 'nobody' })),
      401,
      'invalid_client',
    );
    const wrong = await expectOAuthError(
      await post(form({ ...good, client_secret: 'not-the-secret' })),
      401,
      'invalid_client',
    );
    expect(unknown).toEqual(GENERIC_401);
    expect(wrong).toEqual(GENERIC_401);
  });

  it('challenges with Basic only when Basic was used', async () => {
    const viaBasic = await post(form({ grant_type: 'client_credentials' }), {
      ...FORM,
      authorization: basic(ADMIN.id, 'wrong'),
    });
    await expectOAuthError(viaBasic, 401, 'invalid_client');
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="auth", charset="UTF-8"');
    const viaPost = await post(form({ ...good, client_secret: 'wrong' }));
    expect(viaPost.headers.get('www-authenticate')).toBeNull();
  });

  it('refuses scopes the client lacks, unknown scopes and malformed scopes', async () => {
    await expectOAuthError(
      await post(
        form({
          grant_type: 'client_credentials',
          client_id: READER.id,
          client_secret: READER.secret,
          scope: 'ledger:write',
        }),
      ),
      400,
      'invalid_scope',
    );
    await expectOAuthError(await post(form({ ...good, scope: 'openid' })), 400, 'invalid_scope');
    await expectOAuthError(
      await post(form({ ...good, scope: 'ledger:read "quoted"' })),
      400,
      'invalid_scope',
    );
  });

  it('refuses unknown or malformed resources with invalid_target', async () => {
    await expectOAuthError(
      await post(form({ ...good, resource: 'https://evil.example/' })),
      400,
      'invalid_target',
    );
    await expectOAuthError(
      await post(form({ ...good, resource: 'not a uri' })),
      400,
      'invalid_target',
    );
    await expectOAuthError(
      await post(form({ ...good, resource: `${TEST_BASE_URL}#frag` })),
      400,
      'invalid_target',
    );
    await expectOAuthError(
      await post(form({ ...good, resource: TEST_BASE_URL, audience: 'https://other.example/api' })),
      400,
      'invalid_request',
    );
  });

  it('accepts POST only', async () => {
    const res = await app.request(TOKEN, { method: 'GET' });
    await expectOAuthError(res, 405, 'invalid_request');
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('refuses huge bodies with 413', async () => {
    const body = form({ ...good, padding: 'x'.repeat(100 * 1024) });
    await expectOAuthError(await post(body), 413, 'invalid_request');
    const huge = await post(form({ ...good, padding: 'x'.repeat(2 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expectNoStore(huge);
  });

  it('answers hostile client ids with the generic 401 and stores no client', async () => {
    const hostile = [
      '"; DROP TABLE clients; --',
      'ユニコード🙂',
      'x'.repeat(10 * 1024),
      'tab\there',
      'quote\'"`',
    ];
    for (const id of hostile) {
      const res = await post(form({ ...good, client_id: id }));
      expect(await expectOAuthError(res, 401, 'invalid_client')).toEqual(GENERIC_401);
    }
    const { Items = [] } = await runtime.doc.send(
      new ScanCommand({ TableName: runtime.config.tables.auth }),
    );
    expect(Items.filter((i) => String(i.pk).startsWith('CLIENT#'))).toEqual([]);
    // Only failure counters were written for them: fixed-size keys, whatever the presented id.
    const counters = Items.filter((i) => String(i.pk).startsWith('THROTTLE#'));
    expect(counters.length).toBeGreaterThanOrEqual(2 * hostile.length);
    for (const item of counters) expect(String(item.pk).length).toBeLessThanOrEqual(80);
  });
});

describe('the request log line', () => {
  function loggedApp() {
    const lines: Array<Record<string, unknown>> = [];
    const logged = authApp({
      ...runtime,
      logger: createLogger('info', (line) =>
        lines.push(JSON.parse(line) as Record<string, unknown>),
      ),
    });
    return { logged, lines };
  }

  it('never holds a presented client_id until it authenticates: a secret sent as the id stays out of the logs', async () => {
    const { logged, lines } = loggedApp();
    const swapped = [
      {
        headers: FORM,
        body: form({
          grant_type: 'client_credentials',
          client_id: READER.secret,
          client_secret: READER.id,
        }),
      },
      {
        headers: { ...FORM, authorization: basic(READER.secret, READER.id) },
        body: form({ grant_type: 'client_credentials' }),
      },
    ];
    for (const init of swapped)
      expect((await logged.request(TOKEN, { method: 'POST', ...init })).status).toBe(401);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.stringify(line)).not.toContain(READER.secret.slice(0, 8));
      expect(line).toMatchObject({
        route: TOKEN,
        status: 401,
        oauthError: 'invalid_client',
        oauthClientIdHash: hashedClientId(READER.secret),
      });
      expect(line).not.toHaveProperty('oauthClientId');
    }
    expect(hashedClientId(READER.secret)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('names the client once it has authenticated', async () => {
    const { logged, lines } = loggedApp();
    const res = await logged.request(TOKEN, {
      method: 'POST',
      headers: FORM,
      body: form({
        grant_type: 'client_credentials',
        client_id: ADMIN.id,
        client_secret: ADMIN.secret,
      }),
    });
    expect(res.status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      status: 200,
      oauthClientId: ADMIN.id,
      oauthClientIdHash: hashedClientId(ADMIN.id),
    });
    expect(JSON.stringify(lines[0])).not.toContain(ADMIN.secret);
  });
});
