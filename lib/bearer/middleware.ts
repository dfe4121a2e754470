import type { Context, MiddlewareHandler } from 'hono';
import { InsufficientScopeError, InvalidTokenError } from '../errors/index.js';
import type { HonoTypes, Principal } from '../http/types.js';
import { grants, requiredScope, type Service } from '../tokens/scopes.js';
import type { TokenVerifier } from './token-verifier.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * RFC 6750 bearer check plus the scope rule; sets `principal` for the handlers. A route reaches its token's
 * environment through its service's stores of that environment (`environmentOf(c)`, lib/http/environment.ts).
 */
export function bearerAuth(
  service: Service,
  verifier: TokenVerifier,
): MiddlewareHandler<HonoTypes> {
  return async (c, next) => {
    const principal = await authenticate(c, verifier);
    const needed = requiredScope(service, c.req.method, c.req.path);
    if (!grants(principal.scopes, needed))
      throw new InsufficientScopeError(`scope "${needed}" required`, needed);
    await next();
  };
}

/**
 * The RFC 6750 bearer check alone: verifies the request's token and sets `principal`. The platform API uses it
 * as it is (its access follows from roles, not scopes).
 */
export async function authenticate(
  c: Context<HonoTypes>,
  verifier: TokenVerifier,
): Promise<Principal> {
  const header = c.req.header('authorization');
  if (header === undefined) throw new InvalidTokenError('missing bearer token');
  const match = BEARER.exec(header);
  if (!match) throw new InvalidTokenError('authorization header is not a bearer token');
  const principal = await verifier.verify(match[1]!);
  c.set('principal', principal);
  return principal;
}
