/**
 * Persons' grants at the token endpoint (docs/decisions/tenancy.md, "Grants at /api/auth/oauth/token"), end to end with
 * real ID tokens from the local identity provider (the one `npm start` runs) on its own HTTP server: an ID token
 * for a platform token (RFC 8693), a platform token for an environment token (RFC 8693 and RFC 7523), and every
 * refusal as `invalid_grant` naming the check that failed.
 */
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/observability/logger.js';
import { personId, roleScopes } from '../../../lib/platform/domain/directory.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ALL_SCOPES } from '../../../lib/tokens/scopes.js';
import { ADMIN, authApp, bearer, FORM, form, tokenFor } from '../../support/auth.js';
import {
  account,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '../../support/identity.js';
import { TestDirectory } from '../../support/platform-directory.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const PLATFORM_AUDIENCE = `${TEST_BASE_URL}/api/platform`;

const DEV = 'dev@example.com';
const MEMBER = 'member@example.com';
const UNVERIFIED = 'unverified@example.com';
const OUTSIDER = 'outsider@example.com';
const LEAVER = 'leaver@example.com';
const CAROL = 'carol@acme.test';

let idp: TestIdentityProvider;
let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;
let directory: TestDirectory;
/** Every line the auth app logged, for the check that no token ever appears in one. */
const logLines: string[] = [];
/** Every token, assertion and secret sent or received, for the same check. */
const secrets = new Set<string>();

beforeAll(async () => {
  idp = await startTestIdentityProvider([
    account(DEV),
    account(MEMBER),
    account(UNVERIFIED, { emailVerified: false }),
    account(OUTSIDER),
    account(LEAVER),
    account(CAROL),
  ]);
  const env = await testTables({
    IDENTITY_PROVIDER_ISSUER: idp.issuer,
    IDENTITY_PROVIDER_CLIENT_ID: idp.clientId,
  });
  runtime = { ...env.runtime, logger: createLogger('info', (line) => logLines.push(line)) };
  app = authApp(runtime);
  directory = new TestDirectory(runtime.doc, runtime.config.tables.platform);
  await directory.defaults([DEV]);
  await directory.member('default', MEMBER);
  await directory.member('default', UNVERIFIED);
  await directory.member('default', LEAVER);
  await directory.environment('gone-env', 'default');
  await directory.deleteEnvironment('gone-env', 'default');
  await directory.organization('acme');
  await directory.environment('acme-sandbox', 'acme');
  await directory.member('acme', CAROL, 'admin');
});

afterAll(async () => {
  await idp?.stop();
});

async function token(params: Record<string, string>) {
  for (const key of ['subject_token', 'assertion', 'client_secret'])
    if (params[key]) secrets.add(params[key]);
  const res = await app.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: FORM,
    body: form(params),
  });
  const body = (await res.json()) as Record<string, string | number>;
  if (typeof body.access_token === 'string') secrets.add(body.access_token);
  return { status: res.status, body };
}

const exchangeIdToken = (idToken: string, extra: Record<string, string> = {}) =>
  token({ grant_type: EXCHANGE, subject_token: idToken, subject_token_type: ID_TOKEN, ...extra });

const exchangePlatformToken = (platformToken: string, environment: string, scope?: string) =>
  token({
    grant_type: EXCHANGE,
    subject_token: platformToken,
    subject_token_type: ACCESS_TOKEN,
    environment,
    ...(scope ? { scope } : {}),
  });

const jwtBearer = (assertion: string, environment: string) =>
  token({ grant_type: JWT_BEARER, assertion, environment });

/** A person's platform token, from a fresh ID token of the provider. */
async function platformTokenOf(email: string): Promise<string> {
  const idToken = await idp.idToken(email);
  secrets.add(idToken);
  const { status, body } = await exchangeIdToken(idToken);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.access_token as string;
}

function expectRefused(
  result: { status: number; body: Record<string, unknown> },
  description: string | RegExp,
) {
  expect(result.status).toBe(400);
  expect(result.body.error).toBe('invalid_grant');
  if (typeof description === 'string') expect(result.body.error_description).toBe(description);
  else expect(result.body.error_description).toMatch(description);
}

describe('an ID token for a platform token (RFC 8693)', () => {
  it('issues a platform token to a member: the platform audience, no environment, 15 minutes', async () => {
    const idToken = await idp.idToken(DEV);
    secrets.add(idToken);
    const { status, body } = await exchangeIdToken(idToken);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      scope: '',
      issued_token_type: ACCESS_TOKEN,
    });
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({
      iss: `${TEST_BASE_URL}/api/auth`,
      aud: PLATFORM_AUDIENCE,
      sub: personId(DEV),
      email: DEV,
      principal_type: 'person',
      client_id: idp.clientId,
      scope: '',
    });
    expect(claims).not.toHaveProperty('environment');
    expect(claims.exp! - claims.iat!).toBe(900);
    // The login is recorded: the email bound to the provider's issuer and subject.
    const profile = await directory.directory.profile(DEV);
    expect(profile).toMatchObject({
      id: personId(DEV),
      email: DEV,
      issuer: idp.issuer,
      subject: decodeJwt(idToken).sub,
      name: 'dev',
    });
  });

  it('takes an ID token from the real authorization-code flow (PKCE, the login page)', async () => {
    const idToken = await idp.idTokenByCodeFlow(MEMBER);
    secrets.add(idToken);
    const { status, body } = await exchangeIdToken(idToken);
    expect(status).toBe(200);
    expect(decodeJwt(body.access_token as string)).toMatchObject({
      sub: personId(MEMBER),
      email: MEMBER,
      aud: PLATFORM_AUDIENCE,
    });
  });

  it('refuses a forged ID token: another key, under the provider key id or its own', async () => {
    const claims = {
      iss: idp.issuer,
      aud: idp.clientId,
      sub: 'forged',
      email: DEV,
      email_verified: true,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 300,
    };
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const otherKey = { ...(await exportJWK(privateKey)), alg: 'ES256' };
    expectRefused(
      await exchangeIdToken(await idp.sign(claims, { ...otherKey, kid: idp.signingKey.kid! })),
      'ID token signature does not verify',
    );
    expectRefused(
      await exchangeIdToken(await idp.sign(claims, { ...otherKey, kid: 'attacker-key' })),
      'ID token signed by a key the identity provider does not publish',
    );
    expectRefused(await exchangeIdToken('not.a.jwt'), 'ID token is not a valid signed JWT');
  });

  it('refuses a foreign issuer, a wrong audience, an expired token and an unverified email', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = {
      iss: idp.issuer,
      aud: idp.clientId,
      sub: 'someone',
      email: DEV,
      email_verified: true,
      iat: now,
      exp: now + 300,
    };
    expectRefused(
      await exchangeIdToken(await idp.sign({ ...good, iss: 'https://elsewhere.example' })),
      'ID token issuer is not the trusted identity provider',
    );
    expectRefused(
      await exchangeIdToken(await idp.sign({ ...good, aud: 'another-client' })),
      "ID token audience does not name this platform's client",
    );
    expectRefused(
      await exchangeIdToken(await idp.sign({ ...good, iat: now - 900, exp: now - 60 })),
      'ID token expired',
    );
    expectRefused(
      await exchangeIdToken(await idp.sign({ ...good, email_verified: false })),
      'ID token email is not verified',
    );
    expectRefused(
      await exchangeIdToken(await idp.sign({ ...good, email: undefined })),
      'ID token has no email',
    );
    // The provider's own token for an account whose email it has not verified.
    expectRefused(
      await exchangeIdToken(await idp.idToken(UNVERIFIED)),
      'ID token email is not verified',
    );
  });

  it('refuses an ID token of another provider, however valid it is there', async () => {
    const other = await startTestIdentityProvider([account(DEV)]);
    try {
      expectRefused(
        await exchangeIdToken(await other.idToken(DEV)),
        'ID token signed by a key the identity provider does not publish',
      );
      // Even signed with a key under the same id: the issuer is checked too.
      const forged = await other.sign(
        {
          iss: other.issuer,
          aud: idp.clientId,
          sub: 's',
          email: DEV,
          email_verified: true,
          iat: 1,
          exp: 4102444800,
        },
        { ...other.signingKey, kid: idp.signingKey.kid! },
      );
      expectRefused(await exchangeIdToken(forged), 'ID token signature does not verify');
    } finally {
      await other.stop();
    }
  });

  it('refuses a replay, and of two concurrent uses exactly one wins', async () => {
    const idToken = await idp.idToken(MEMBER);
    expect((await exchangeIdToken(idToken)).status).toBe(200);
    expectRefused(
      await exchangeIdToken(idToken),
      'token already used: each subject token or assertion is accepted once',
    );
    const twin = await idp.idToken(MEMBER);
    const results = await Promise.all([exchangeIdToken(twin), exchangeIdToken(twin)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.status === 400)!.body.error).toBe('invalid_grant');
  });

  it('refuses a person who belongs to no organization, and records nothing for them', async () => {
    expectRefused(
      await exchangeIdToken(await idp.idToken(OUTSIDER)),
      'the person is not a member of any organization',
    );
    expect(await directory.directory.profile(OUTSIDER)).toBeUndefined();
  });

  it('refuses another subject with an email already bound to a first login', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectRefused(
      await exchangeIdToken(
        await idp.sign({
          iss: idp.issuer,
          aud: idp.clientId,
          sub: 'a-recreated-account',
          email: DEV,
          email_verified: true,
          iat: now,
          exp: now + 300,
        }),
      ),
      'this email is bound to another identity of the provider',
    );
  });

  it('refuses scopes (a platform token has none) and another audience', async () => {
    const scoped = await exchangeIdToken(await idp.idToken(DEV), { scope: 'ledger:read' });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error).toBe('invalid_scope');
    const elsewhere = await exchangeIdToken(await idp.idToken(DEV), {
      resource: 'https://other.example/api',
    });
    expect(elsewhere.body.error).toBe('invalid_target');
  });

  it('answers invalid_grant when no identity provider is configured', async () => {
    const { runtime: bare } = await testTables();
    const res = await authApp(bare).request('/api/auth/oauth/token', {
      method: 'POST',
      headers: FORM,
      body: form({ grant_type: EXCHANGE, subject_token: 'x.y.z', subject_token_type: ID_TOKEN }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'no identity provider is configured',
    });
  });
});

describe('a platform token for an environment token (RFC 8693, RFC 7523)', () => {
  it('issues an environment token to an admin by token exchange: every scope, 15 minutes, usable', async () => {
    const platformToken = await platformTokenOf(DEV);
    const { status, body } = await exchangePlatformToken(platformToken, 'default');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      scope: ALL_SCOPES.join(' '),
      issued_token_type: ACCESS_TOKEN,
    });
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({
      aud: TEST_BASE_URL,
      environment: 'default',
      sub: personId(DEV),
      email: DEV,
      principal_type: 'person',
      client_id: idp.clientId,
    });
    expect(claims.exp! - claims.iat!).toBe(900);
    // An environment token like any other: the auth service's own routes take it.
    const clients = await app.request('/api/auth/clients', {
      headers: bearer(body.access_token as string),
    });
    expect(clients.status).toBe(200);
  });

  it("issues a member's by jwt-bearer: the role's scopes (no auth:write), narrowed on request", async () => {
    const { status, body } = await jwtBearer(await platformTokenOf(MEMBER), 'default');
    expect(status).toBe(200);
    expect(body).not.toHaveProperty('issued_token_type');
    expect(body.scope).toBe(roleScopes('member').join(' '));
    expect(String(body.scope)).not.toContain('auth:write');
    const narrowed = await exchangePlatformToken(
      await platformTokenOf(MEMBER),
      'default',
      'ledger:read',
    );
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('ledger:read');
    const more = await exchangePlatformToken(
      await platformTokenOf(MEMBER),
      'default',
      'auth:write',
    );
    expect(more.status).toBe(400);
    expect(more.body).toEqual({
      error: 'invalid_scope',
      error_description: 'scope not allowed for this role: auth:write',
    });
  });

  it('refuses an environment of another organization, an unknown one and a deleted one', async () => {
    expectRefused(
      await exchangePlatformToken(await platformTokenOf(MEMBER), 'acme-sandbox'),
      "the person is not a member of the environment's organization",
    );
    expectRefused(
      await jwtBearer(await platformTokenOf(MEMBER), 'no-such-env'),
      'unknown environment no-such-env',
    );
    expectRefused(
      await jwtBearer(await platformTokenOf(MEMBER), 'gone-env'),
      'unknown environment gone-env',
    );
    // Carol, of acme, gets acme's environment.
    const carol = await exchangePlatformToken(await platformTokenOf(CAROL), 'acme-sandbox');
    expect(carol.status).toBe(200);
    expect(decodeJwt(carol.body.access_token as string).environment).toBe('acme-sandbox');
  });

  it('refuses a replayed assertion, sequential or concurrent, across both grants', async () => {
    const platformToken = await platformTokenOf(DEV);
    expect((await jwtBearer(platformToken, 'default')).status).toBe(200);
    expectRefused(
      await exchangePlatformToken(platformToken, 'default'),
      'token already used: each subject token or assertion is accepted once',
    );
    const twin = await platformTokenOf(DEV);
    const results = await Promise.all([jwtBearer(twin, 'default'), jwtBearer(twin, 'default')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('refuses what is not a valid platform token of a person', async () => {
    const environmentToken = (await jwtBearer(await platformTokenOf(DEV), 'default')).body
      .access_token as string;
    expectRefused(
      await jwtBearer(environmentToken, 'default'),
      'not a valid platform token: token claim "aud" rejected',
    );
    expectRefused(
      await jwtBearer(await tokenFor(app, ADMIN), 'default'),
      /^not a valid platform token/,
    );
    const forged = await idp.sign({
      sub: 'x',
      aud: PLATFORM_AUDIENCE,
      iss: `${TEST_BASE_URL}/api/auth`,
    });
    expectRefused(await jwtBearer(forged, 'default'), /^not a valid platform token/);
    // An ID token is not a platform token either.
    expectRefused(
      await jwtBearer(await idp.idToken(DEV), 'default'),
      /^not a valid platform token/,
    );
  });

  it('stops a person removed from the organization: no new platform token, and a held one no longer exchanges', async () => {
    const held = await platformTokenOf(LEAVER);
    await directory.removeMember('default', LEAVER);
    expectRefused(
      await exchangeIdToken(await idp.idToken(LEAVER)),
      'the person is not a member of any organization',
    );
    expectRefused(
      await exchangePlatformToken(held, 'default'),
      "the person is not a member of the environment's organization",
    );
  });

  it('refuses a platform token on the clients routes (401)', async () => {
    const res = await app.request('/api/auth/clients', {
      headers: bearer(await platformTokenOf(DEV)),
    });
    expect(res.status).toBe(401);
  });
});

describe('the request log', () => {
  it('names the grant and the person, never a token, an assertion or a secret', async () => {
    const refused = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.oauthGrant === 'token_exchange' && l.status === 400);
    expect(refused.length).toBeGreaterThan(5);
    expect(refused[0]).toHaveProperty('oauthError', 'invalid_grant');
    expect(refused.map((l) => l.oauthErrorDescription)).toContain('ID token expired');
    const issued = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.oauthGrant === 'jwt_bearer' && l.status === 200);
    expect(new Set(issued.map((l) => l.oauthSubject))).toEqual(
      new Set([personId(DEV), personId(MEMBER)]),
    );
    expect(secrets.size).toBeGreaterThan(20);
    for (const line of logLines) {
      for (const secret of secrets) {
        // Any piece long enough to identify it: a JWT's signature part, or a secret's first 16 characters.
        const piece = secret.includes('.') ? secret.split('.')[2]! : secret.slice(0, 16);
        if (piece.length >= 8) expect(line).not.toContain(piece);
      }
    }
  });
});
