import type { Context, MiddlewareHandler } from 'hono';
import { inEnvironmentScope } from '../dynamo/environment-scope.js';
import { InvalidTokenError } from '../errors/index.js';
import type { AppEnv } from './types.js';

/**
 * The environment of the request's token: the only environment a route of the ledger, webhooks, payments or
 * auth's client routes may touch (docs/decisions/tenancy.md, "Environments"). The bearer middleware has already
 * refused tokens without one; this holds that for any route mounted some other way.
 */
export function environmentOf(c: Context<AppEnv>): string {
  const environment = c.get('principal')?.environment;
  if (environment === undefined) throw new InvalidTokenError('token names no environment');
  return environment;
}

/**
 * Runs the rest of the request in its token's environment's async scope (lib/dynamo/environment-scope.ts), which
 * the ledger's stores still take their environment's credentials from: they are built once per function and given
 * a ledger per call. The other services build their stores over their environment's client instead.
 */
export const inTokenEnvironment: MiddlewareHandler<AppEnv> = async (c, next) => {
  const environment = c.get('principal')?.environment;
  if (environment === undefined) await next();
  else await inEnvironmentScope(environment, next);
};
