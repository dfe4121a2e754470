import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../../infra/local/platform.js';
import { SigningKeys } from '../../../lib/auth/keys/signing-keys.js';
import { keyStoreFor } from '../../../lib/auth/keys/vault-for-runtime.js';
import { platformConfigFromVariables } from '../../../lib/config/env.js';
import { personId } from '../../../lib/platform/domain/directory.js';
import { createRuntime } from '../../../lib/runtime/runtime.js';
import { mintAccessToken } from '../../../lib/tokens/mint.js';
import { jsonCaller, overHttp } from '../../support/json-call.js';
import { startTestPlatform, testClientToken } from '../../support/platform.js';

/**
 * The platform service in the local platform (`npm start`): `/api/platform/*` through the gateway, the default
 * organization written at start with PLATFORM_ADMINS, its document in `/openapi.json`; and the personal-token
 * walk from a person's platform token to a ledger call through the ledger's worker processes.
 */

const ADMIN = 'local-admin@example.com';
let platform: RunningPlatform;
let platformToken: string;

beforeAll(async () => {
  platform = await startTestPlatform({
    variables: { PLATFORM_ADMINS: ADMIN },
    dispatch: false,
    ledgerWorkers: 1,
  });
  // A person's platform token, as the auth service's token exchange would issue it, with the platform's own keys.
  const runtime = createRuntime(platformConfigFromVariables(platform.variables));
  platformToken = await mintAccessToken(new SigningKeys(keyStoreFor(runtime)), {
    issuer: runtime.config.issuer,
    audience: runtime.config.platform.audience,
    subject: personId(ADMIN),
    clientId: 'local-login',
    scopes: [],
    principalType: 'person',
    email: ADMIN,
    lifetimeSeconds: 900,
    nowMs: Date.now(),
  });
});

afterAll(async () => {
  await platform?.stop();
});

const call = (token: string, method: string, path: string, body?: unknown) =>
  jsonCaller(overHttp, platform.baseUrl, token, JSON.parse)(method, path, body);

describe('the platform service in the local platform', () => {
  it('serves /api/platform with the default organization, PLATFORM_ADMINS its admins', async () => {
    const me = await call(platformToken, 'GET', '/api/platform/me');
    expect(me.status).toBe(200);
    expect(me.body.data.organizations).toEqual([
      { id: 'default', name: 'Default organization', role: 'admin' },
    ]);
    // The test client's environment token is the wrong kind here.
    const refused = await call(await testClientToken(platform), 'GET', '/api/platform/me');
    expect(refused.status).toBe(403);
    expect((await platform.health()).components.platform).toBe('up');
  });

  it('lists its operations in the merged /openapi.json', async () => {
    const doc = (await (await fetch(`${platform.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/platform/me',
        '/api/platform/personal-tokens',
        '/api/platform/organizations/{org}/environments/{env}',
      ]),
    );
  });

  it('gets a personal token for a new sandbox environment and calls the ledger with it', async () => {
    const created = await call(
      platformToken,
      'POST',
      '/api/platform/organizations/default/environments',
      {
        name: 'Sandbox',
        type: 'sandbox',
      },
    );
    expect(created.status).toBe(201);
    const issued = await call(platformToken, 'POST', '/api/platform/personal-tokens', {});
    expect(issued.status).toBe(201);
    expect(issued.body.data.environment).toBe(created.body.data.id);
    const ledgers = await call(issued.body.data.token, 'GET', '/api/ledger/v2');
    expect(ledgers.status).toBe(200);
    expect(ledgers.body.cursor.data).toEqual([]);
    // And the platform token itself is refused by the ledger.
    expect((await call(platformToken, 'GET', '/api/ledger/v2')).status).toBe(401);
  });
});
