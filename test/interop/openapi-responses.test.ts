import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import type { OpenApiDocument } from '../../lib/openapi/document.js';
import { ResponseChecker } from '../support/openapi.js';
import { startTestPlatform, testClientToken, until } from '../support/platform.js';
import { TestDirectory } from '../support/platform-directory.js';

/**
 * Real answers of the local platform held against the response schemas of the document it serves at
 * `/openapi.json` (ajv, JSON Schema 2020-12): a field added, renamed or dropped on either side fails here.
 */

let platform: RunningPlatform;
let token: string;
let document: OpenApiDocument;
let checker: ResponseChecker;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await testClientToken(platform);
  const res = await fetch(`${platform.baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as OpenApiDocument;
  checker = new ResponseChecker(document);
});

afterAll(async () => {
  await platform?.stop();
});

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** The answer's status, and its body valid against the document's schema for that status (OpenAPI path). */
function expectDocumented(answer: Answer, method: string, path: string, status: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(checker.errors(method, path, status, answer.body)).toEqual([]);
}

const ledger = `openapi${Date.now().toString(36)}`;
const L = `/api/ledger/v2/${ledger}`;
const T = '/api/ledger/v2/{ledger}';

describe('documented response schemas hold for real answers', () => {
  it('serves the merged document with the platform as its server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: platform.baseUrl, description: 'This platform' }]);
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      `${platform.baseUrl}/api/auth/oauth/token`,
    );
  });

  it('ledger: ledgers, transactions, accounts, volumes, logs, bulk, stats', async () => {
    expect((await call('POST', L, { metadata: { team: 'treasury' } })).status).toBe(204);
    expectDocumented(await call('GET', L), 'GET', T, 200);
    expectDocumented(await call('GET', '/api/ledger/v2?pageSize=5'), 'GET', '/api/ledger/v2', 200);

    const created = await call('POST', `${L}/transactions`, {
      postings: [
        { source: 'world', destination: 'users:alice', amount: 1500, asset: 'USD/2' },
        { source: 'users:alice', destination: 'fees', amount: 100, asset: 'USD/2' },
      ],
      reference: 'openapi-1',
      metadata: { order: '42' },
    });
    expectDocumented(created, 'POST', `${T}/transactions`, 200);
    const id = created.body.data.id as number;
    // The schema is not empty: the answer holds what the contract promises.
    expect(created.body.data.postCommitVolumes['users:alice']['USD/2']).toEqual({
      input: 1500,
      output: 100,
      balance: 1400,
    });

    expectDocumented(
      await call('GET', `${L}/transactions/${id}?expand=volumes,effectiveVolumes`),
      'GET',
      `${T}/transactions/{id}`,
      200,
    );
    expectDocumented(
      await call('GET', `${L}/transactions?expand=volumes`),
      'GET',
      `${T}/transactions`,
      200,
    );
    const reverted = await call('POST', `${L}/transactions/${id}/revert`);
    expectDocumented(reverted, 'POST', `${T}/transactions/{id}/revert`, 201);
    expect(reverted.body.data.metadata).toEqual({ 'com.formance.spec/state/reverts': String(id) });

    expectDocumented(
      await call('GET', `${L}/accounts?expand=volumes,effectiveVolumes`),
      'GET',
      `${T}/accounts`,
      200,
    );
    expectDocumented(
      await call('GET', `${L}/accounts/users:alice?expand=volumes`),
      'GET',
      `${T}/accounts/{address}`,
      200,
    );
    expectDocumented(
      await call('GET', `${L}/aggregate/balances`),
      'GET',
      `${T}/aggregate/balances`,
      200,
    );
    expectDocumented(await call('GET', `${L}/volumes`), 'GET', `${T}/volumes`, 200);
    const logs = await call('GET', `${L}/logs`);
    expectDocumented(logs, 'GET', `${T}/logs`, 200);
    expect(logs.body.cursor.data.map((l: { type: string }) => l.type)).toEqual([
      'REVERTED_TRANSACTION',
      'NEW_TRANSACTION',
    ]);
    expectDocumented(await call('GET', `${L}/stats`), 'GET', `${T}/stats`, 200);
    expectDocumented(await call('GET', `${L}/_info`), 'GET', `${T}/_info`, 200);
    expectDocumented(await call('GET', '/api/ledger/_/info'), 'GET', '/api/ledger/_/info', 200);

    const bulk = await call('POST', `${L}/_bulk`, [
      {
        action: 'CREATE_TRANSACTION',
        data: { postings: [{ source: 'world', destination: 'bank', amount: 7, asset: 'EUR' }] },
      },
      {
        action: 'ADD_METADATA',
        data: { targetType: 'ACCOUNT', targetId: 'bank', metadata: { a: 'b' } },
      },
    ]);
    expectDocumented(bulk, 'POST', `${T}/_bulk`, 200);
  });

  it('ledger v1: transactions and accounts', async () => {
    const v1 = `/api/ledger/${ledger}`;
    expectDocumented(
      await call('GET', `${v1}/transactions`),
      'GET',
      '/api/ledger/{ledger}/transactions',
      200,
    );
    expectDocumented(
      await call('GET', `${v1}/accounts/users:alice`),
      'GET',
      '/api/ledger/{ledger}/accounts/{address}',
      200,
    );
  });

  it('errors: the contract shape, documented on every operation', async () => {
    const missing = await call('GET', `${L}/transactions/999999`);
    expectDocumented(missing, 'GET', `${T}/transactions/{id}`, 404);
    expect(missing.body.errorCode).toBe('NOT_FOUND');
    const invalid = await call('POST', `${L}/transactions`, { postings: 'none' });
    expectDocumented(invalid, 'POST', `${T}/transactions`, 400);
    expect(invalid.body.errorCode).toBe('VALIDATION');
    const anonymous = await fetch(`${platform.baseUrl}${L}/transactions`);
    expectDocumented(
      { status: anonymous.status, body: await anonymous.json(), headers: anonymous.headers },
      'GET',
      `${T}/transactions`,
      401,
    );
  });

  it('webhooks: configs and deliveries', async () => {
    const created = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hooks',
      eventTypes: ['ledger.committed_transactions'],
      name: 'openapi',
    });
    expectDocumented(created, 'POST', '/api/webhooks/configs', 200);
    const id = created.body.data.id as string;
    expectDocumented(
      await call('GET', `/api/webhooks/configs/${id}`),
      'GET',
      '/api/webhooks/configs/{id}',
      200,
    );
    expectDocumented(
      await call('GET', '/api/webhooks/configs'),
      'GET',
      '/api/webhooks/configs',
      200,
    );
    expectDocumented(
      await call('PUT', `/api/webhooks/configs/${id}/deactivate`),
      'PUT',
      '/api/webhooks/configs/{id}/deactivate',
      200,
    );
    expectDocumented(
      await call('GET', '/api/webhooks/deliveries'),
      'GET',
      '/api/webhooks/deliveries',
      200,
    );
  });

  it('webhooks: a delivery and its attempts', async () => {
    const created = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/unreachable',
      eventTypes: ['ledger.committed_transactions'],
    });
    const configId = created.body.data.id as string;
    await call('POST', `${L}/transactions`, {
      postings: [{ source: 'world', destination: 'hooked', amount: 1, asset: 'EUR' }],
    });
    // Port 9 refuses the connection: the delivery gets an attempt with statusCode 0 and an error.
    const delivery = await until('a delivery with an attempt', async () => {
      const page = await call('GET', `/api/webhooks/deliveries?configId=${configId}`);
      const found = page.body.cursor.data[0];
      return found && found.attemptCount > 0 ? found : undefined;
    });
    expectDocumented(
      await call('GET', `/api/webhooks/deliveries/${delivery.id}`),
      'GET',
      '/api/webhooks/deliveries/{id}',
      200,
    );
    expectDocumented(
      await call('GET', `/api/webhooks/deliveries/${delivery.id}/attempts`),
      'GET',
      '/api/webhooks/deliveries/{id}/attempts',
      200,
    );
  });

  it('payments', async () => {
    const created = await call('POST', '/api/payments/v3/payments', {
      reference: `openapi-${ledger}`,
      connectorID: 'bank-1',
      type: 'PAYOUT',
      amount: 12345,
      asset: 'EUR/2',
      scheme: 'SEPA_CREDIT',
      createdAt: '2026-11-22T10:04:05Z',
      metadata: { invoice: 'INV-1' },
    });
    expectDocumented(created, 'POST', '/api/payments/v3/payments', 201);
    expectDocumented(
      await call('GET', `/api/payments/v3/payments/${encodeURIComponent(created.body.data.id)}`),
      'GET',
      '/api/payments/v3/payments/{id}',
      200,
    );
    expectDocumented(
      await call('GET', '/api/payments/v3/payments'),
      'GET',
      '/api/payments/v3/payments',
      200,
    );
  });

  it('auth: clients, secrets, tokens, discovery, keys; /versions', async () => {
    const client = await call('POST', '/api/auth/clients', {
      name: 'openapi',
      scopes: ['ledger:read'],
    });
    expectDocumented(client, 'POST', '/api/auth/clients', 201);
    const secret = await call('POST', `/api/auth/clients/${client.body.data.id}/secrets`, {
      name: 'ci',
    });
    expectDocumented(secret, 'POST', '/api/auth/clients/{id}/secrets', 200);
    expectDocumented(
      await call('GET', `/api/auth/clients/${client.body.data.id}`),
      'GET',
      '/api/auth/clients/{id}',
      200,
    );
    const issued = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.body.data.id,
        client_secret: secret.body.data.clear,
      }),
    });
    expectDocumented(
      { status: issued.status, body: await issued.json(), headers: issued.headers },
      'POST',
      '/api/auth/oauth/token',
      200,
    );
    const refused = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    expectDocumented(
      { status: refused.status, body: await refused.json(), headers: refused.headers },
      'POST',
      '/api/auth/oauth/token',
      400,
    );
    expectDocumented(
      await call('GET', '/api/auth/.well-known/openid-configuration'),
      'GET',
      '/api/auth/.well-known/openid-configuration',
      200,
    );
    expectDocumented(await call('GET', '/api/auth/keys'), 'GET', '/api/auth/keys', 200);
    expectDocumented(await call('GET', '/versions'), 'GET', '/versions', 200);
  });

  it("auth: a person's token exchange, the environment's users", async () => {
    await TestDirectory.of(platform).defaults(['dev@example.com']);
    const idp = platform.identityProvider!;
    const idToken = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'dev@example.com',
        password: 'dev-password',
        client_id: idp.clientId,
        scope: 'openid email',
      }),
    });
    const exchanged = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: ((await idToken.json()) as { id_token: string }).id_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      }),
    });
    const body = await exchanged.json();
    expectDocumented(
      { status: exchanged.status, body, headers: exchanged.headers },
      'POST',
      '/api/auth/oauth/token',
      200,
    );
    const users = await call('GET', '/api/auth/users');
    expectDocumented(users, 'GET', '/api/auth/users', 200);
    expect(users.body.data.map((u: { email: string }) => u.email)).toEqual(['dev@example.com']);
    expectDocumented(
      await call('GET', `/api/auth/users/${users.body.data[0].id}`),
      'GET',
      '/api/auth/users/{userId}',
      200,
    );
  });

  it('fails a drifted shape: a field added, a field dropped, a wrong type', async () => {
    const created = await call('POST', `${L}/transactions`, {
      postings: [{ source: 'world', destination: 'drift', amount: 1, asset: 'EUR' }],
    });
    const path = `${T}/transactions`;
    expect(checker.errors('POST', path, 200, created.body)).toEqual([]);
    const added = structuredClone(created.body);
    added.data.status = 'committed';
    expect(checker.errors('POST', path, 200, added)).toEqual([
      '/data must NOT have additional properties',
    ]);
    const dropped = structuredClone(created.body);
    delete dropped.data.reverted;
    expect(checker.errors('POST', path, 200, dropped)).toEqual([
      "/data must have required property 'reverted'",
    ]);
    const retyped = structuredClone(created.body);
    retyped.data.postings[0].amount = '1';
    expect(checker.errors('POST', path, 200, retyped)).toEqual([
      '/data/postings/0/amount must be integer',
    ]);
  });
});
