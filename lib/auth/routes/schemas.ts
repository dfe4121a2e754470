import * as v from 'valibot';
import { cursorOf, dataOf, dateTime, metadataView } from '../../openapi/schemas.js';

/** The auth service's response shapes (docs/api.md §2), for its OpenAPI document and the tests against it. */

export const secretSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  lastDigits: v.string(),
  metadata: metadataView,
  createdAt: dateTime,
  lastUsedAt: v.optional(dateTime),
});

export const clientSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: v.optional(v.string()),
  scopes: v.array(v.string()),
  metadata: metadataView,
  accessTokenLifetime: v.pipe(v.number(), v.integer(), v.description('Seconds.')),
  createdAt: dateTime,
  updatedAt: dateTime,
  secrets: v.array(secretSchema),
});

/** A new secret: `clear` appears in this answer only. */
export const createdSecretSchema = v.strictObject({
  ...secretSchema.entries,
  clear: v.pipe(v.string(), v.description('The secret itself: shown once, never again.')),
});

export const tokenSchema = v.strictObject({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.pipe(v.number(), v.integer()),
  scope: v.pipe(
    v.string(),
    v.description('Space-separated; empty for a platform token of a person.'),
  ),
  issued_token_type: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Token exchange (RFC 8693) only: `urn:ietf:params:oauth:token-type:access_token`.',
      ),
    ),
  ),
});

/** A person known to an environment (the SDK's `User`). */
export const userSchema = v.strictObject({
  id: v.pipe(
    v.string(),
    v.description("The platform's id of the person (`usr_…`, from the email)."),
  ),
  subject: v.pipe(v.string(), v.description("The identity provider's `sub`.")),
  email: v.string(),
});

/** RFC 6749 §5.2. */
export const oauthErrorSchema = v.strictObject({
  error: v.string(),
  error_description: v.optional(v.string()),
});

/** RFC 8414 / OpenID discovery: the fields docs/api.md §2 names, others allowed. */
export const discoverySchema = v.looseObject({
  issuer: v.string(),
  token_endpoint: v.string(),
  jwks_uri: v.string(),
  grant_types_supported: v.array(v.string()),
  token_endpoint_auth_methods_supported: v.array(v.string()),
  scopes_supported: v.array(v.string()),
});

export const jwksSchema = v.strictObject({
  keys: v.array(
    v.looseObject({ kid: v.string(), alg: v.string(), use: v.literal('sig'), kty: v.string() }),
  ),
});

export const authSchemas = {
  Client: clientSchema,
  ClientSecret: secretSchema,
  CreatedClientSecret: createdSecretSchema,
  Token: tokenSchema,
  OAuthError: oauthErrorSchema,
  ServerMetadata: discoverySchema,
  Jwks: jwksSchema,
  User: userSchema,
};

export const clientData = dataOf(clientSchema);
/** The reference's `{data}` (what the SDK reads) and, when the caller pages, the cursor over the same page. */
export const clientPage = v.strictObject({
  data: v.array(clientSchema),
  cursor: v.optional(cursorOf(clientSchema).entries.cursor),
});
export const createdSecretData = dataOf(createdSecretSchema);
export const userData = dataOf(userSchema);
export const userList = v.strictObject({ data: v.array(userSchema) });

export const authDocument = {
  service: 'auth',
  title: 'Auth',
  description:
    'OAuth 2.0: discovery, signing keys, the token endpoint (client credentials, token exchange, JWT bearer), clients and secrets, and the persons known to an environment.',
  schemas: authSchemas,
} as const;

/**
 * The token request's form fields, for every grant (RFC 6749 §4.4, RFC 8693 §2.1, RFC 7523 §2.1). Documentation
 * only: the endpoint parses the form itself (token-request.ts), with the OAuth errors of RFC 6749 §5.2.
 */
export const tokenRequestSchema = v.object({
  grant_type: v.pipe(
    v.picklist([
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]),
    v.description(
      "`client_credentials`: a client and its secret. Token exchange: an ID token of the identity provider for a platform token, or a person's platform token and `environment` for an environment token. JWT bearer: a person's platform token as `assertion` and `environment` for an environment token. Subject tokens and assertions are accepted once each.",
    ),
  ),
  client_id: v.optional(v.pipe(v.string(), v.description('With `client_secret_post`.'))),
  client_secret: v.optional(v.pipe(v.string(), v.description('With `client_secret_post`.'))),
  scope: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Space-separated subset of the client's scopes, or of the person's role's (environment tokens).",
      ),
    ),
  ),
  resource: v.optional(v.pipe(v.string(), v.description('Audience restriction (RFC 8707).'))),
  audience: v.optional(v.string()),
  subject_token: v.optional(
    v.pipe(
      v.string(),
      v.description("Token exchange: the ID token, or a person's platform token."),
    ),
  ),
  subject_token_type: v.optional(
    v.pipe(
      v.picklist([
        'urn:ietf:params:oauth:token-type:id_token',
        'urn:ietf:params:oauth:token-type:access_token',
      ]),
      v.description(
        'Token exchange: `id_token` for an ID token, `access_token` for a platform token.',
      ),
    ),
  ),
  requested_token_type: v.optional(
    v.pipe(
      v.literal('urn:ietf:params:oauth:token-type:access_token'),
      v.description('Token exchange: only access tokens are issued.'),
    ),
  ),
  assertion: v.optional(
    v.pipe(v.string(), v.description("JWT bearer: a person's platform token.")),
  ),
  environment: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "The environment an environment token is for (a person's platform token exchanged, either grant).",
      ),
    ),
  ),
});
