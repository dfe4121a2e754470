import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { isEnvironmentId } from '../environments/environment-id.js';
import { ForbiddenError, InvalidTokenError } from '../errors/index.js';
import type { Principal } from '../http/types.js';
import { CLAIMS, ROLES, type Role } from '../tokens/claims.js';

/** Where the verifier gets the public keys (the auth table in practice; anything in tests). */
export type PublicKeyLoader = () => Promise<JSONWebKeySet>;

/**
 * Which tokens a service accepts (docs/decisions/tenancy.md, "Token types"): environment tokens carry an `environment`
 * claim and the API's audience (ledger, webhooks, payments, auth's client routes); platform tokens carry the
 * platform's audience and no environment (`/api/platform` only).
 */
export type TokenKind = 'environment' | 'platform';

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** Default `environment`. */
  kind?: TokenKind;
  /**
   * For the platform verifier: the API's audience. A valid environment token (that audience, an environment
   * claim) is then refused with 403 rather than 401: the caller is authenticated, with the wrong kind of token.
   */
  environmentAudience?: string;
  loadKeys: PublicKeyLoader;
  /** How long a loaded key set is trusted before it is read again. */
  cacheTtlMs?: number;
  /** An unknown `kid` triggers a reload at most this often, so junk tokens cannot hammer the table. */
  minReloadIntervalMs?: number;
  /** Clock skew tolerated on exp/nbf/iat, in seconds. */
  leewaySeconds?: number;
  /** Verified tokens kept, whose signatures are not checked again (default 1,000; the oldest goes first). */
  maxVerifiedTokens?: number;
  now?: () => number;
}

export const ACCEPTED_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

/** Verified tokens kept at most (the oldest goes first): a container serves few callers at a time. */
const DEFAULT_MAX_VERIFIED_TOKENS = 1_000;

/**
 * Verifies access tokens inside each service: signature with keys cached per container, `typ` at+jwt,
 * issuer, audience, expiry with a small leeway. One reload of the keys on an unknown `kid`.
 *
 * A caller sends the same token for its whole life, and checking its signature took 0.1–0.2 ms of every request's
 * CPU (an RS256 verify, measured in the ledger's write path), so what a token verified to is kept with the key set
 * it was verified with: a reload of the keys drops it, so a token is trusted no longer than its key is, and its
 * expiry is checked again at every use.
 */
export class TokenVerifier {
  private keys: { set: ReturnType<typeof createLocalJWKSet>; loadedAt: number } | undefined;
  /** Claims of tokens verified with `keys`, by token. */
  private verified = new Map<string, JWTPayload>();
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
    const known = this.verified.get(token);
    if (known && this.unexpired(known)) return this.toPrincipal(known);
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
      audience: this.options.environmentAudience
        ? [this.options.audience, this.options.environmentAudience]
        : this.options.audience,
      typ: 'at+jwt',
      algorithms: ACCEPTED_ALGORITHMS,
      clockTolerance: this.leewaySeconds,
      requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'jti'],
      currentDate: new Date(this.now()),
    });
    if (this.verified.size >= (this.options.maxVerifiedTokens ?? DEFAULT_MAX_VERIFIED_TOKENS))
      this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, payload);
    return payload;
  }

  /** The expiry rule `check` applies (jose's: expired once `exp` is at or before now, less the leeway). */
  private unexpired(payload: JWTPayload): boolean {
    return (payload.exp as number) > Math.floor(this.now() / 1000) - this.leewaySeconds;
  }

  private toPrincipal(payload: JWTPayload): Principal {
    const kind = this.options.kind ?? 'environment';
    // Accepted only for its audience's sake: a token for the API is refused here, whatever its claims.
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    if (kind === 'platform' && !audiences.includes(this.options.audience))
      throw new ForbiddenError('an environment token is not accepted here: use a platform token');
    return principalOf(payload, kind);
  }

  /** Concurrent requests share one load. */
  private async reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const set = createLocalJWKSet(await this.options.loadKeys());
        this.keys = { set, loadedAt: this.now() };
        this.verified = new Map();
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
  const environment = payload[CLAIMS.environment];
  if (typeof clientId !== 'string' || typeof scope !== 'string' || typeof payload.sub !== 'string')
    throw new InvalidTokenError('token claims malformed');
  const principal: Principal = {
    clientId,
    subject: payload.sub,
    type: payload[CLAIMS.principalType] === 'person' ? 'person' : 'client',
    scopes: new Set(scope.split(' ').filter(Boolean)),
  };
  const email = payload[CLAIMS.email];
  if (typeof email === 'string') principal.email = email;
  if (payload[CLAIMS.tokenUse] === 'personal') principal.personal = true;
  if (kind === 'platform') {
    if (environment !== undefined)
      throw new ForbiddenError('an environment token is not accepted here: use a platform token');
    const organization = payload[CLAIMS.organization];
    const role = payload[CLAIMS.role];
    if (typeof organization === 'string') principal.organization = organization;
    if (ROLES.includes(role as Role)) principal.role = role as Role;
    return principal;
  }
  if (!isEnvironmentId(environment))
    throw new InvalidTokenError('token names no environment: use an environment token');
  principal.environment = environment;
  return principal;
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
