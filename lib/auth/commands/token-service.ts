import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { DEFAULT_TOKEN_LIFETIME, type StoredClient } from '../domain/client.js';
import { invalidClient, OAuthError } from '../domain/oauth-error.js';
import { findMatchingSecret } from '../domain/secrets.js';
import type { StaticClient } from '../domain/static-clients.js';
import { secondsLeftInWindow, type ThrottlePolicy } from '../domain/throttle.js';
import type { TokenRequest } from '../domain/token-request.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { ClientStore } from '../store/client-store.js';
import type { ThrottleStore } from '../store/throttle-store.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface TokenServiceOptions {
  clients: ClientStore;
  /** Failure budgets: an attempt is reserved in them before its secret is compared. */
  budgets: ThrottleStore;
  keys: SigningKeys;
  staticClients: readonly StaticClient[];
  issuer: string;
  /** Default `aud`; also the first allowed `resource`. */
  audience: string;
  /** Further resources a token may be restricted to. */
  resources: readonly string[];
  throttle: Pick<ThrottlePolicy, 'windowSeconds'>;
  now?: () => number;
}

/** A presented id that could never be a client: no lookup is made with it. */
const PLAUSIBLE_CLIENT_ID = /^[^\u0000-\u001f\u007f]{1,256}$/u;
/** `lastUsedAt` is written at most this often per secret, so a busy client does not pay a write per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The client-credentials grant: throttle check, client authentication, scope and audience, signing. */
export class TokenService {
  private readonly staticClients: Map<string, StaticClient>;
  private readonly allowedResources: Set<string>;
  private readonly now: () => number;

  constructor(private readonly options: TokenServiceOptions) {
    this.staticClients = new Map(options.staticClients.map((c) => [c.id, c]));
    this.allowedResources = new Set([options.audience, ...options.resources]);
    this.now = options.now ?? Date.now;
  }

  async issue(request: TokenRequest, sourceAddress: string): Promise<TokenResponse> {
    const audience = this.audienceFor(request.resource);
    const nowMs = this.now();
    const plausible = PLAUSIBLE_CLIENT_ID.test(request.clientId);
    const staticClient = this.staticClients.get(request.clientId);

    // The attempt is reserved before the secret is compared, so concurrent guesses cannot all be compared; the
    // stored client (with its secret digests) is read meanwhile.
    const [reservation, stored] = await Promise.all([
      this.options.budgets.reserve(request.clientId, sourceAddress, nowMs),
      plausible && !staticClient ? this.options.clients.get(request.clientId) : undefined,
    ]);
    if (!reservation) {
      throw new OAuthError(
        'temporarily_unavailable',
        'too many failed authentication attempts; retry later',
        {
          status: 429,
          retryAfterSeconds: secondsLeftInWindow(nowMs, this.options.throttle.windowSeconds),
        },
      );
    }

    const secrets = stored ? Object.values(stored.secrets) : [];
    const digests = staticClient?.secretDigests ?? secrets.map((s) => s.digest);
    const matched = findMatchingSecret(request.clientSecret, digests);
    // A failed attempt keeps its reservation: that is the failure counted.
    if (matched < 0) throw invalidClient();
    const released = reservation.release();

    const clientScopes = staticClient?.scopes ?? stored!.scopes;
    const granted = request.scopes.length === 0 ? clientScopes : request.scopes;
    const refused = granted.filter((s) => !clientScopes.includes(s));
    if (refused.length > 0) {
      await released;
      throw new OAuthError(
        'invalid_scope',
        `scope not allowed for this client: ${refused.join(' ')}`,
      );
    }

    const lifetime =
      staticClient?.accessTokenLifetime ?? stored?.accessTokenLifetime ?? DEFAULT_TOKEN_LIFETIME;
    const [accessToken] = await Promise.all([
      this.sign(request.clientId, granted, audience, lifetime, nowMs),
      stored ? this.touch(stored, secrets[matched]!.id, nowMs) : undefined,
      released,
    ]);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: lifetime,
      scope: granted.join(' '),
    };
  }

  private audienceFor(resource: string | undefined): string {
    if (resource === undefined) return this.options.audience;
    let url: URL | undefined;
    try {
      url = new URL(resource);
    } catch {
      url = undefined;
    }
    // RFC 8707 §2: an absolute URI without fragment, and one this server issues tokens for.
    if (!url || resource.includes('#') || !this.allowedResources.has(resource)) {
      throw new OAuthError(
        'invalid_target',
        'resource is not a resource this server issues tokens for',
      );
    }
    return resource;
  }

  private async sign(
    clientId: string,
    scopes: readonly string[],
    audience: string,
    lifetime: number,
    nowMs: number,
  ): Promise<string> {
    const { kid, alg, key } = await this.options.keys.signingKey();
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ client_id: clientId, scope: scopes.join(' ') })
      .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
      .setIssuer(this.options.issuer)
      .setSubject(clientId)
      .setAudience(audience)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + lifetime)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(key);
  }

  private async touch(client: StoredClient, secretId: string, nowMs: number): Promise<void> {
    const last = client.secrets[secretId]?.lastUsedAt;
    if (last !== undefined && nowMs - Date.parse(last) < LAST_USED_RESOLUTION_MS) return;
    await this.options.clients.touchSecret(client.id, secretId, new Date(nowMs).toISOString());
  }
}
