import { OAuthError } from './oauth-error.js';

/** What the token endpoint was asked, once the HTTP form has been read and checked. */
export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  /** Which method the client used: decides the `WWW-Authenticate` header on a 401. */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  /** Requested scopes; empty means "all the client's scopes". */
  scopes: string[];
  /** RFC 8707 resource (or `audience`), when one was asked for. */
  resource?: string;
}

export interface RawTokenRequest {
  contentType: string | undefined;
  body: string;
  /** The raw query string, without `?`. */
  query: string;
  authorization: string | undefined;
}

const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;
/** RFC 6749 §3.3 scope-token characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads a token request (RFC 6749 §3.2, §4.4): form body or query-style parameters (the body wins per
 * parameter), no parameter twice in one source, empty values treated as absent, one client authentication
 * method only.
 */
export function parseTokenRequest(raw: RawTokenRequest): TokenRequest {
  if (raw.body.length > 0 && !FORM_MEDIA_TYPE.test(raw.contentType ?? '')) {
    throw new OAuthError(
      'invalid_request',
      'content-type must be application/x-www-form-urlencoded',
    );
  }
  const params = { ...readParams(raw.query, 'query'), ...readParams(raw.body, 'body') };

  const grantType = params.grant_type;
  if (grantType === undefined) throw new OAuthError('invalid_request', 'missing grant_type');
  if (grantType !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'only client_credentials is supported');
  }

  const basic = raw.authorization === undefined ? undefined : readBasic(raw.authorization);
  let clientId: string;
  let clientSecret: string;
  let authMethod: TokenRequest['authMethod'];
  if (basic) {
    if (params.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'more than one client authentication method used');
    }
    if (params.client_id !== undefined && params.client_id !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id does not match the Authorization header');
    }
    ({ id: clientId, secret: clientSecret } = basic);
    authMethod = 'client_secret_basic';
  } else {
    if (params.client_id === undefined)
      throw new OAuthError('invalid_request', 'missing client authentication');
    if (params.client_secret === undefined)
      throw new OAuthError('invalid_request', 'missing client_secret');
    clientId = params.client_id;
    clientSecret = params.client_secret;
    authMethod = 'client_secret_post';
  }

  const scopes =
    params.scope === undefined ? [] : [...new Set(params.scope.split(' ').filter(Boolean))];
  if (scopes.some((s) => !SCOPE_TOKEN.test(s)))
    throw new OAuthError('invalid_scope', 'scope is malformed');

  if (
    params.resource !== undefined &&
    params.audience !== undefined &&
    params.resource !== params.audience
  ) {
    throw new OAuthError('invalid_request', 'resource and audience disagree');
  }
  const resource = params.resource ?? params.audience;

  const request: TokenRequest = { clientId, clientSecret, authMethod, scopes };
  if (resource !== undefined) request.resource = resource;
  return request;
}

function readParams(encoded: string, source: string): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(encoded)) {
    if (seen.has(name))
      throw new OAuthError(
        'invalid_request',
        `parameter "${printable(name)}" repeated in the ${source}`,
      );
    seen.add(name);
    // RFC 6749 §3.2: parameters sent without a value are treated as if omitted.
    if (value !== '') out[name] = value;
  }
  return out;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before being joined and base64-encoded. */
function readBasic(header: string): { id: string; secret: string } {
  const match = /^Basic +(\S+) *$/i.exec(header);
  if (!match)
    throw new OAuthError('invalid_request', 'unsupported Authorization scheme (use Basic)');
  const encoded = match[1]!;
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) {
    throw new OAuthError('invalid_request', 'Authorization header is not valid base64');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new OAuthError('invalid_request', 'Authorization header lacks the id:secret form');
  try {
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (id === '' || secret === '')
      throw new OAuthError('invalid_request', 'empty client id or secret');
    return { id, secret };
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw new OAuthError('invalid_request', 'client credentials are not properly encoded');
  }
}

const formDecode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));

/** Echo parameter names safely in descriptions (printable ASCII without quotes or backslashes). */
const printable = (value: string): string =>
  value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?').slice(0, 64);
