import { describe, expect, it } from 'vitest';
import { OAuthError } from './oauth-error.js';
import { type ClientCredentialsRequest, parseTokenRequest } from './token-request.js';

const FORM = 'application/x-www-form-urlencoded';
const basicOf = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
const parse = (
  authorization: string | undefined,
  body = 'grant_type=client_credentials',
  query = '',
) => parseTokenRequest({ contentType: FORM, body, query, authorization });
const credentials = (authorization: string | undefined) =>
  parse(authorization) as ClientCredentialsRequest;

function oauthError(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return {
      error: (err as OAuthError).error,
      status: (err as OAuthError).status,
      description: (err as OAuthError).description,
    };
  }
  throw new Error('expected an OAuthError');
}

describe('parseTokenRequest', () => {
  it('form-decodes Basic credentials (RFC 6749 Appendix B): percent escapes and + for space', () => {
    expect(parse(basicOf('svc%2Da:s%2B%2Fcret+with+space'))).toEqual({
      grant: 'client_credentials',
      clientId: 'svc-a',
      clientSecret: 's+/cret with space',
      authMethod: 'client_secret_basic',
      scopes: [],
    });
    // Unencoded ids and secrets made of unreserved characters decode to themselves.
    expect(credentials(basicOf('svc-a:cs_abc-DEF_123')).clientSecret).toBe('cs_abc-DEF_123');
    // The secret may contain a colon: only the first one separates.
    expect(credentials(basicOf('svc:a%3Ab:c')).clientSecret).toBe('a:b:c');
  });

  it('reads client_secret_post, scopes (deduplicated) and resource', () => {
    const request = parse(
      undefined,
      'grant_type=client_credentials&client_id=a&client_secret=b&scope=ledger:read+ledger:read+auth:read&resource=https%3A%2F%2Fx.test',
    );
    expect(request).toEqual({
      grant: 'client_credentials',
      clientId: 'a',
      clientSecret: 'b',
      authMethod: 'client_secret_post',
      scopes: ['ledger:read', 'auth:read'],
      resource: 'https://x.test',
    });
  });

  it('names the repeated parameter and its source', () => {
    expect(
      oauthError(() =>
        parse(undefined, 'grant_type=client_credentials', 'client_id=a&client_id=b'),
      ),
    ).toEqual({
      error: 'invalid_request',
      status: 400,
      description: 'parameter "client_id" repeated in the query',
    });
  });

  it('refuses empty Basic halves', () => {
    expect(oauthError(() => parse(basicOf(':secret'))).error).toBe('invalid_request');
    expect(oauthError(() => parse(basicOf('id:'))).error).toBe('invalid_request');
  });
});

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const formOf = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('parseTokenRequest: the grants of persons', () => {
  it('reads an ID token exchange, without client authentication (credentials sent anyway are not read)', () => {
    expect(
      parse(
        basicOf('not:checked'),
        formOf({ grant_type: EXCHANGE, subject_token: 'id.tok.en', subject_token_type: ID_TOKEN }),
      ),
    ).toEqual({
      grant: 'token_exchange',
      subjectTokenType: 'id_token',
      subjectToken: 'id.tok.en',
      scopes: [],
    });
  });

  it('reads a platform token exchange and a jwt-bearer assertion, each for an environment', () => {
    expect(
      parse(
        undefined,
        formOf({
          grant_type: EXCHANGE,
          subject_token: 'p.t.k',
          subject_token_type: ACCESS_TOKEN,
          requested_token_type: ACCESS_TOKEN,
          environment: 'sandbox-1',
          scope: 'ledger:read',
        }),
      ),
    ).toEqual({
      grant: 'token_exchange',
      subjectTokenType: 'access_token',
      subjectToken: 'p.t.k',
      environment: 'sandbox-1',
      scopes: ['ledger:read'],
    });
    expect(
      parse(
        undefined,
        formOf({ grant_type: JWT_BEARER, assertion: 'a.b.c', environment: 'default' }),
      ),
    ).toEqual({
      grant: 'jwt_bearer',
      subjectTokenType: 'access_token',
      subjectToken: 'a.b.c',
      environment: 'default',
      scopes: [],
    });
  });

  it('names what is missing or wrong', () => {
    const refused = (params: Record<string, string>) =>
      oauthError(() => parse(undefined, formOf(params)));
    expect(refused({ grant_type: EXCHANGE, subject_token_type: ID_TOKEN })).toEqual({
      error: 'invalid_request',
      status: 400,
      description: 'missing subject_token',
    });
    expect(refused({ grant_type: EXCHANGE, subject_token: 'x' }).description).toBe(
      'missing subject_token_type',
    );
    expect(
      refused({ grant_type: EXCHANGE, subject_token: 'x', subject_token_type: 'urn:x' })
        .description,
    ).toBe(`subject_token_type must be ${ID_TOKEN} or ${ACCESS_TOKEN}`);
    expect(
      refused({ grant_type: EXCHANGE, subject_token: 'x', subject_token_type: ACCESS_TOKEN })
        .description,
    ).toBe('missing environment');
    expect(
      refused({
        grant_type: EXCHANGE,
        subject_token: 'x',
        subject_token_type: ID_TOKEN,
        environment: 'default',
      }).description,
    ).toMatch(/^an ID token is exchanged for a platform token/);
    expect(
      refused({
        grant_type: EXCHANGE,
        subject_token: 'x',
        subject_token_type: ID_TOKEN,
        actor_token: 'y',
      }).description,
    ).toBe('actor tokens (delegation) are not supported');
    expect(
      refused({
        grant_type: EXCHANGE,
        subject_token: 'x',
        subject_token_type: ID_TOKEN,
        requested_token_type: ID_TOKEN,
      }).description,
    ).toBe(`requested_token_type must be ${ACCESS_TOKEN}`);
    expect(refused({ grant_type: JWT_BEARER, environment: 'default' }).description).toBe(
      'missing assertion',
    );
    expect(
      refused({ grant_type: JWT_BEARER, assertion: 'a', environment: 'E#other#' }).description,
    ).toBe('environment is not an environment id');
    expect(refused({ grant_type: 'password' })).toEqual({
      error: 'unsupported_grant_type',
      status: 400,
      description: `grant_type must be one of client_credentials, ${EXCHANGE}, ${JWT_BEARER}`,
    });
  });
});
