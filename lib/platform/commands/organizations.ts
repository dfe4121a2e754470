import { type Caller, requireMemberSomewhere, requirePerson } from '../domain/access.js';
import { newOrganizationId } from '../domain/ids.js';
import type { OrganizationWithRole } from './access.js';
import { isoAt, type PlatformServiceContext } from './context.js';

/** A fresh random id that is taken is astronomically rare; a few tries end it. */
export const MAX_ID_ATTEMPTS = 5;

/** A person who belongs to an organization creates another, and becomes its admin. */
export async function createOrganization(
  ctx: PlatformServiceContext,
  caller: Caller,
  name: string,
): Promise<OrganizationWithRole> {
  const person = requirePerson(caller, 'create an organization');
  requireMemberSomewhere((await ctx.directory.membershipsOf(person.email)).length);
  for (let attempt = 1; attempt <= MAX_ID_ATTEMPTS; attempt++) {
    const at = isoAt(ctx.now());
    const organization = { id: newOrganizationId(name, ctx.random), name, createdAt: at };
    const admin = {
      organizationId: organization.id,
      email: person.email,
      role: 'admin' as const,
      addedAt: at,
    };
    if (await ctx.writes.createOrganization(organization, admin))
      return { ...organization, role: 'admin' };
  }
  throw new Error(`no free organization id after ${MAX_ID_ATTEMPTS} attempts`);
}
