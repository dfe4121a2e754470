import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { isEnvironmentId } from '../environments/environment-id.js';
import { InvalidTokenError } from '../errors/index.js';
import type { Principal } from '../http/types.js';

/** Where the verifier gets the public keys (the auth table in practice; anything in tests). */
export type PublicKeyLoader = () => Promise<JSONWebKeySet>;

/**
 * Which tokens a service accepts (docs/decisions.md, "Token types"): environment tokens carry an `environment`
 * claim and the API's audience (ledger, webhooks, payments, auth's client routes); platform tokens carry the
 * platform's audience and no environment (`/api/platform` only).
 */
export type TokenKind = 'environment' | 'platform';

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** Default `environment`. */
  kind?: TokenKind;
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
      return this.toPrincipal(await this.check(token));
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw translate(err);
      if (this.keys && this.now() - this.keys.loadedAt < this.minReloadIntervalMs)
        throw translate(err);
      await this.reload();
      try {
        return this.toPrincipal(await this.check(token));
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

  private toPrincipal(payload: JWTPayload): Principal {
    return principalOf(payload, this.options.kind ?? 'environment');
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

function principalOf(payload: JWTPayload, kind: TokenKind): Principal {
  const clientId = payload.client_id;
  const scope = payload.scope ?? '';
  const environment = payload.environment;
  if (typeof clientId !== 'string' || typeof scope !== 'string' || typeof payload.sub !== 'string')
    throw new InvalidTokenError('token claims malformed');
  const scopes = new Set(scope.split(' ').filter(Boolean));
  if (kind === 'platform') {
    if (environment !== undefined)
      throw new InvalidTokenError(
        'an environment token is not accepted here: use a platform token',
      );
    return { clientId, subject: payload.sub, scopes };
  }
  if (!isEnvironmentId(environment))
    throw new InvalidTokenError('token names no environment: use an environment token');
  return { clientId, subject: payload.sub, scopes, environment };
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
