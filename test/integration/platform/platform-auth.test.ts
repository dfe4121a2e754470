import { generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { personId } from '../../../lib/platform/domain/directory.js';
import { mintAccessToken } from '../../../lib/tokens/mint.js';
import {
  type PlatformServiceTestbed,
  platformServiceTestbed,
  ROOT,
} from '../../support/platform-service.js';

/** `/api/platform` accepts platform tokens only (docs/decisions/tenancy.md, "Token types"). */

let bed: PlatformServiceTestbed;

beforeAll(async () => {
  bed = await platformServiceTestbed();
});

describe('the platform API’s bearer check', () => {
  it('answers no token, or a malformed one, with 401 UNAUTHORIZED', async () => {
    for (const token of [undefined, 'not.a.jwt', '']) {
      const res = await bed.call(token, 'GET', '/me');
      expect(res.status, String(token)).toBe(401);
      expect(res.body.errorCode).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
    const basic = await bed.call(undefined, 'GET', '/me', undefined, {
      authorization: 'Basic cm9vdDpzZWNyZXQ=',
    });
    expect(basic.status).toBe(401);
  });

  it('answers an environment token with 403 FORBIDDEN: authenticated, with the wrong kind of token', async () => {
    for (const path of ['/me', '/organizations', '/organizations/default/environments']) {
      const res = await bed.call(await bed.environmentToken(), 'GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({
        errorCode: 'FORBIDDEN',
        errorMessage: 'an environment token is not accepted here: use a platform token',
      });
    }
    const post = await bed.call(await bed.environmentToken(), 'POST', '/personal-tokens', {});
    expect(post.status).toBe(403);
  });

  it('answers a token for the API’s audience without an environment (a ledger-audience token) with 403', async () => {
    const { config } = bed.runtime;
    const token = await mintAccessToken(bed.signingKeys, {
      issuer: config.issuer,
      audience: config.audience,
      subject: personId(ROOT),
      clientId: 'x',
      scopes: ['ledger:read'],
      principalType: 'person',
      email: ROOT,
      lifetimeSeconds: 300,
      nowMs: Date.now(),
    });
    const res = await bed.call(token, 'GET', '/me');
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('FORBIDDEN');
  });

  it('answers expired, foreign-issuer, foreign-key and wrong-audience tokens with 401', async () => {
    const expired = await bed.personToken(ROOT, {
      nowMs: Date.now() - 1000_000,
      lifetimeSeconds: 900,
    });
    expect((await bed.call(expired, 'GET', '/me')).body.errorMessage).toBe('token expired');

    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({
      client_id: 'x',
      scope: '',
      principal_type: 'person',
      email: ROOT,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'forged', typ: 'at+jwt' })
      .setIssuer(bed.runtime.config.issuer)
      .setAudience(bed.runtime.config.platform.audience)
      .setSubject(personId(ROOT))
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti('j')
      .sign(privateKey);
    expect((await bed.call(forged, 'GET', '/me')).status).toBe(401);

    const base = {
      subject: personId(ROOT),
      clientId: 'x',
      scopes: [],
      principalType: 'person' as const,
      email: ROOT,
      lifetimeSeconds: 300,
      nowMs: Date.now(),
    };
    const foreignIssuer = await mintAccessToken(bed.signingKeys, {
      ...base,
      issuer: 'https://elsewhere.example/api/auth',
      audience: bed.runtime.config.platform.audience,
    });
    expect((await bed.call(foreignIssuer, 'GET', '/me')).status).toBe(401);
    const otherAudience = await mintAccessToken(bed.signingKeys, {
      ...base,
      issuer: bed.runtime.config.issuer,
      audience: 'https://other.example/api',
    });
    expect((await bed.call(otherAudience, 'GET', '/me')).status).toBe(401);
  });

  it('refuses a person’s token without a valid email (401)', async () => {
    const token = await mintAccessToken(bed.signingKeys, {
      issuer: bed.runtime.config.issuer,
      audience: bed.runtime.config.platform.audience,
      subject: 'usr_nobody',
      clientId: 'x',
      scopes: [],
      principalType: 'person',
      lifetimeSeconds: 300,
      nowMs: Date.now(),
    });
    const res = await bed.call(token, 'GET', '/me');
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toBe('person token carries no valid email');
  });

  it('logs each request with the subject, never the token', async () => {
    const token = await bed.personToken(ROOT);
    bed.logs.length = 0;
    const res = await bed.call(token, 'GET', '/organizations', undefined, {
      'x-request-id': 'req-platform-1',
    });
    expect(res.status).toBe(200);
    const line = bed.logs.find((l) => l.requestId === 'req-platform-1');
    expect(line).toMatchObject({
      message: 'request',
      service: 'platform',
      method: 'GET',
      route: '/api/platform/organizations',
      status: 200,
      subject: personId(ROOT),
    });
    const refused = await bed.call(await bed.environmentToken(), 'GET', '/me');
    expect(refused.status).toBe(403);
    const all = JSON.stringify(bed.logs);
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.split('.')[2]!);
  });

  it('serves its health probe and its OpenAPI document without a token', async () => {
    const health = await bed.call(undefined, 'GET', '/_health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', service: 'platform' });
    const doc = await bed.call(undefined, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    const ops = Object.entries(doc.body.paths as Record<string, Record<string, any>>).flatMap(
      ([path, item]) => Object.entries(item).map(([m, op]) => `${m} ${path} ${op.operationId}`),
    );
    expect(ops.sort()).toEqual(
      [
        'get /api/platform/me getMe',
        'get /api/platform/organizations listOrganizations',
        'post /api/platform/organizations createOrganization',
        'get /api/platform/organizations/{org} getOrganization',
        'get /api/platform/organizations/{org}/environments listEnvironments',
        'post /api/platform/organizations/{org}/environments createEnvironment',
        'get /api/platform/organizations/{org}/environments/{env} getEnvironment',
        'delete /api/platform/organizations/{org}/environments/{env} deleteEnvironment',
        'get /api/platform/organizations/{org}/members listMembers',
        'put /api/platform/organizations/{org}/members/{email} putMember',
        'delete /api/platform/organizations/{org}/members/{email} deleteMember',
        'post /api/platform/personal-tokens createPersonalToken',
      ].sort(),
    );
    const create = doc.body.paths['/api/platform/personal-tokens'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['201', '401', '403', 'default']),
    );
  });
});
