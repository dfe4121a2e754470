import type { Context, Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { ALL_SCOPES } from '../../tokens/scopes.js';
import { GRANT_TYPES } from '../domain/token-request.js';
import { SIGNING_ALG } from '../keys/generate.js';
import { KEY_SET_CACHE_SECONDS, type SigningKeys } from '../keys/signing-keys.js';
import { discoverySchema, jwksSchema } from './schemas.js';

const PUBLIC_CACHE = `public, max-age=${KEY_SET_CACHE_SECONDS}`;

/** The server metadata (the same at both well-known paths), served cacheable. */
function serveMetadata(issuer: string) {
  const metadata = {
    issuer,
    token_endpoint: `${issuer}/oauth/token`,
    jwks_uri: `${issuer}/keys`,
    grant_types_supported: Object.values(GRANT_TYPES),
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_signing_alg_values_supported: [SIGNING_ALG],
  };
  return (c: Context<HonoTypes>) => {
    c.header('Cache-Control', PUBLIC_CACHE);
    return c.json(metadata);
  };
}

/** OIDC discovery (both well-known paths) and the JWKS. Unauthenticated, cacheable, never redirecting. */
export function discoveryRoutes(app: Hono<HonoTypes>, issuer: string, keys: SigningKeys): void {
  getOIDCWellKnownsRoute(app, issuer);
  getOAuthServerMetadataRoute(app, issuer);
  getJwksRoute(app, keys);
}

function getOIDCWellKnownsRoute(app: Hono<HonoTypes>, issuer: string): void {
  app.get(
    '/.well-known/openid-configuration',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getOIDCWellKnowns',
        summary: 'OpenID discovery',
        tags: ['auth: OAuth 2.0'],
        public: true,
        responses: { 200: { description: 'The server metadata.', schema: discoverySchema } },
      },
    ),
    serveMetadata(issuer),
  );
}

function getOAuthServerMetadataRoute(app: Hono<HonoTypes>, issuer: string): void {
  app.get(
    '/.well-known/oauth-authorization-server',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getOAuthServerMetadata',
        summary: 'OAuth 2.0 server metadata (RFC 8414)',
        tags: ['auth: OAuth 2.0'],
        public: true,
        responses: { 200: { description: 'The server metadata.', schema: discoverySchema } },
      },
    ),
    serveMetadata(issuer),
  );
}

function getJwksRoute(app: Hono<HonoTypes>, keys: SigningKeys): void {
  app.get(
    '/keys',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getJwks',
        summary: 'Signing keys (JWKS)',
        description: 'Public keys only; the next and previous keys too during a rotation.',
        tags: ['auth: OAuth 2.0'],
        public: true,
        responses: { 200: { description: 'The key set.', schema: jwksSchema } },
      },
    ),
    async (c) => {
      const set = await keys.publicKeySet();
      c.header('Cache-Control', PUBLIC_CACHE);
      return c.json(set);
    },
  );
}
