import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ForbiddenError, InvalidTokenError } from '../errors/index.js';
import { TokenVerifier } from './token-verifier.js';

const ISSUER = 'https://api.test/api/auth';
const AUDIENCE = 'https://api.test';
const PLATFORM_AUDIENCE = 'https://api.test/api/platform';
const NOW = Date.parse('2026-11-22T12:00:00Z');

let keyA: { kid: string; privateKey: CryptoKey; jwk: JWK };
let keyB: { kid: string; privateKey: CryptoKey; jwk: JWK };

async function makeKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return {
    kid,
    privateKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
  };
}

beforeAll(async () => {
  keyA = await makeKey('a');
  keyB = await makeKey('b');
});

function token(
  key: { kid: string; privateKey: CryptoKey },
  overrides: {
    iat?: number;
    exp?: number;
    typ?: string;
    iss?: string;
    aud?: string;
    scope?: string;
    /** `null` leaves the claim out. */
    environment?: unknown;
    claims?: Record<string, unknown>;
  } = {},
) {
  const iat = overrides.iat ?? Math.floor(NOW / 1000);
  const environment = overrides.environment === undefined ? 'default' : overrides.environment;
  return new SignJWT({
    client_id: 'svc',
    scope: overrides.scope ?? 'ledger:read',
    ...(environment === null ? {} : { environment }),
    ...overrides.claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: overrides.typ ?? 'at+jwt' })
    .setIssuer(overrides.iss ?? ISSUER)
    .setAudience(overrides.aud ?? AUDIENCE)
    .setSubject('svc')
    .setIssuedAt(iat)
    .setExpirationTime(overrides.exp ?? iat + 3600)
    .setJti('j1')
    .sign(key.privateKey);
}

function verifier(
  published: () => JWK[],
  clock = { now: NOW },
  kind: 'environment' | 'platform' = 'environment',
  maxVerifiedTokens?: number,
) {
  let loads = 0;
  const v = new TokenVerifier({
    issuer: ISSUER,
    ...(kind === 'platform'
      ? { audience: PLATFORM_AUDIENCE, environmentAudience: AUDIENCE }
      : { audience: AUDIENCE }),
    kind,
    ...(maxVerifiedTokens === undefined ? {} : { maxVerifiedTokens }),
    loadKeys: async () => {
      loads++;
      return { keys: published() };
    },
    now: () => clock.now,
  });
  return { v, loads: () => loads, clock };
}

async function rejection(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidTokenError);
  return (err as Error).message;
}

describe('TokenVerifier', () => {
  it('returns the principal of a valid token', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    const principal = await v.verify(await token(keyA, { scope: 'ledger:read payments:write' }));
    expect(principal).toEqual({
      clientId: 'svc',
      subject: 'svc',
      type: 'client',
      scopes: new Set(['ledger:read', 'payments:write']),
      environment: 'default',
    });
  });

  it('accepts on a service only environment tokens, with a well-formed environment', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    expect((await v.verify(await token(keyA, { environment: 'sandbox-1' }))).environment).toBe(
      'sandbox-1',
    );
    for (const environment of [null, '', 'E#x', 'Upper', 42, ['default']]) {
      expect(await rejection(v.verify(await token(keyA, { environment })))).toBe(
        'token names no environment: use an environment token',
      );
    }
  });

  it('accepts on the platform service only platform tokens', async () => {
    const { v } = verifier(() => [keyA.jwk], { now: NOW }, 'platform');
    const principal = await v.verify(
      await token(keyA, { environment: null, aud: PLATFORM_AUDIENCE, scope: '' }),
    );
    expect(principal).toEqual({
      clientId: 'svc',
      subject: 'svc',
      type: 'client',
      scopes: new Set(),
    });
    // A valid environment token is the wrong kind: 403, not 401.
    const refused = await v.verify(await token(keyA)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect((refused as Error).message).toBe(
      'an environment token is not accepted here: use a platform token',
    );
    // So is one for the API's audience that names no environment (tokens from before environments existed).
    const old = await v.verify(await token(keyA, { environment: null })).catch((e: unknown) => e);
    expect(old).toBeInstanceOf(ForbiddenError);
    // Anything else's audience is not authenticated at all.
    expect(
      await rejection(v.verify(await token(keyA, { environment: null, aud: 'https://x.test' }))),
    ).toBe('token claim "aud" rejected');
  });

  it('reads a person, a personal token and a platform client from the claims', async () => {
    const platform = verifier(() => [keyA.jwk], { now: NOW }, 'platform').v;
    expect(
      await platform.verify(
        await token(keyA, {
          environment: null,
          aud: PLATFORM_AUDIENCE,
          claims: { principal_type: 'client', organization: 'default', role: 'admin' },
        }),
      ),
    ).toMatchObject({ type: 'client', organization: 'default', role: 'admin' });
    const service = verifier(() => [keyA.jwk]).v;
    const person = await service.verify(
      await token(keyA, {
        claims: { principal_type: 'person', email: 'ada@example.com', token_use: 'personal' },
      }),
    );
    expect(person).toMatchObject({
      type: 'person',
      email: 'ada@example.com',
      personal: true,
      environment: 'default',
    });
    // A role that is not one is ignored, never trusted.
    expect(
      (
        await platform.verify(
          await token(keyA, {
            environment: null,
            aud: PLATFORM_AUDIENCE,
            claims: { role: 'root' },
          }),
        )
      ).role,
    ).toBeUndefined();
  });

  it('tolerates 5 s of clock skew on expiry, not more', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    const iat = Math.floor(NOW / 1000) - 3600;
    expect(
      (await v.verify(await token(keyA, { iat, exp: Math.floor(NOW / 1000) - 3 }))).clientId,
    ).toBe('svc');
    expect(
      await rejection(v.verify(await token(keyA, { iat, exp: Math.floor(NOW / 1000) - 10 }))),
    ).toBe('token expired');
  });

  it('refuses wrong issuer, wrong audience, wrong typ', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    expect(
      await rejection(v.verify(await token(keyA, { iss: 'https://evil.test/api/auth' }))),
    ).toBe('token claim "iss" rejected');
    expect(await rejection(v.verify(await token(keyA, { aud: 'https://other.test' })))).toBe(
      'token claim "aud" rejected',
    );
    expect(await rejection(v.verify(await token(keyA, { typ: 'JWT' })))).toBe(
      'token claim "typ" rejected',
    );
  });

  it('refuses unsigned and HMAC tokens', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    const payload = Buffer.from(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: 'svc',
        client_id: 'svc',
        exp: NOW / 1000 + 60,
        iat: NOW / 1000,
        jti: 'x',
      }),
    ).toString('base64url');
    const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${payload}.`;
    expect(await rejection(v.verify(none))).toBe('token invalid');
    const hs = await new SignJWT({ client_id: 'svc' })
      .setProtectedHeader({ alg: 'HS256', kid: 'a', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('svc')
      .setIssuedAt(NOW / 1000)
      .setExpirationTime(NOW / 1000 + 60)
      .setJti('x')
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(await rejection(v.verify(hs))).toBe('token invalid');
  });

  it('refuses a tampered token', async () => {
    const { v } = verifier(() => [keyA.jwk]);
    const good = await token(keyA);
    const [h, p, s] = good.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: 'ledger:write' })).toString('base64url')}.${s}`;
    expect(await rejection(v.verify(forged))).toBe('token invalid');
  });

  it('reloads the keys once on an unknown kid, then not again within the reload interval', async () => {
    let published = [keyA.jwk];
    const { v, loads, clock } = verifier(() => published);
    await v.verify(await token(keyA));
    expect(loads()).toBe(1);
    clock.now += 60_000;
    published = [keyA.jwk, keyB.jwk];
    // A new key appeared: one reload finds it.
    expect((await v.verify(await token(keyB))).clientId).toBe('svc');
    expect(loads()).toBe(2);
    // A kid nobody publishes: at most one reload per interval, however many tokens.
    const stranger = await makeKey('c');
    clock.now += 60_000;
    expect(await rejection(v.verify(await token(stranger)))).toBe('token signed by an unknown key');
    expect(loads()).toBe(3);
    expect(await rejection(v.verify(await token(stranger)))).toBe('token signed by an unknown key');
    expect(await rejection(v.verify(await token(stranger)))).toBe('token signed by an unknown key');
    expect(loads()).toBe(3);
  });

  it('re-reads the keys when the cache has aged out', async () => {
    const { v, loads, clock } = verifier(() => [keyA.jwk]);
    await v.verify(await token(keyA));
    clock.now += 4 * 60_000;
    await v.verify(await token(keyA, { iat: Math.floor(clock.now / 1000) }));
    expect(loads()).toBe(1);
    clock.now += 2 * 60_000;
    await v.verify(await token(keyA, { iat: Math.floor(clock.now / 1000) }));
    expect(loads()).toBe(2);
  });

  it('checks a token’s signature once, keeps its expiry and its key set: refused once expired or its key is gone', async () => {
    let published = [keyA.jwk];
    const { v, loads, clock } = verifier(() => published);
    const iat = Math.floor(NOW / 1000);
    const good = await token(keyA, { iat, exp: iat + 60 });
    const verifies = vi.spyOn(crypto.subtle, 'verify');
    try {
      const first = await v.verify(good);
      const again = await v.verify(good);
      expect(verifies).toHaveBeenCalledTimes(1);
      expect(again).toEqual(first);
      expect(again).not.toBe(first);
      // Within the leeway after `exp`, then past it: the same rule as a first check.
      clock.now = NOW + 64_000;
      expect((await v.verify(good)).clientId).toBe('svc');
      expect(verifies).toHaveBeenCalledTimes(1);
      clock.now = NOW + 65_000;
      expect(await rejection(v.verify(good))).toBe('token expired');
      // Key A withdrawn: once the key set is read again, a token it verified is checked again, and refused.
      const other = await token(keyA, { iat, exp: iat + 3600 });
      expect((await v.verify(other)).clientId).toBe('svc');
      published = [keyB.jwk];
      clock.now = NOW + 6 * 60_000;
      expect(await rejection(v.verify(other))).toBe('token signed by an unknown key');
      expect(loads()).toBe(2);
    } finally {
      verifies.mockRestore();
    }
  });

  it('keeps at most maxVerifiedTokens: the oldest token kept is checked again', async () => {
    const { v } = verifier(() => [keyA.jwk], { now: NOW }, 'environment', 2);
    const iat = Math.floor(NOW / 1000);
    const [a, b, c] = await Promise.all(
      [1, 2, 3].map((k) => token(keyA, { iat, exp: iat + 3600 + k })),
    );
    const verifies = vi.spyOn(crypto.subtle, 'verify');
    try {
      for (const t of [a, b, b, c]) await v.verify(t!);
      expect(verifies).toHaveBeenCalledTimes(3);
      // `a` went first when `c` came; `b` and `c` are still kept.
      for (const t of [b, c, a]) await v.verify(t!);
      expect(verifies).toHaveBeenCalledTimes(4);
    } finally {
      verifies.mockRestore();
    }
  });
});
