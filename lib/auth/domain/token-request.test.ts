import { describe, expect, it } from 'vitest';
import { OAuthError } from './oauth-error.js';
import { parseTokenRequest } from './token-request.js';

const FORM = 'application/x-www-form-urlencoded';
const basicOf = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
const parse = (
  authorization: string | undefined,
  body = 'grant_type=client_credentials',
  query = '',
) => parseTokenRequest({ contentType: FORM, body, query, authorization });

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
      clientId: 'svc-a',
      clientSecret: 's+/cret with space',
      authMethod: 'client_secret_basic',
      scopes: [],
    });
    // Unencoded ids and secrets made of unreserved characters decode to themselves.
    expect(parse(basicOf('svc-a:cs_abc-DEF_123')).clientSecret).toBe('cs_abc-DEF_123');
    // The secret may contain a colon: only the first one separates.
    expect(parse(basicOf('svc:a%3Ab:c')).clientSecret).toBe('a:b:c');
  });

  it('reads client_secret_post, scopes (deduplicated) and resource', () => {
    const request = parse(
      undefined,
      'grant_type=client_credentials&client_id=a&client_secret=b&scope=ledger:read+ledger:read+auth:read&resource=https%3A%2F%2Fx.test',
    );
    expect(request).toEqual({
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
