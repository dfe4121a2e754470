import { DEFAULT_ENVIRONMENT } from '../../environments/environment-id.js';
import { mintAccessToken } from '../../tokens/mint.js';
import { DEFAULT_TOKEN_LIFETIME_SECONDS, type StoredClient } from '../domain/client.js';
import { invalidClient, OAuthError } from '../domain/oauth-error.js';
import { findMatchingSecret } from '../domain/secrets.js';
import type { StaticClient } from '../domain/static-clients.js';
import { secondsLeftInWindow, type ThrottlePolicy } from '../domain/throttle.js';
import {
  audienceFor,
  isPlausibleClientId,
  lastUseWorthRecording,
  scopeGrant,
  scopeRefused,
} from '../domain/token-grant.js';
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
    const audience = audienceFor(request.resource, this.options.audience, this.allowedResources);
    const nowMs = this.now();
    const plausible = isPlausibleClientId(request.clientId);
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
    const { granted, refused } = scopeGrant(request.scopes, clientScopes);
    if (refused.length > 0) {
      await released;
      throw scopeRefused(refused);
    }

    const lifetimeSeconds =
      staticClient?.accessTokenLifetime ??
      stored?.accessTokenLifetime ??
      DEFAULT_TOKEN_LIFETIME_SECONDS;
    const [accessToken] = await Promise.all([
      this.sign(
        request.clientId,
        granted,
        audience,
        lifetimeSeconds,
        nowMs,
        staticClient?.environment ?? stored?.environment ?? DEFAULT_ENVIRONMENT,
      ),
      stored ? this.touch(stored, secrets[matched]!.id, nowMs) : undefined,
      released,
    ]);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: lifetimeSeconds,
      scope: granted.join(' '),
    };
  }

  private sign(
    clientId: string,
    scopes: readonly string[],
    audience: string,
    lifetimeSeconds: number,
    nowMs: number,
    environment: string,
  ): Promise<string> {
    return mintAccessToken(this.options.keys, {
      issuer: this.options.issuer,
      audience,
      subject: clientId,
      clientId,
      scopes,
      principalType: 'client',
      environment,
      lifetimeSeconds,
      nowMs,
    });
  }

  private async touch(client: StoredClient, secretId: string, nowMs: number): Promise<void> {
    if (!lastUseWorthRecording(client.secrets[secretId]?.lastUsedAt, nowMs)) return;
    await this.options.clients.touchSecret(client.id, secretId, new Date(nowMs).toISOString());
  }
}
