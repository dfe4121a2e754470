import type { Context } from 'hono';
import { ValidationError } from '../../errors/index.js';
import type { HonoTypes } from '../../http/types.js';
import { type Caller, callerOf } from '../domain/access.js';
import { normaliseEmail } from '../domain/directory.js';

/** The caller of a request the platform service's bearer check let through. */
export const callerIn = (c: Context<HonoTypes>): Caller => callerOf(c.get('principal'));

/** The `{email}` path segment as the directory keys it; 400 when it is not an email. */
export function emailParam(c: Context<HonoTypes>): string {
  const email = normaliseEmail(c.req.param('email'));
  if (email === undefined) throw new ValidationError('path.email: must be an email address');
  return email;
}
