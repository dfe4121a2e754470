import type { Context } from 'hono';
import { InvalidTokenError } from '../errors/index.js';
import type { HonoTypes } from './types.js';

/**
 * The environment of the request's token: the only environment a route of the ledger, webhooks, payments or
 * auth's client routes may touch (docs/decisions/tenancy.md, "Environments"). The bearer middleware has already
 * refused tokens without one; this holds that for any route mounted some other way.
 */
export function environmentOf(c: Context<HonoTypes>): string {
  const environment = c.get('principal')?.environment;
  if (environment === undefined) throw new InvalidTokenError('token names no environment');
  return environment;
}
