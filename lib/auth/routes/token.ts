import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DependencyThrottledError } from '../../errors/index.js';
import { sourceAddress } from '../../http/runtime-bindings.js';
import type { HonoTypes } from '../../http/types.js';
import { recordMetric } from '../../observability/metrics.js';
import { openapi } from '../../openapi/describe.js';
import type { TokenService } from '../commands/token-service.js';
import { hashedClientId } from '../domain/client-id-hash.js';
import { OAuthError } from '../domain/oauth-error.js';
import { parseTokenRequest } from '../domain/token-request.js';
import { PrivateKeyUnavailableError } from '../keys/private-key-vault.js';
import { oauthErrorSchema, tokenRequestSchema, tokenSchema } from './schemas.js';

export const TOKEN_PATH = '/oauth/token';

/** A token request is a handful of short parameters; anything bigger is not one. */
const MAX_TOKEN_REQUEST_BYTES = 64 * 1024;

/**
 * POST /oauth/token (RFC 6749 §4.4, RFC 8693, RFC 7523). Every response, errors included, carries no-store and
 * no-cache.
 */
export function tokenRoutes(app: Hono<HonoTypes>, tokens: TokenService): void {
  app.use(TOKEN_PATH, async (c, next) => {
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
    c.res.headers.set('Pragma', 'no-cache');
  });
  app.post(
    TOKEN_PATH,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createToken',
        summary: 'Issue a token',
        description:
          "Client credentials: client authentication by `client_secret_basic` (Authorization: Basic) or `client_secret_post` (form fields); repeated failures are throttled (429). Token exchange (RFC 8693) and JWT bearer (RFC 7523), no client authentication: the identity provider's ID token for a person's platform token, or a person's platform token for an environment token (`environment`). Errors are OAuth errors (RFC 6749 §5.2); a refused subject token or assertion is `invalid_grant`.",
        tags: ['auth: OAuth 2.0'],
        public: true,
        body: tokenRequestSchema,
        bodyMediaType: 'application/x-www-form-urlencoded',
        responses: {
          200: { description: 'The access token (a JWT).', schema: tokenSchema },
          400: {
            description: 'Invalid request, grant type, grant or scope.',
            schema: oauthErrorSchema,
          },
          401: {
            description: 'Unknown client or wrong secret (`invalid_client`).',
            schema: oauthErrorSchema,
          },
          429: {
            description: 'Too many failures for this client or address.',
            schema: oauthErrorSchema,
            headers: { 'Retry-After': { description: 'Seconds.', schema: { type: 'integer' } } },
          },
          default: { description: 'OAuth error.', schema: oauthErrorSchema },
        },
      },
    ),
    bodyLimit({
      maxSize: MAX_TOKEN_REQUEST_BYTES,
      onError: (c) =>
        oauthError(c, new OAuthError('invalid_request', 'request body too large', { status: 413 })),
    }),
    (c) => answerTokenRequest(c, tokens),
  );
  app.all(TOKEN_PATH, (c) => {
    c.header('Allow', 'POST');
    return oauthError(
      c,
      new OAuthError('invalid_request', 'the token endpoint accepts POST only', { status: 405 }),
    );
  });
}

async function answerTokenRequest(c: Context<HonoTypes>, tokens: TokenService): Promise<Response> {
  try {
    const request = parseTokenRequest({
      contentType: c.req.header('content-type'),
      body: await c.req.text(),
      query: new URL(c.req.url).search.slice(1),
      authorization: c.req.header('authorization'),
    });
    const logFields = c.get('logFields');
    logFields.oauthGrant = request.grant;
    // A presented id may be anything, a secret sent in the wrong field included: until it authenticates,
    // only a short hash of it is logged (operators can hash a known id to match). Subject tokens and assertions
    // are never logged, hashed or not.
    if (request.grant === 'client_credentials')
      logFields.oauthClientIdHash = hashedClientId(request.clientId);
    const issued = await tokens.issue(request, sourceAddress(c.env));
    if (request.grant === 'client_credentials') logFields.oauthClientId = request.clientId;
    else logFields.oauthSubject = issued.subject;
    return c.json(issued.response);
  } catch (err) {
    if (err instanceof OAuthError) return oauthError(c, err);
    if (err instanceof DependencyThrottledError) {
      return oauthError(
        c,
        new OAuthError('temporarily_unavailable', 'service busy, retry shortly', {
          retryAfterSeconds: 1,
        }),
      );
    }
    if (err instanceof PrivateKeyUnavailableError) {
      // KMS refused or failed (or a key item is damaged): nothing was signed or written. The request line,
      // logged as an error for its 503, says why.
      c.get('logFields').signingKeyError = err.message;
      return oauthError(
        c,
        new OAuthError('temporarily_unavailable', 'signing key unavailable, retry later', {
          retryAfterSeconds: 5,
        }),
      );
    }
    throw err;
  }
}

function oauthError(c: Context<HonoTypes>, err: OAuthError): Response {
  const logFields = c.get('logFields');
  logFields.oauthError = err.error;
  // Which check refused a subject token or assertion: its description never quotes the token.
  if (err.error === 'invalid_grant') logFields.oauthErrorDescription = err.description;
  recordMetric('TokenFailures', { reason: err.status === 429 ? 'throttled' : err.error });
  // RFC 6749 §5.2: a 401 must challenge with the scheme the client used.
  if (err.status === 401 && /^basic /i.test(c.req.header('authorization') ?? '')) {
    c.header('WWW-Authenticate', 'Basic realm="auth", charset="UTF-8"');
  }
  if (err.retryAfterSeconds !== undefined) c.header('Retry-After', String(err.retryAfterSeconds));
  return c.json({ error: err.error, error_description: err.description }, err.status as 400);
}
