import { mintAccessToken } from '../../tokens/mint.js';
import { DEFAULT_TOKEN_LIFETIME_SECONDS, type StoredClient } from '../domain/client.js';
import { invalidClient, OAuthError } from '../domain/oauth-error.js';
import { findMatchingSecret } from '../domain/secrets.js';
import type { StaticClient, StaticClientTarget } from '../domain/static-clients.js';
import { secondsLeftInWindow, type ThrottlePolicy } from '../domain/throttle.js';
import {
  audienceFor,
  isPlausibleClientId,
  lastUseWorthRecording,
  scopeGrant,
  scopeRefused,
} from '../domain/token-grant.js';
import type { ClientCredentialsRequest } from '../domain/token-request.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { ClientStore } from '../store/client-store.js';
import type { ThrottleStore } from '../store/throttle-store.js';
import { type TokenResponse, tokenResponse } from './token-response.js';

export interface ClientCredentialsOptions {
  clients: ClientStore;
  /** Failure budgets: an attempt is reserved in them before its secret is compared. */
  budgets: ThrottleStore;
  keys: SigningKeys;
  staticClients: readonly StaticClient[];
  issuer: string;
  /** Default `aud` of environment tokens; also the first allowed `resource`. */
  audience: string;
  /** The `aud` of platform tokens (a platform-level static client's). */
  platformAudience: string;
  /** Further resources an environment token may be restricted to. */
  resources: readonly string[];
  throttle: Pick<ThrottlePolicy, 'windowSeconds'>;
  now?: () => number;
}

/** A dynamic client, read from the environment the shared directory names for its id. */
type FoundClient = { client: StoredClient; environment: string };

/**
 * The client-credentials grant: throttle check, client authentication, scope and audience, signing. A client of an
 * environment gets an environment token for it; a platform-level static client a platform token.
 */
export class ClientCredentialsGrant {
  private readonly staticClients: Map<string, StaticClient>;
  private readonly allowedResources: Set<string>;
  private readonly now: () => number;

  constructor(private readonly options: ClientCredentialsOptions) {
    this.staticClients = new Map(options.staticClients.map((c) => [c.id, c]));
    this.allowedResources = new Set([options.audience, ...options.resources]);
    this.now = options.now ?? Date.now;
  }

  async issue(request: ClientCredentialsRequest, sourceAddress: string): Promise<TokenResponse> {
    const staticClient = this.staticClients.get(request.clientId);
    const audience = this.audienceOf(staticClient?.target, request.resource);
    const nowMs = this.now();
    const plausible = isPlausibleClientId(request.clientId);

    // The attempt is reserved before the secret is compared, so concurrent guesses cannot all be compared; the
    // stored client (with its secret digests) is read meanwhile.
    const [reservation, found] = await Promise.all([
      this.options.budgets.reserve(request.clientId, sourceAddress, nowMs),
      plausible && !staticClient ? this.find(request.clientId) : undefined,
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

    const secrets = found ? Object.values(found.client.secrets) : [];
    const digests = staticClient?.secretDigests ?? secrets.map((s) => s.digest);
    const matched = findMatchingSecret(request.clientSecret, digests);
    // A failed attempt keeps its reservation: that is the failure counted.
    if (matched < 0) throw invalidClient();
    const released = reservation.release();

    const { granted, refused } = scopeGrant(
      request.scopes,
      staticClient?.scopes ?? found!.client.scopes,
    );
    if (refused.length > 0) {
      await released;
      throw scopeRefused(refused);
    }

    const lifetimeSeconds =
      staticClient?.accessTokenLifetime ??
      found?.client.accessTokenLifetime ??
      DEFAULT_TOKEN_LIFETIME_SECONDS;
    const target: StaticClientTarget = staticClient?.target ?? {
      kind: 'environment',
      environment: found!.environment,
    };
    const [accessToken] = await Promise.all([
      this.sign(request.clientId, granted, audience, lifetimeSeconds, nowMs, target),
      found ? this.touch(found, secrets[matched]!.id, nowMs) : undefined,
      released,
    ]);
    return tokenResponse(accessToken, lifetimeSeconds, granted);
  }

  /** A platform-level client's tokens are for the platform API only; an environment client's may be narrowed. */
  private audienceOf(target: StaticClientTarget | undefined, resource: string | undefined) {
    if (target?.kind === 'platform') {
      const platform = this.options.platformAudience;
      return audienceFor(resource, platform, new Set([platform]));
    }
    return audienceFor(resource, this.options.audience, this.allowedResources);
  }

  /** The directory names the client's environment; the client is read there (a deleted one is not found). */
  private async find(clientId: string): Promise<FoundClient | undefined> {
    const environment = await this.options.clients.environmentOf(clientId);
    if (environment === undefined) return undefined;
    const client = await this.options.clients.get(environment, clientId);
    return client && { client, environment };
  }

  private sign(
    clientId: string,
    scopes: readonly string[],
    audience: string,
    lifetimeSeconds: number,
    nowMs: number,
    target: StaticClientTarget,
  ): Promise<string> {
    return mintAccessToken(this.options.keys, {
      issuer: this.options.issuer,
      audience,
      subject: clientId,
      clientId,
      scopes,
      principalType: 'client',
      ...(target.kind === 'platform'
        ? { organization: target.organization, role: target.role }
        : { environment: target.environment }),
      lifetimeSeconds,
      nowMs,
    });
  }

  private async touch(found: FoundClient, secretId: string, nowMs: number): Promise<void> {
    if (!lastUseWorthRecording(found.client.secrets[secretId]?.lastUsedAt, nowMs)) return;
    await this.options.clients.touchSecret(
      found.environment,
      found.client.id,
      secretId,
      new Date(nowMs).toISOString(),
    );
  }
}
