import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../../lib/auth/keys/generate.js';
import { rotateSigningKeys, SigningKeys } from '../../../lib/auth/keys/signing-keys.js';
import { KeyStore } from '../../../lib/auth/store/key-store.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ALL_SCOPES } from '../../../lib/tokens/scopes.js';
import { ADMIN, authApp, bearer, tokenFor } from '../../support/auth.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

/** ES256 keys generate in about a millisecond; the race and rotation logic does not depend on the algorithm. */
const fastKeys = (now: string) => generateSigningKey(now, 'ES256');

async function keyItems(runtime: ServiceRuntime) {
  const { Items = [] } = await runtime.doc.send(
    new ScanCommand({ TableName: runtime.config.tables.auth }),
  );
  return {
    sets: Items.filter((i) => i.pk === 'JWKS'),
    privates: Items.filter((i) => String(i.pk).startsWith('SIGNING_KEY#'))
      .map((i) => String(i.pk).slice('SIGNING_KEY#'.length))
      .sort(),
  };
}

const statuses = (set: Record<string, unknown>) =>
  (set.keys as Array<{ kid: string; status: string }>).map((k) => `${k.status}:${k.kid}`);

describe('key bootstrap', () => {
  it('concurrent cold starts end with exactly one key set and one current key', async () => {
    const { runtime } = await testTables();
    const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
    const containers = Array.from(
      { length: 8 },
      () => new SigningKeys(store, { generate: fastKeys }),
    );
    const keys = await Promise.all(containers.map((c) => c.signingKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);

    const { sets, privates } = await keyItems(runtime);
    expect(sets).toHaveLength(1);
    const set = sets[0]!;
    expect(set.version).toBe(1);
    const published = set.keys as Array<{ kid: string; status: string }>;
    expect(published.map((k) => k.status)).toEqual(['current', 'next']);
    expect(published[0]!.kid).toBe(keys[0]!.kid);
    // The losers' transactions wrote nothing: only the winner's two private keys exist.
    expect(privates).toEqual(published.map((k) => k.kid).sort());
  });

  it('generates RS256 keys by default and publishes only public parts', async () => {
    const { runtime } = await testTables();
    const app = authApp(runtime);
    const res = await app.request('/api/auth/keys');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await res.json()) as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
        expect(key).not.toHaveProperty(secret);
    }
    const token = await tokenFor(app, ADMIN);
    expect(decodeProtectedHeader(token).kid).toBe(keys[0]!.kid);
  });
});

describe('rotation', () => {
  it('publishes next, then promotes it once old enough, keeping the previous key published', async () => {
    const { runtime } = await testTables();
    const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const hour = 3600_000;

    const first = await rotateSigningKeys(store, {
      nowMs: t0,
      minNextAgeSeconds: 7200,
      generate: fastKeys,
    });
    expect(first.decision).toEqual({ action: 'add-next' });
    const initial = statuses((await keyItems(runtime)).sets[0]!);
    const [current0, next0] = initial.map((s) => s.split(':')[1]!);

    const tooSoon = await rotateSigningKeys(store, {
      nowMs: t0 + hour,
      minNextAgeSeconds: 7200,
      generate: fastKeys,
    });
    expect(tooSoon.decision.action).toBe('skip');
    expect(tooSoon.current).toBe(current0);

    const promoted = await rotateSigningKeys(store, {
      nowMs: t0 + 3 * hour,
      minNextAgeSeconds: 7200,
      generate: fastKeys,
    });
    expect(promoted.decision).toEqual({ action: 'promote' });
    expect(promoted.current).toBe(next0);
    const afterOne = await keyItems(runtime);
    const [c1, n1, p1] = statuses(afterOne.sets[0]!);
    expect(c1).toBe(`current:${next0}`);
    expect(n1!.startsWith('next:')).toBe(true);
    expect(p1).toBe(`previous:${current0}`);
    expect(afterOne.privates).toHaveLength(3);

    // A second promotion retires the oldest key: gone from the set and its private key deleted.
    const again = await rotateSigningKeys(store, {
      nowMs: t0 + 6 * hour,
      minNextAgeSeconds: 7200,
      generate: fastKeys,
    });
    expect(again.decision).toEqual({ action: 'promote' });
    const afterTwo = await keyItems(runtime);
    const kids = statuses(afterTwo.sets[0]!);
    expect(kids).toHaveLength(3);
    expect(kids.some((s) => s.endsWith(current0!))).toBe(false);
    expect(afterTwo.privates).not.toContain(current0);
    expect(afterTwo.privates).toHaveLength(3);
    expect(afterTwo.sets[0]!.version).toBe(3);
  });

  it('lets exactly one of two concurrent rotations win', async () => {
    const { runtime } = await testTables();
    const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
    await rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds: 0, generate: fastKeys });
    // Both rotations have read the same key set before either writes (a key is generated between the read and
    // the write): truly concurrent, whatever the machine's load — otherwise the second could start after the first
    // finished and rightly rotate again.
    let arrived = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((r) => (release = r));
    const atBarrier = async (now: string) => {
      if (++arrived === 2) release();
      await bothRead;
      return fastKeys(now);
    };
    const results = await Promise.all(
      [1, 2].map(() =>
        rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds: 0, generate: atBarrier }),
      ),
    );
    expect(results.map((r) => r.decision.action).sort()).toEqual(['promote', 'skip']);
    const { sets, privates } = await keyItems(runtime);
    expect(sets[0]!.version).toBe(2);
    expect(privates).toHaveLength(3);
  });

  it('keeps tokens signed before a rotation valid, and signs with the new key after it', async () => {
    const { runtime } = await testTables();
    const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
    const app = authApp(runtime, { signingKeys: new SigningKeys(store, { cacheTtlMs: 0 }) });
    const before = await tokenFor(app, ADMIN);
    await rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds: 0 });
    const after = await tokenFor(app, ADMIN);
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    const jwks = (await (await app.request('/api/auth/keys')).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual(
      expect.arrayContaining([decodeProtectedHeader(before).kid, decodeProtectedHeader(after).kid]),
    );
    // Another service's verifier loaded its keys before the rotation: the new kid makes it reload once.
    for (const token of [before, after])
      expect((await app.request('/api/auth/clients', { headers: bearer(token) })).status).toBe(200);
  });
});

describe('discovery', () => {
  it('serves the metadata at both well-known paths, cacheable', async () => {
    const { runtime } = await testTables();
    const app = authApp(runtime);
    const issuer = `${TEST_BASE_URL}/api/auth`;
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
    ]) {
      const res = await app.request(`/api/auth${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(await res.json()).toEqual({
        issuer,
        token_endpoint: `${issuer}/oauth/token`,
        jwks_uri: `${issuer}/keys`,
        grant_types_supported: [
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:token-exchange',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
        ],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: [...ALL_SCOPES],
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_signing_alg_values_supported: ['RS256'],
      });
    }
  });
});
