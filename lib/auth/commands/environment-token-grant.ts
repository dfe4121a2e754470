import { decodeJwt } from 'jose';
import type { TokenVerifier } from '../../bearer/token-verifier.js';
import { ForbiddenError, InvalidTokenError } from '../../errors/index.js';
import type { Principal } from '../../http/types.js';
import { normaliseEmail, roleScopes } from '../../platform/domain/directory.js';
import { mintAccessToken } from '../../tokens/mint.js';
import { invalidGrant } from '../domain/oauth-error.js';
import { audienceFor, personScopes } from '../domain/token-grant.js';
import { type EnvironmentTokenRequest, TOKEN_TYPES } from '../domain/token-request.js';
import {
  consumeOnce,
  EXCHANGED_ENVIRONMENT_TOKEN_LIFETIME_SECONDS,
  type IssuedToken,
  type PersonGrantOptions,
} from './person-grants.js';
import { tokenResponse } from './token-response.js';

/** A person's platform token, verified: who they are, and until when the token holds. */
interface PersonAssertion {
  principal: Principal;
  email: string;
  /** The token's `exp` (epoch seconds). */
  expiresAtSeconds: number;
}

/**
 * A person's platform token for an environment token (RFC 8693 with an access token, or RFC 7523's jwt-bearer):
 * if the token is ours, a person's, unexpired and never presented before, and the person is a member of the
 * environment's organization now. Scopes come from their role there.
 */
export class EnvironmentTokenGrant {
  constructor(
    private readonly options: PersonGrantOptions,
    /** The platform verifier (kind `platform`) over the auth service's own keys. */
    private readonly platformTokens: TokenVerifier,
  ) {}

  async issue(request: EnvironmentTokenRequest): Promise<IssuedToken> {
    const { audience, directory } = this.options;
    const tokenAudience = audienceFor(request.resource, audience, new Set([audience]));
    const assertion = await this.verify(request.subjectToken);
    const environment = await directory.environment(request.environment);
    if (!environment) throw invalidGrant(`unknown environment ${request.environment}`);
    const membership = await directory.membership(environment.organizationId, assertion.email);
    if (!membership)
      throw invalidGrant("the person is not a member of the environment's organization");
    const scopes = personScopes(request.scopes, roleScopes(membership.role));
    await consumeOnce(this.options.usedTokens, request.subjectToken, assertion.expiresAtSeconds);
    const token = await mintAccessToken(this.options.keys, {
      issuer: this.options.issuer,
      audience: tokenAudience,
      subject: assertion.principal.subject,
      clientId: assertion.principal.clientId,
      scopes,
      principalType: 'person',
      environment: environment.id,
      email: assertion.email,
      lifetimeSeconds: EXCHANGED_ENVIRONMENT_TOKEN_LIFETIME_SECONDS,
      nowMs: this.options.now(),
    });
    const issuedType = request.grant === 'token_exchange' ? TOKEN_TYPES.accessToken : undefined;
    return {
      response: tokenResponse(
        token,
        EXCHANGED_ENVIRONMENT_TOKEN_LIFETIME_SECONDS,
        scopes,
        issuedType,
      ),
      subject: assertion.principal.subject,
    };
  }

  private async verify(token: string): Promise<PersonAssertion> {
    let principal: Principal;
    try {
      principal = await this.platformTokens.verify(token);
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof ForbiddenError)
        throw invalidGrant(`not a valid platform token: ${err.message}`);
      throw err;
    }
    const email = normaliseEmail(principal.email);
    if (principal.type !== 'person' || !email) throw invalidGrant("not a person's platform token");
    return { principal, email, expiresAtSeconds: decodeJwt(token).exp! };
  }
}
