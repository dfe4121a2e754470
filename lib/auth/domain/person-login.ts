import { normaliseEmail } from '../../platform/domain/directory.js';
import { invalidGrant } from './oauth-error.js';

/** Who a verified ID token says logged in. */
export interface PersonLogin {
  /** Lower-cased: the directory's key for the person. */
  email: string;
  issuer: string;
  subject: string;
  name?: string;
  /** The ID token's `exp` (epoch seconds). */
  expiresAtSeconds: number;
}

/** A display name longer than this is not kept (it is only shown, never matched). */
const MAX_NAME_LENGTH = 200;

/**
 * The person of an ID token whose signature, issuer, audience and expiry were verified: a verified email is
 * required, since the email is what the platform's memberships name. Some providers (Cognito's userinfo) send
 * `email_verified` as the string "true": it says the same.
 */
export function personLoginOf(claims: Readonly<Record<string, unknown>>): PersonLogin {
  const { iss, sub, exp } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub === '' || typeof exp !== 'number')
    throw invalidGrant('ID token lacks iss, sub or exp');
  if (claims.email === undefined) throw invalidGrant('ID token has no email');
  const email = normaliseEmail(claims.email);
  if (!email) throw invalidGrant('ID token email is not a valid address');
  if (claims.email_verified !== true && claims.email_verified !== 'true')
    throw invalidGrant('ID token email is not verified');
  const login: PersonLogin = { email, issuer: iss, subject: sub, expiresAtSeconds: exp };
  if (typeof claims.name === 'string' && claims.name.trim() !== '')
    login.name = claims.name.trim().slice(0, MAX_NAME_LENGTH);
  return login;
}
