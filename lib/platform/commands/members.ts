import type { Role } from '../../tokens/claims.js';
import { type Caller, organizationNotFound, requireRole, rosterRole } from '../domain/access.js';
import type { Membership } from '../domain/directory.js';
import { type RosterChange, removal, setRole } from '../domain/roster.js';
import { isoAt, type PlatformServiceContext } from './context.js';

/** An admin adds a person to the organization, or changes their role. */
export async function putMember(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  target: { email: string; role: Role },
): Promise<Membership> {
  const change = await changeRoster(ctx, caller, organizationId, (members) =>
    setRole(members, { organizationId, ...target, at: isoAt(ctx.now()) }),
  );
  return change.membership;
}

/** An admin removes a person from the organization (themselves too, unless they are its last admin). */
export async function removeMember(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  email: string,
): Promise<void> {
  await changeRoster(ctx, caller, organizationId, (members) =>
    removal(members, { organizationId, email }),
  );
}

/**
 * The caller's admin role is checked first (so a non-member learns nothing), then again against the roster the
 * change is decided on: the write happens only if that roster is still current.
 */
async function changeRoster(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  decide: (members: readonly Membership[]) => RosterChange,
): Promise<RosterChange> {
  await ctx.access.require(caller, organizationId, 'admin');
  return ctx.writes.changeRoster(organizationId, (members) => {
    if (!members) throw organizationNotFound(organizationId);
    requireRole(rosterRole(caller, organizationId, members), 'admin', organizationId);
    return decide(members);
  });
}
