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
  scope: v.string(),
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
};

export const clientData = dataOf(clientSchema);
export const clientPage = cursorOf(clientSchema);
export const createdSecretData = dataOf(createdSecretSchema);

export const authDocument = {
  service: 'auth',
  title: 'Auth',
  description:
    'OAuth 2.0 client credentials: discovery, signing keys, the token endpoint, clients and secrets.',
  schemas: authSchemas,
} as const;

/**
 * The token request's form fields (RFC 6749 §4.4). Documentation only: the endpoint parses the form itself
 * (token-request.ts), with the OAuth errors of RFC 6749 §5.2.
 */
export const tokenRequestSchema = v.object({
  grant_type: v.literal('client_credentials'),
  client_id: v.optional(v.pipe(v.string(), v.description('With `client_secret_post`.'))),
  client_secret: v.optional(v.pipe(v.string(), v.description('With `client_secret_post`.'))),
  scope: v.optional(
    v.pipe(v.string(), v.description("Space-separated subset of the client's scopes.")),
  ),
  resource: v.optional(v.pipe(v.string(), v.description('Audience restriction (RFC 8707).'))),
  audience: v.optional(v.string()),
});
