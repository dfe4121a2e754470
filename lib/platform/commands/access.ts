import type { Role } from '../../tokens/claims.js';
import { type Caller, clientRole, type Need, requireRole } from '../domain/access.js';
import type { Organization } from '../domain/directory.js';
import { isOrganizationId } from '../domain/ids.js';
import type { PlatformDirectory } from '../store/directory.js';

export type OrganizationWithRole = Organization & { role: Role };

/**
 * The caller's place in organizations, read live on every request (docs/decisions/tenancy.md: a removed member loses
 * access at once, whatever token they still hold). Strongly consistent reads.
 */
export class OrganizationAccess {
  constructor(private readonly directory: PlatformDirectory) {}

  /** The caller's role in `organization`; undefined when they have none there, or it does not exist. */
  async roleOf(caller: Caller, organization: string): Promise<Role | undefined> {
    if (!isOrganizationId(organization)) return undefined;
    if (caller.type === 'person')
      return (await this.directory.membership(organization, caller.email))?.role;
    const role = clientRole(caller, organization);
    return role && (await this.directory.organization(organization)) ? role : undefined;
  }

  /** The caller's role, meeting `need`; 404 for those with no part in it, 403 for a member doing an admin's part. */
  async require(caller: Caller, organization: string, need: Need): Promise<Role> {
    return requireRole(await this.roleOf(caller, organization), need, organization);
  }

  /** Every organization the caller belongs to, with their role, by id. */
  async organizationsOf(caller: Caller): Promise<OrganizationWithRole[]> {
    const roles: Array<{ organizationId: string; role: Role }> =
      caller.type === 'person'
        ? await this.directory.membershipsOf(caller.email)
        : caller.organization !== undefined && caller.role !== undefined
          ? [{ organizationId: caller.organization, role: caller.role }]
          : [];
    const organizations = await this.directory.organizations(roles.map((r) => r.organizationId));
    return roles
      .flatMap(({ role }, i) => {
        const organization = organizations[i];
        return organization ? [{ ...organization, role }] : [];
      })
      .sort((a, b) => a.id.localeCompare(b.id));
  }
}
