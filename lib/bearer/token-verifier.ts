import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { InvalidTokenError } from '../errors/index.js';
import type { Principal } from '../http/types.js';

/** Where the verifier gets the public keys (the auth table in practice; anything in tests). */
export type PublicKeyLoader = () => Promise<JSONWebKeySet>;

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  loadKeys: PublicKeyLoader;
  /** How long a loaded key set is trusted before it is read again. */
  cacheTtlMs?: number;
  /** An unknown `kid` triggers a reload at most this often, so junk tokens cannot hammer the table. */
  minReloadIntervalMs?: number;
  /** Clock skew tolerated on exp/nbf/iat, in seconds. */
  leewaySeconds?: number;
  now?: () => number;
}

export const ACCEPTED_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

/**
 * Verifies access tokens inside each service: signature with keys cached per container, `typ` at+jwt,
 * issuer, audience, expiry with a small leeway. One reload of the keys on an unknown `kid`.
 */
export class TokenVerifier {
  private keys: { set: ReturnType<typeof createLocalJWKSet>; loadedAt: number } | undefined;
  private loading: Promise<void> | undefined;
  private readonly cacheTtlMs: number;
  private readonly minReloadIntervalMs: number;
  private readonly leewaySeconds: number;
  private readonly now: () => number;

  constructor(private readonly options: TokenVerifierOptions) {
    this.cacheTtlMs = options.cacheTtlMs ?? 5 * 60_000;
    this.minReloadIntervalMs = options.minReloadIntervalMs ?? 10_000;
    this.leewaySeconds = options.leewaySeconds ?? 5;
    this.now = options.now ?? Date.now;
  }

  async verify(token: string): Promise<Principal> {
    if (!this.keys || this.now() - this.keys.loadedAt > this.cacheTtlMs) await this.reload();
    try {
      return toPrincipal(await this.check(token));
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw translate(err);
      if (this.keys && this.now() - this.keys.loadedAt < this.minReloadIntervalMs)
        throw translate(err);
      await this.reload();
      try {
        return toPrincipal(await this.check(token));
      } catch (retryErr) {
        throw translate(retryErr);
      }
    }
  }

  private async check(token: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.keys!.set, {
      issuer: this.options.issuer,
      audience: this.options.audience,
      typ: 'at+jwt',
      algorithms: ACCEPTED_ALGORITHMS,
      clockTolerance: this.leewaySeconds,
      requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'jti'],
      currentDate: new Date(this.now()),
    });
    return payload;
  }

  /** Concurrent requests share one load. */
  private async reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const set = createLocalJWKSet(await this.options.loadKeys());
        this.keys = { set, loadedAt: this.now() };
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}

function toPrincipal(payload: JWTPayload): Principal {
  const clientId = payload.client_id;
  const scope = payload.scope ?? '';
  if (typeof clientId !== 'string' || typeof scope !== 'string')
    throw new InvalidTokenError('token claims malformed');
  return { clientId, scopes: new Set(scope.split(' ').filter(Boolean)) };
}

function translate(err: unknown): Error {
  if (err instanceof InvalidTokenError) return err;
  if (err instanceof errors.JWTExpired) return new InvalidTokenError('token expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return new InvalidTokenError(`token claim "${err.claim}" rejected`);
  if (err instanceof errors.JWKSNoMatchingKey)
    return new InvalidTokenError('token signed by an unknown key');
  if (err instanceof errors.JOSEError) return new InvalidTokenError('token invalid');
  return err instanceof Error ? err : new Error(String(err));
}
