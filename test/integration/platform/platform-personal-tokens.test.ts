import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleLedgerApp } from '../../../lib/assembly/ledger-app.js';
import { jwksTableLoader } from '../../../lib/bearer/jwks-table-loader.js';
import { TokenVerifier } from '../../../lib/bearer/token-verifier.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { personId, roleScopes } from '../../../lib/platform/domain/directory.js';
import {
  type PlatformServiceTestbed,
  platformServiceTestbed,
  ROOT,
} from '../../support/platform-service.js';

/**
 * Personal tokens (docs/decisions/tenancy.md, "Personal tokens"): environment tokens for a person, exactly 5 minutes,
 * accepted by the services like any other, only where a sandbox environment exists.
 */

let bed: PlatformServiceTestbed;
let org: string;
let sandbox: { id: string; createdAt: string };
const owner = 'owner@example.com';
const member = 'member@example.com';

const issue = async (email: string, body?: unknown) =>
  (await bed.as(email))('POST', '/personal-tokens', body);

/** A ledger app on the same runtime (the same key set), its verifier on a clock of the test's choosing. */
function ledgerAt(nowMs?: number) {
  const { runtime } = bed;
  const verifier =
    nowMs === undefined
      ? runtime.verifier
      : new TokenVerifier({
          issuer: runtime.config.issuer,
          audience: runtime.config.audience,
          loadKeys: jwksTableLoader(runtime.doc, runtime.config.tables.auth),
          now: () => nowMs,
        });
  const app = assembleLedgerApp({ ...runtime, verifier }, { documents: generatedDocuments });
  return (token: string) =>
    app.request('/api/ledger/v2', { headers: { authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  bed = await platformServiceTestbed();
  await (await bed.as(ROOT))('PUT', `/organizations/default/members/${owner}`, { role: 'member' });
  org = (await (await bed.as(owner))('POST', '/organizations', { name: 'Tokens Inc' })).body.data
    .id;
  await (await bed.as(owner))('PUT', `/organizations/${org}/members/${member}`, {
    role: 'member',
  });
});

describe('without a sandbox environment', () => {
  it('answers 400 NO_SANDBOX_ENVIRONMENT and issues nothing', async () => {
    // The default organization has only its production environment.
    const res = await issue(ROOT);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'NO_SANDBOX_ENVIRONMENT',
      errorMessage:
        'organization default has no sandbox environment: create a sandbox environment first',
    });
    // Naming the production environment does not get round the rule.
    const named = await issue(ROOT, { environment: 'default' });
    expect(named.status).toBe(400);
    expect(named.body.errorCode).toBe('NO_SANDBOX_ENVIRONMENT');
    expect(named.text).not.toMatch(/eyJ/);
  });
});

describe('with a sandbox environment', () => {
  beforeAll(async () => {
    const call = await bed.as(owner);
    const res = await call('POST', `/organizations/${org}/environments`, {
      name: 'Sandbox',
      type: 'sandbox',
    });
    sandbox = res.body.data;
  });

  it('issues a 5-minute environment token for the person, with exactly the claims it should', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await issue(owner, { organization: org });
    expect(res.status, res.text).toBe(201);
    const { token, ...rest } = res.body.data;
    const claims = decodeJwt(token);
    expect(rest).toEqual({
      tokenType: 'Bearer',
      expiresIn: 300,
      expiresAt: new Date((claims.exp as number) * 1000).toISOString(),
      environment: sandbox.id,
      scope: roleScopes('admin').join(' '),
    });
    const { config } = bed.runtime;
    expect(claims).toEqual({
      iss: config.issuer,
      aud: config.audience,
      sub: personId(owner),
      client_id: personId(owner),
      scope: roleScopes('admin').join(' '),
      principal_type: 'person',
      environment: sandbox.id,
      email: owner,
      token_use: 'personal',
      iat: expect.any(Number),
      nbf: claims.iat,
      exp: (claims.iat as number) + 300,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
  });

  it('is accepted by the ledger (200), and refused once five minutes (and the leeway) have passed (401)', async () => {
    const { token } = (await issue(owner, { organization: org })).body.data;
    const iatMs = (decodeJwt(token).iat as number) * 1000;
    const now = await ledgerAt()(token);
    expect(now.status, await now.clone().text()).toBe(200);
    expect((await ledgerAt(iatMs + 299_000)(token)).status).toBe(200);
    const late = await ledgerAt(iatMs + 301_000 + 5_000)(token);
    expect(late.status).toBe(401);
    expect(((await late.json()) as { errorMessage: string }).errorMessage).toBe('token expired');
  });

  it('gives a member their role’s scopes: everything but auth:write', async () => {
    const res = await issue(member);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.scope).toBe(roleScopes('member').join(' '));
    expect(res.body.data.scope.split(' ')).not.toContain('auth:write');
    expect(res.body.data.environment).toBe(sandbox.id);
  });

  it('targets the organization’s oldest sandbox, or the environment named', async () => {
    const call = await bed.as(owner);
    const second = (
      await call('POST', `/organizations/${org}/environments`, {
        name: 'Sandbox 2',
        type: 'sandbox',
      })
    ).body.data;
    const prod = (
      await call('POST', `/organizations/${org}/environments`, { name: 'Live', type: 'production' })
    ).body.data;
    expect((await issue(member)).body.data.environment).toBe(sandbox.id);
    expect((await issue(member, { environment: second.id })).body.data.environment).toBe(second.id);
    const forProd = await issue(member, { environment: prod.id, organization: org });
    expect(forProd.body.data.environment).toBe(prod.id);
    expect(decodeJwt(forProd.body.data.token).environment).toBe(prod.id);
  });

  it('asks a person in several organizations to name one (400 VALIDATION)', async () => {
    const res = await issue(owner);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        'you belong to 2 organizations: name one with "organization" (or an environment with "environment")',
    });
  });

  it('answers environments and organizations the person has no part in with 404', async () => {
    for (const body of [
      { environment: 'default' },
      { environment: 'nope-12345678' },
      { organization: 'default' },
      { organization: 'nope-12345678' },
      { environment: sandbox.id, organization: 'default' },
    ]) {
      const res = await issue(member, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
  });

  it('refuses bad bodies (400) and accepts none at all', async () => {
    for (const body of [
      { environment: 'UPPER' },
      { organization: 42 },
      { environment: sandbox.id, scope: 'ledger:write' },
      'nope',
      [],
    ]) {
      const res = await issue(member, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    const token = await bed.personToken(member);
    const empty = await bed.call(token, 'POST', '/personal-tokens');
    expect(empty.status, empty.text).toBe(201);
    expect(empty.body.data.environment).toBe(sandbox.id);
  });

  it('refuses clients (403) and environment tokens, personal ones included (403)', async () => {
    const client = await bed.call(
      await bed.clientToken('ci-bot', org, 'admin'),
      'POST',
      '/personal-tokens',
      {},
    );
    expect(client.status).toBe(403);
    expect(client.body.errorMessage).toBe(
      "only a person may get a personal token: this is a client's token",
    );
    const personal = (await issue(member)).body.data.token;
    const again = await bed.call(personal, 'POST', '/personal-tokens', {});
    expect(again.status).toBe(403);
    expect(again.body.errorCode).toBe('FORBIDDEN');
  });

  it('gives a removed member no new token, at once, with the platform token they still hold', async () => {
    const leaver = 'leaver@example.com';
    await (await bed.as(owner))('PUT', `/organizations/${org}/members/${leaver}`, {
      role: 'member',
    });
    const platformToken = await bed.personToken(leaver);
    const first = await bed.call(platformToken, 'POST', '/personal-tokens', {});
    expect(first.status).toBe(201);
    await (await bed.as(owner))('DELETE', `/organizations/${org}/members/${leaver}`);
    const named = await bed.call(platformToken, 'POST', '/personal-tokens', { organization: org });
    expect(named.status).toBe(404);
    const unnamed = await bed.call(platformToken, 'POST', '/personal-tokens', {});
    expect(unnamed.status).toBe(403);
    expect(unnamed.body.errorMessage).toBe('you are not a member of any organization');
    const byEnvironment = await bed.call(platformToken, 'POST', '/personal-tokens', {
      environment: sandbox.id,
    });
    expect(byEnvironment.status).toBe(404);
  });

  it('is refused for a deleted environment (404)', async () => {
    const call = await bed.as(owner);
    const gone = (
      await call('POST', `/organizations/${org}/environments`, { name: 'Gone', type: 'sandbox' })
    ).body.data;
    expect((await call('DELETE', `/organizations/${org}/environments/${gone.id}`)).status).toBe(
      204,
    );
    const res = await issue(owner, { environment: gone.id });
    expect(res.status).toBe(404);
  });
});
