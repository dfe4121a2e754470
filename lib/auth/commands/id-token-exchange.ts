import { personId } from '../../platform/domain/directory.js';
import { IdentityConflictError } from '../../platform/store/directory.js';
import { mintAccessToken } from '../../tokens/mint.js';
import { invalidGrant, OAuthError } from '../domain/oauth-error.js';
import { type PersonLogin, personLoginOf } from '../domain/person-login.js';
import { audienceFor } from '../domain/token-grant.js';
import { type IdTokenExchangeRequest, TOKEN_TYPES } from '../domain/token-request.js';
import type { IdentityProvider } from '../identity/identity-provider.js';
import {
  consumeOnce,
  type IssuedToken,
  PERSON_PLATFORM_TOKEN_LIFETIME_SECONDS,
  type PersonGrantOptions,
} from './person-grants.js';
import { tokenResponse } from './token-response.js';

/**
 * A person logs in (RFC 8693 with the identity provider's ID token) and gets a platform token: if the token is the
 * trusted provider's, for us, unexpired, with a verified email, of a person who belongs to an organization, and
 * never presented before. The first login binds the email to the provider's subject.
 */
export class IdTokenExchange {
  constructor(
    private readonly options: PersonGrantOptions,
    private readonly identityProvider: IdentityProvider | undefined,
  ) {}

  async issue(request: IdTokenExchangeRequest): Promise<IssuedToken> {
    const provider = this.identityProvider;
    if (!provider) throw invalidGrant('no identity provider is configured');
    const { platformAudience } = this.options;
    const audience = audienceFor(request.resource, platformAudience, new Set([platformAudience]));
    if (request.scopes.length > 0)
      throw new OAuthError(
        'invalid_scope',
        'a platform token carries no scopes: exchange it for an environment token',
      );
    const login = personLoginOf(await provider.verify(request.subjectToken));
    const memberships = await this.options.directory.membershipsOf(login.email);
    if (memberships.length === 0)
      throw invalidGrant('the person is not a member of any organization');
    await consumeOnce(this.options.usedTokens, request.subjectToken, login.expiresAtSeconds);
    await this.recordLogin(login);
    return this.mint(login, audience, provider.settings.clientId);
  }

  private async recordLogin(login: PersonLogin): Promise<void> {
    try {
      await this.options.directory.recordLogin({
        email: login.email,
        issuer: login.issuer,
        subject: login.subject,
        ...(login.name !== undefined ? { name: login.name } : {}),
        at: new Date(this.options.now()).toISOString(),
      });
    } catch (err) {
      if (err instanceof IdentityConflictError)
        throw invalidGrant('this email is bound to another identity of the provider');
      throw err;
    }
  }

  private async mint(login: PersonLogin, audience: string, clientId: string): Promise<IssuedToken> {
    const subject = personId(login.email);
    const token = await mintAccessToken(this.options.keys, {
      issuer: this.options.issuer,
      audience,
      subject,
      clientId,
      scopes: [],
      principalType: 'person',
      email: login.email,
      lifetimeSeconds: PERSON_PLATFORM_TOKEN_LIFETIME_SECONDS,
      nowMs: this.options.now(),
    });
    return {
      response: tokenResponse(
        token,
        PERSON_PLATFORM_TOKEN_LIFETIME_SECONDS,
        [],
        TOKEN_TYPES.accessToken,
      ),
      subject,
    };
  }
}
