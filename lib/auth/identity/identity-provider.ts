import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { invalidGrant, OAuthError } from '../domain/oauth-error.js';

/** The identity provider the deployment trusts (IDENTITY_PROVIDER_ISSUER, IDENTITY_PROVIDER_CLIENT_ID). */
export interface IdentityProviderSettings {
  issuer: string;
  /** The client id its ID tokens name in `aud`. */
  clientId: string;
}

/** Asymmetric algorithms only: a provider's published keys are public keys, never a shared secret. */
const ID_TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
/** Clock skew tolerated on `exp`, `iat` and `nbf`, in seconds. */
export const ID_TOKEN_LEEWAY_SECONDS = 5;
/** How long the provider is waited for (discovery, keys) before the request is answered 503. */
const FETCH_TIMEOUT_MS = 5000;

/**
 * Verifies the identity provider's ID tokens: signature with the keys its discovery document's `jwks_uri`
 * publishes (fetched once per container, refreshed by jose on an unknown `kid`, at most every 30 s), `iss`, `aud`
 * containing our client id, `exp`. A token that fails is `invalid_grant`, the description naming the check; a
 * provider that cannot be reached is `temporarily_unavailable`.
 */
export class IdentityProvider {
  private keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    readonly settings: IdentityProviderSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async verify(idToken: string): Promise<JWTPayload> {
    const keys = await this.keySet();
    try {
      const { payload } = await jwtVerify(idToken, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.clientId,
        algorithms: ID_TOKEN_ALGORITHMS,
        clockTolerance: ID_TOKEN_LEEWAY_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
        currentDate: new Date(this.now()),
      });
      return payload;
    } catch (err) {
      throw refusal(err);
    }
  }

  /** The provider's key set, from its discovery document; a failed discovery is tried again next time. */
  private keySet(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.discover().catch((err: unknown) => {
      this.keys = undefined;
      throw err;
    });
    return this.keys;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const { issuer } = this.settings;
    let metadata: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      metadata = (await res.json()) as typeof metadata;
    } catch {
      throw unavailable();
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (
      metadata.issuer !== issuer ||
      typeof metadata.jwks_uri !== 'string' ||
      !URL.canParse(metadata.jwks_uri)
    )
      throw unavailable();
    return createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS });
  }
}

const unavailable = () =>
  new OAuthError('temporarily_unavailable', 'the identity provider cannot be reached; retry later');

/** Which check an ID token failed, in words that never quote the token. */
function refusal(err: unknown): OAuthError {
  if (err instanceof errors.JWTExpired) return invalidGrant('ID token expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss')
      return invalidGrant('ID token issuer is not the trusted identity provider');
    if (err.claim === 'aud')
      return invalidGrant("ID token audience does not name this platform's client");
    return invalidGrant(`ID token claim "${err.claim}" rejected`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return invalidGrant('ID token signature does not verify');
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return invalidGrant('ID token signed by a key the identity provider does not publish');
  if (err instanceof errors.JOSEAlgNotAllowed)
    return invalidGrant('ID token algorithm not allowed');
  if (err instanceof errors.JWKSTimeout) return unavailable();
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return invalidGrant('ID token is not a valid signed JWT');
  // jose's own base class is what a key set that could not be fetched or read raises: not the token's fault.
  if (err instanceof errors.JOSEError && err.constructor !== errors.JOSEError)
    return invalidGrant('ID token rejected');
  return unavailable();
}
