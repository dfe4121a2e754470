import { isEnvironmentId } from '../../environments/environment-id.js';
import { SCOPE_TOKEN } from '../../tokens/scopes.js';
import { OAuthError } from './oauth-error.js';

/** The grants of the token endpoint (docs/decisions/tenancy.md, "Grants at /api/auth/oauth/token"). */
export const GRANT_TYPES = {
  clientCredentials: 'client_credentials',
  tokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  jwtBearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
} as const;

/** RFC 8693 §3 token type identifiers this endpoint takes and issues. */
export const TOKEN_TYPES = {
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
} as const;

/** What every grant may ask: scopes (empty: all it may have) and an RFC 8707 resource (or `audience`). */
interface CommonRequest {
  scopes: string[];
  resource?: string;
}

/** RFC 6749 §4.4: a client authenticates with its secret. */
export interface ClientCredentialsRequest extends CommonRequest {
  grant: 'client_credentials';
  clientId: string;
  clientSecret: string;
  /** Which method the client used: decides the `WWW-Authenticate` header on a 401. */
  authMethod: 'client_secret_basic' | 'client_secret_post';
}

/** RFC 8693 with the identity provider's ID token: a person logs in and gets a platform token. */
export interface IdTokenExchangeRequest extends CommonRequest {
  grant: 'token_exchange';
  subjectTokenType: 'id_token';
  subjectToken: string;
}

/**
 * A person's platform token for an environment token: RFC 8693 (`subject_token`, type access_token) or RFC 7523
 * (`assertion`). Both ask the same thing, so both are this one request.
 */
export interface EnvironmentTokenRequest extends CommonRequest {
  grant: 'token_exchange' | 'jwt_bearer';
  subjectTokenType: 'access_token';
  subjectToken: string;
  environment: string;
}

export type TokenRequest =
  | ClientCredentialsRequest
  | IdTokenExchangeRequest
  | EnvironmentTokenRequest;

export interface RawTokenRequest {
  contentType: string | undefined;
  body: string;
  /** The raw query string, without `?`. */
  query: string;
  authorization: string | undefined;
}

type Params = Record<string, string>;
/** A grant's own part of a request; the common parameters are read once for every grant. */
type Own<T> = Omit<T, keyof CommonRequest>;

const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;
/** RFC 6749 §3.3 scope-token characters. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads a token request (RFC 6749 §3.2): form body or query-style parameters (the body wins per parameter), no
 * parameter twice in one source, empty values treated as absent; then the grant's own parameters.
 */
export function parseTokenRequest(raw: RawTokenRequest): TokenRequest {
  if (raw.body.length > 0 && !FORM_MEDIA_TYPE.test(raw.contentType ?? '')) {
    throw new OAuthError(
      'invalid_request',
      'content-type must be application/x-www-form-urlencoded',
    );
  }
  const params = { ...readParams(raw.query, 'query'), ...readParams(raw.body, 'body') };
  switch (params.grant_type) {
    case undefined:
      throw new OAuthError('invalid_request', 'missing grant_type');
    case GRANT_TYPES.clientCredentials: {
      const client = clientAuthentication(params, raw);
      return { grant: 'client_credentials', ...client, ...commonParams(params) };
    }
    case GRANT_TYPES.tokenExchange:
      return { ...tokenExchange(params), ...commonParams(params) };
    case GRANT_TYPES.jwtBearer:
      return { ...jwtBearer(params), ...commonParams(params) };
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type must be one of ${Object.values(GRANT_TYPES).join(', ')}`,
      );
  }
}

/** RFC 6749 §2.3.1: Basic or form credentials, one method only. */
function clientAuthentication(
  params: Params,
  raw: RawTokenRequest,
): Pick<ClientCredentialsRequest, 'clientId' | 'clientSecret' | 'authMethod'> {
  const basic = raw.authorization === undefined ? undefined : readBasic(raw.authorization);
  if (basic) {
    if (params.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'more than one client authentication method used');
    }
    if (params.client_id !== undefined && params.client_id !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id does not match the Authorization header');
    }
    return { clientId: basic.id, clientSecret: basic.secret, authMethod: 'client_secret_basic' };
  }
  if (params.client_id === undefined)
    throw new OAuthError('invalid_request', 'missing client authentication');
  if (params.client_secret === undefined)
    throw new OAuthError('invalid_request', 'missing client_secret');
  return {
    clientId: params.client_id,
    clientSecret: params.client_secret,
    authMethod: 'client_secret_post',
  };
}

/**
 * RFC 8693 §2.1. No client authentication: the subject token is the proof (credentials sent anyway are not
 * read). No actor token (no delegation); only access tokens are issued.
 */
function tokenExchange(params: Params): Own<IdTokenExchangeRequest> | Own<EnvironmentTokenRequest> {
  const subjectToken = params.subject_token;
  if (subjectToken === undefined) throw new OAuthError('invalid_request', 'missing subject_token');
  if (params.actor_token !== undefined || params.actor_token_type !== undefined)
    throw new OAuthError('invalid_request', 'actor tokens (delegation) are not supported');
  if (
    params.requested_token_type !== undefined &&
    params.requested_token_type !== TOKEN_TYPES.accessToken
  )
    throw new OAuthError(
      'invalid_request',
      `requested_token_type must be ${TOKEN_TYPES.accessToken}`,
    );
  switch (params.subject_token_type) {
    case undefined:
      throw new OAuthError('invalid_request', 'missing subject_token_type');
    case TOKEN_TYPES.idToken:
      if (params.environment !== undefined)
        throw new OAuthError(
          'invalid_request',
          'an ID token is exchanged for a platform token: exchange that for an environment token',
        );
      return { grant: 'token_exchange', subjectTokenType: 'id_token', subjectToken };
    case TOKEN_TYPES.accessToken:
      return {
        grant: 'token_exchange',
        subjectTokenType: 'access_token',
        subjectToken,
        environment: environmentParam(params),
      };
    default:
      throw new OAuthError(
        'invalid_request',
        `subject_token_type must be ${TOKEN_TYPES.idToken} or ${TOKEN_TYPES.accessToken}`,
      );
  }
}

/** RFC 7523 §2.1: the assertion is a person's platform token. */
function jwtBearer(params: Params): Own<EnvironmentTokenRequest> {
  const assertion = params.assertion;
  if (assertion === undefined) throw new OAuthError('invalid_request', 'missing assertion');
  return {
    grant: 'jwt_bearer',
    subjectTokenType: 'access_token',
    subjectToken: assertion,
    environment: environmentParam(params),
  };
}

function environmentParam(params: Params): string {
  const environment = params.environment;
  if (environment === undefined) throw new OAuthError('invalid_request', 'missing environment');
  if (!isEnvironmentId(environment))
    throw new OAuthError('invalid_request', 'environment is not an environment id');
  return environment;
}

function commonParams(params: Params): CommonRequest {
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
  return resource === undefined ? { scopes } : { scopes, resource };
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
