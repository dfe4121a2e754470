import { isThrottling } from '../../dynamo/errors.js';
import { DependencyThrottledError } from '../../errors/index.js';
import type { TokenRequest } from '../domain/token-request.js';
import type { ClientCredentialsGrant } from './client-credentials-grant.js';
import type { EnvironmentTokenGrant } from './environment-token-grant.js';
import type { IdTokenExchange } from './id-token-exchange.js';
import type { IssuedToken } from './person-grants.js';

/** The token endpoint's grants, one command each (docs/decisions/tenancy.md, "Grants at /api/auth/oauth/token"). */
export class TokenService {
  constructor(
    private readonly grants: {
      clientCredentials: ClientCredentialsGrant;
      idTokenExchange: IdTokenExchange;
      environmentToken: EnvironmentTokenGrant;
    },
  ) {}

  /** DynamoDB's throttling comes out as a DependencyThrottledError, which the route answers in OAuth's shape. */
  async issue(request: TokenRequest, sourceAddress: string): Promise<IssuedToken> {
    try {
      return await this.grant(request, sourceAddress);
    } catch (err) {
      throw isThrottling(err) ? new DependencyThrottledError('service busy, retry shortly') : err;
    }
  }

  private async grant(request: TokenRequest, sourceAddress: string): Promise<IssuedToken> {
    switch (request.grant) {
      case 'client_credentials':
        return {
          response: await this.grants.clientCredentials.issue(request, sourceAddress),
          subject: request.clientId,
        };
      case 'token_exchange':
      case 'jwt_bearer':
        return request.subjectTokenType === 'id_token'
          ? this.grants.idTokenExchange.issue(request)
          : this.grants.environmentToken.issue(request);
    }
  }
}
