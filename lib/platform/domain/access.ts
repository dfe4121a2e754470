import { ForbiddenError, InvalidTokenError, NotFoundError } from '../../errors/index.js';
import type { Role } from '../../tokens/claims.js';
import type { Principal } from '../../tokens/principal.js';
import { type Membership, normaliseEmail } from './directory.js';

/**
 * Who may do what on the platform API (docs/decisions/tenancy.md, "The platform service"). A person acts in the
 * organizations they are a member of, with their role there, read live from the directory on every request; a
 * platform-level client acts in the one organization its token names, with the role its token names.
 */

export type Caller =
  | { type: 'person'; id: string; email: string }
  | { type: 'client'; id: string; organization?: string; role?: Role };

/** What a route needs of the caller in the organization it names. */
export type Need = 'member' | 'admin';

/** The caller a verified platform token describes. A person's token without a usable email proves nobody. */
export function callerOf(principal: Principal): Caller {
  if (principal.type === 'person') {
    const email = normaliseEmail(principal.email);
    if (email === undefined) throw new InvalidTokenError('person token carries no valid email');
    return { type: 'person', id: principal.subject, email };
  }
  return {
    type: 'client',
    id: principal.subject,
    ...(principal.organization !== undefined ? { organization: principal.organization } : {}),
    ...(principal.role !== undefined ? { role: principal.role } : {}),
  };
}

/** A platform-level client's role in `organization`: its token's, and only in the organization it names. */
export function clientRole(caller: Caller, organization: string): Role | undefined {
  return caller.type === 'client' && caller.organization === organization ? caller.role : undefined;
}

/** The caller's role in an organization whose members are `members` (as read for a change of them). */
export function rosterRole(
  caller: Caller,
  organization: string,
  members: readonly Membership[],
): Role | undefined {
  if (caller.type === 'client') return clientRole(caller, organization);
  return members.find((m) => m.email === caller.email)?.role;
}

/**
 * The caller's role when it meets the need. Someone with no role in the organization learns nothing of it: the
 * answer is the one an unknown organization gets (404). A member asking for an admin's action is refused (403).
 */
export function requireRole(role: Role | undefined, need: Need, organization: string): Role {
  if (role === undefined) throw organizationNotFound(organization);
  if (need === 'admin' && role !== 'admin')
    throw new ForbiddenError(`only an admin of organization ${organization} may do this`);
  return role;
}

/** Only persons hold personal tokens and create organizations; a client is refused in words that say so. */
export function requirePerson(caller: Caller, action: string): Extract<Caller, { type: 'person' }> {
  if (caller.type !== 'person')
    throw new ForbiddenError(`only a person may ${action}: this is a client's token`);
  return caller;
}

/**
 * Organizations are created by persons who already belong to one (no self-service sign-up): a hosted stage
 * starts from its PLATFORM_ADMINS, who create organizations and add their customers' admins.
 */
export function requireMemberSomewhere(organizations: number): void {
  if (organizations === 0)
    throw new ForbiddenError(
      'only a person who already belongs to an organization may create one: ask an admin of an existing organization to add you',
    );
}

export const organizationNotFound = (organization: string): NotFoundError =>
  new NotFoundError(`organization ${organization.slice(0, 64)} not found`);
