/**
 * Third-party OAuth libraries against the real local platform over real HTTP: openid-client (token requests with
 * client_secret_post and client_secret_basic), jose (remote JWKS verification) and oauth4webapi (RFC 9068 access
 * token validation at a resource server), plus the README walkthrough with plain fetch; and a person's login with
 * openid-client as the relying party of the local identity provider, then token exchange and jwt-bearer.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { personId } from '../../lib/platform/domain/directory.js';
import { ALL_SCOPES, DEFAULT_CLIENT_SCOPES } from '../../lib/tokens/scopes.js';
import { browserLogin } from '../support/identity.js';
import { startTestPlatform } from '../support/platform.js';
import { TestDirectory } from '../support/platform-directory.js';

const TEST_CLIENT = { id: 'local-dev', secret: 'local-dev-secret' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: RunningPlatform;
let baseUrl: string;
let issuer: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  baseUrl = platform.baseUrl;
  issuer = `${baseUrl}/api/auth`;
});

afterAll(async () => {
  await platform?.stop();
});

/** What openid-client sent to the token endpoint, captured through its customFetch hook. */
interface SentTokenRequest {
  authorization: string | null;
  body: URLSearchParams;
}

function recordingFetch(sent: SentTokenRequest[]) {
  return async (url: string, options: client.CustomFetchOptions): Promise<Response> => {
    if (new URL(url).pathname.endsWith('/oauth/token')) {
      const headers = new Headers(options.headers);
      sent.push({
        authorization: headers.get('authorization'),
        body: new URLSearchParams(String(options.body)),
      });
    }
    return fetch(url, options as RequestInit);
  };
}

async function discover(
  clientId: string,
  secret: string,
  auth: client.ClientAuth | undefined,
  sent: SentTokenRequest[],
) {
  // The customFetch given to discovery stays on the configuration, so it sees the token requests too.
  return client.discovery(new URL(issuer), clientId, secret, auth, {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: recordingFetch(sent),
  });
}

async function api(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** A token for the static test client with plain fetch (client_secret_post). */
async function testClientToken(scope?: string): Promise<string> {
  const res = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_CLIENT.id,
      client_secret: TEST_CLIENT.secret,
      ...(scope ? { scope } : {}),
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A dynamic client created over HTTP with the test client's token, and one clear secret for it. */
async function createDynamicClient(name: string): Promise<{ id: string; secret: string }> {
  const admin = await testClientToken();
  const created = await api('POST', '/api/auth/clients', admin, { name });
  expect(created.status).toBe(201);
  const { data } = (await created.json()) as {
    data: { id: string; name: string; scopes: string[] };
  };
  expect(data.id).toMatch(UUID);
  expect(data.name).toBe(name);
  expect(data.scopes).toEqual([...DEFAULT_CLIENT_SCOPES]);
  const secretRes = await api('POST', `/api/auth/clients/${data.id}/secrets`, admin, {
    name: 's1',
  });
  expect(secretRes.status).toBe(200);
  const secret = (await secretRes.json()) as { data: { clear: string; name: string; id: string } };
  expect(secret.data.name).toBe('s1');
  expect(secret.data.id).toMatch(UUID);
  expect(typeof secret.data.clear).toBe('string');
  expect(secret.data.clear.length).toBeGreaterThanOrEqual(16);
  return { id: data.id, secret: secret.data.clear };
}

/** Verifies an access token the way a third-party resource server would: remote JWKS, RFC 9068 checks. */
async function verifyWithJose(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/keys`));
  return jwtVerify(token, jwks, {
    issuer,
    audience: baseUrl,
    typ: 'at+jwt',
    algorithms: ['RS256'],
  });
}

/** The token with one character of its signature replaced by a different one. */
function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  // Change a character in the middle of the signature: every bit of it is significant, unlike the last one.
  const i = Math.floor(signature.length / 2);
  const replacement = signature[i] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, i)}${replacement}${signature.slice(i + 1)}`;
}

const tokens: Record<'post' | 'basic' | 'dynamic', string> = { post: '', basic: '', dynamic: '' };
let dynamicClient: { id: string; secret: string };

describe('openid-client v6', () => {
  it('discovers the server metadata', async () => {
    const config = await discover(TEST_CLIENT.id, TEST_CLIENT.secret, undefined, []);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.token_endpoint).toBe(`${issuer}/oauth/token`);
    expect(metadata.jwks_uri).toBe(`${issuer}/keys`);
    expect(metadata.grant_types_supported).toEqual([
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
    ]);
    expect(metadata.scopes_supported).toEqual(ALL_SCOPES);
  });

  it('gets a token with the default method, client_secret_post', async () => {
    const sent: SentTokenRequest[] = [];
    const config = await discover(TEST_CLIENT.id, TEST_CLIENT.secret, undefined, sent);
    const response = await client.clientCredentialsGrant(config, {
      scope: 'ledger:read ledger:write',
    });
    expect(response.token_type).toBe('bearer'); // openid-client normalises token_type to lower case
    expect(response.expires_in).toBe(3600);
    expect(response.scope).toBe('ledger:read ledger:write');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.authorization).toBeNull();
    expect(sent[0]!.body.get('client_id')).toBe(TEST_CLIENT.id);
    expect(sent[0]!.body.get('client_secret')).toBe(TEST_CLIENT.secret);
    expect(sent[0]!.body.get('grant_type')).toBe('client_credentials');
    const claims = decodeJwt(response.access_token);
    expect(claims.client_id).toBe(TEST_CLIENT.id);
    expect(claims.scope).toBe('ledger:read ledger:write');
    tokens.post = response.access_token;
  });

  it('gets a token with client_secret_basic', async () => {
    const sent: SentTokenRequest[] = [];
    const config = await discover(
      TEST_CLIENT.id,
      TEST_CLIENT.secret,
      client.ClientSecretBasic(TEST_CLIENT.secret),
      sent,
    );
    const response = await client.clientCredentialsGrant(config, {
      scope: 'ledger:read ledger:write',
    });
    expect(response.token_type).toBe('bearer');
    expect(response.expires_in).toBe(3600);
    expect(response.scope).toBe('ledger:read ledger:write');
    expect(sent).toHaveLength(1);
    // openid-client form-urlencodes id and secret strictly (RFC 6749 §2.3.1: '-' becomes %2D); the server decodes them.
    expect(sent[0]!.authorization).toBe(
      `Basic ${Buffer.from('local%2Ddev:local%2Ddev%2Dsecret').toString('base64')}`,
    );
    expect(sent[0]!.body.has('client_secret')).toBe(false);
    expect(sent[0]!.body.has('client_id')).toBe(false);
    expect(decodeJwt(response.access_token).client_id).toBe(TEST_CLIENT.id);
    tokens.basic = response.access_token;
  });

  it('gets a token for a client created over the API, with its default scopes', async () => {
    dynamicClient = await createDynamicClient('interop');
    const sent: SentTokenRequest[] = [];
    const config = await discover(
      dynamicClient.id,
      dynamicClient.secret,
      client.ClientSecretBasic(dynamicClient.secret),
      sent,
    );
    const response = await client.clientCredentialsGrant(config);
    expect(response.token_type).toBe('bearer');
    expect(response.expires_in).toBe(3600);
    expect(response.scope).toBe(
      'ledger:read ledger:write webhooks:read webhooks:write payments:read payments:write',
    );
    expect(response.scope!.split(' ').some((s) => s.startsWith('auth:'))).toBe(false);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.authorization).toMatch(/^Basic /);
    const claims = decodeJwt(response.access_token);
    expect(claims.client_id).toBe(dynamicClient.id);
    expect(claims.sub).toBe(dynamicClient.id);
    tokens.dynamic = response.access_token;
  });

  it("surfaces a wrong secret as the server's invalid_client error, with the Basic challenge for Basic", async () => {
    const wrong = 'not-the-secret-at-all';
    const failure = (config: client.Configuration) =>
      client.clientCredentialsGrant(config).then(
        () => undefined,
        (e: unknown) => e,
      );

    const viaBasic = await failure(
      await discover(TEST_CLIENT.id, wrong, client.ClientSecretBasic(wrong), []),
    );
    expect(viaBasic).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const challenge = viaBasic as client.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause).toHaveLength(1);
    expect(challenge.cause[0]!.scheme).toBe('basic');
    expect(challenge.cause[0]!.parameters).toEqual({ realm: 'auth', charset: 'UTF-8' });
    expect(await challenge.response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed',
    });

    const viaPost = await failure(await discover(TEST_CLIENT.id, wrong, undefined, []));
    expect(viaPost).toBeInstanceOf(client.ResponseBodyError);
    const body = viaPost as client.ResponseBodyError;
    expect(body.status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toBe('client authentication failed');
  });
});

describe('jose remote JWKS verification', () => {
  it('verifies the tokens of every flow', async () => {
    for (const [flow, clientId, scope] of [
      ['post', TEST_CLIENT.id, 'ledger:read ledger:write'],
      ['basic', TEST_CLIENT.id, 'ledger:read ledger:write'],
      ['dynamic', () => dynamicClient.id, DEFAULT_CLIENT_SCOPES.join(' ')],
    ] as const) {
      const token = tokens[flow];
      expect(token, `token of the ${flow} flow`).not.toBe('');
      const { payload, protectedHeader } = await verifyWithJose(token);
      expect(protectedHeader.alg).toBe('RS256');
      expect(protectedHeader.typ).toBe('at+jwt');
      expect(payload.iss).toBe(issuer);
      expect(payload.aud).toBe(baseUrl);
      expect(payload.client_id).toBe(typeof clientId === 'function' ? clientId() : clientId);
      expect(payload.scope).toBe(scope);
      expect(payload.exp! - payload.iat!).toBe(3600);
    }
  });

  it('rejects a token whose signature was changed by one character', async () => {
    for (const token of [tokens.post, tokens.dynamic]) {
      const tampered = tamperSignature(token);
      expect(tampered).not.toBe(token);
      expect(tampered.length).toBe(token.length);
      await expect(verifyWithJose(tampered)).rejects.toThrow('signature verification failed');
    }
  });

  it('rejects a token for a different issuer or audience', async () => {
    const jwks = createRemoteJWKSet(new URL(`${issuer}/keys`));
    await expect(
      jwtVerify(tokens.post, jwks, {
        issuer: 'https://elsewhere.example/api/auth',
        audience: baseUrl,
      }),
    ).rejects.toThrow('unexpected "iss" claim value');
    await expect(
      jwtVerify(tokens.post, jwks, { issuer, audience: 'https://elsewhere.example' }),
    ).rejects.toThrow('unexpected "aud" claim value');
  });
});

describe('oauth4webapi resource-server validation (RFC 9068)', () => {
  async function validate(token: string) {
    const response = await oauth.discoveryRequest(new URL(issuer), {
      [oauth.allowInsecureRequests]: true,
    });
    const as = await oauth.processDiscoveryResponse(new URL(issuer), response);
    const request = new Request(`${baseUrl}/api/ledger/v2`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return oauth.validateJwtAccessToken(as, request, baseUrl, {
      [oauth.allowInsecureRequests]: true,
      signingAlgorithms: ['RS256'],
    });
  }

  it('validates the tokens and returns their client_id', async () => {
    const post = await validate(tokens.post);
    expect(post.client_id).toBe(TEST_CLIENT.id);
    expect(post.sub).toBe(TEST_CLIENT.id);
    expect(post.iss).toBe(issuer);
    expect(post.aud).toBe(baseUrl);
    expect(post.scope).toBe('ledger:read ledger:write');
    expect(post.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const dynamic = await validate(tokens.dynamic);
    expect(dynamic.client_id).toBe(dynamicClient.id);
    expect(dynamic.scope).toBe(DEFAULT_CLIENT_SCOPES.join(' '));
  });

  it('refuses a tampered token', async () => {
    await expect(validate(tamperSignature(tokens.basic))).rejects.toThrow(
      'JWT signature verification failed',
    );
  });
});

describe('README walkthrough over HTTP', () => {
  it('discovery → token → create client → create secret → token → authenticated calls', async () => {
    // 1. Discovery.
    const discovery = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    const metadata = (await discovery.json()) as {
      issuer: string;
      token_endpoint: string;
      jwks_uri: string;
    };
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.token_endpoint).toBe(`${issuer}/oauth/token`);

    // 2. A token for the test client (Basic).
    const adminRes = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${TEST_CLIENT.id}:${TEST_CLIENT.secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(adminRes.status).toBe(200);
    expect(adminRes.headers.get('cache-control')).toBe('no-store');
    const admin = (await adminRes.json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
      scope: string;
    };
    expect(admin.token_type).toBe('Bearer');
    expect(admin.expires_in).toBe(3600);
    expect(admin.scope).toBe(ALL_SCOPES.join(' '));

    // 3. Create a client.
    const created = await api('POST', '/api/auth/clients', admin.access_token, {
      name: 'my-service',
    });
    expect(created.status).toBe(201);
    const newClient = (
      (await created.json()) as {
        data: { id: string; name: string; scopes: string[]; secrets: unknown[] };
      }
    ).data;
    expect(newClient.id).toMatch(UUID);
    expect(newClient.name).toBe('my-service');
    expect(newClient.scopes).toEqual([...DEFAULT_CLIENT_SCOPES]);
    expect(newClient.secrets).toEqual([]);

    // 4. Create a secret.
    const secretRes = await api(
      'POST',
      `/api/auth/clients/${newClient.id}/secrets`,
      admin.access_token,
      { name: 'production' },
    );
    expect(secretRes.status).toBe(200);
    const secret = ((await secretRes.json()) as { data: { clear: string; lastDigits: string } })
      .data;
    expect(secret.clear.endsWith(secret.lastDigits)).toBe(true);

    // The admin can read the client back: the secret is listed, never its clear value or digest.
    const readBack = await api('GET', `/api/auth/clients/${newClient.id}`, admin.access_token);
    expect(readBack.status).toBe(200);
    const readBody = JSON.stringify(await readBack.json());
    expect(readBody).toContain('"name":"production"');
    expect(readBody).not.toContain(secret.clear);
    expect(readBody).not.toContain('digest');

    // 5. A token with the new secret (client_secret_post), asking for a subset of its scopes as the README does.
    const newToken = (scope: string) =>
      fetch(metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: newClient.id,
          client_secret: secret.clear,
          scope,
        }),
      });
    const tokenRes = await newToken('ledger:read ledger:write');
    expect(tokenRes.status).toBe(200);
    const issued = (await tokenRes.json()) as {
      access_token: string;
      scope: string;
      expires_in: number;
    };
    expect(issued.scope).toBe('ledger:read ledger:write');
    expect(issued.expires_in).toBe(3600);
    // auth:read is not among the client's scopes, so it cannot even ask for it.
    const refused = await newToken('auth:read');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: 'invalid_scope',
      error_description: 'scope not allowed for this client: auth:read',
    });

    // 6a. The new client's token lacks auth:read: the auth API refuses it with 403 insufficient_scope.
    const forbidden = await api('GET', `/api/auth/clients/${newClient.id}`, issued.access_token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="auth:read"',
    );
    expect(await forbidden.json()).toEqual({
      errorCode: 'FORBIDDEN',
      errorMessage: 'scope "auth:read" required',
    });

    // 6b. It is authenticated for the ledger: it creates a ledger and lists it.
    const createdLedger = await api('POST', '/api/ledger/v2/main', issued.access_token);
    expect(createdLedger.status).toBe(204);
    const ledger = await api('GET', '/api/ledger/v2', issued.access_token);
    expect(ledger.status).toBe(200);
    const listed = (await ledger.json()) as {
      cursor: { data: Array<{ name: string; bucket: string }> };
    };
    expect(listed.cursor.data.map((l) => [l.name, l.bucket])).toEqual([['main', '_default']]);

    // Without the token the same ledger call is a 401.
    const anonymous = await fetch(`${baseUrl}/api/ledger/v2`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });
});

describe("a person's login with openid-client (local identity provider, token exchange, jwt-bearer)", () => {
  it('code flow with PKCE at /_idp → ID token → platform token → environment token', async () => {
    await TestDirectory.of(platform).defaults(['dev@example.com']);
    const idp = platform.identityProvider!;
    expect(idp.issuer).toBe(`${baseUrl}/_idp`);
    // openid-client as the relying party: discovery, PKCE, the code exchange and its ID token checks.
    const rp = await client.discovery(new URL(idp.issuer), idp.clientId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const redirectUri = 'http://127.0.0.1:51234/callback';
    const authorization = client.buildAuthorizationUrl(rp, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await browserLogin(
      authorization,
      'dev@example.com',
      'dev-password',
      redirectUri,
    );
    const tokens = await client.authorizationCodeGrant(rp, callback, {
      pkceCodeVerifier: verifier,
    });
    expect(tokens.claims()).toMatchObject({ email: 'dev@example.com', email_verified: true });

    // The platform's token endpoint, no client authentication: the subject token is the proof.
    const platformAuth = await client.discovery(
      new URL(issuer),
      'unused',
      undefined,
      client.None(),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    const exchanged = await client.genericGrantRequest(
      platformAuth,
      'urn:ietf:params:oauth:grant-type:token-exchange',
      {
        subject_token: tokens.id_token!,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      },
    );
    expect(exchanged.expires_in).toBe(900);
    expect(decodeJwt(exchanged.access_token)).toMatchObject({
      aud: `${baseUrl}/api/platform`,
      sub: personId('dev@example.com'),
      email: 'dev@example.com',
    });
    const environmentToken = await client.genericGrantRequest(
      platformAuth,
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      { assertion: exchanged.access_token, environment: 'default', scope: 'ledger:read' },
    );
    expect(environmentToken.scope).toBe('ledger:read');
    const ledgers = await api('GET', '/api/ledger/v2', environmentToken.access_token);
    expect(ledgers.status).toBe(200);
    // The same platform token a second time: used once already.
    await expect(
      client.genericGrantRequest(platformAuth, 'urn:ietf:params:oauth:grant-type:jwt-bearer', {
        assertion: exchanged.access_token,
        environment: 'default',
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it("answers a wrong password with the provider's error, and no token", async () => {
    const idp = platform.identityProvider!;
    const res = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'dev@example.com',
        password: 'not-the-password',
        client_id: idp.clientId,
        scope: 'openid email',
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_grant');
    expect(body).not.toHaveProperty('id_token');
  });
});
