import {
  ForbiddenError,
  NoSandboxEnvironmentError,
  NotFoundError,
  ValidationError,
} from '../../errors/index.js';
import { organizationNotFound } from './access.js';
import type { Environment, Membership } from './directory.js';

/**
 * Which environment a personal token is for (docs/decisions/tenancy.md, "Personal tokens"): the one the person names
 * (any type, in an organization they belong to); otherwise the oldest sandbox environment of the organization
 * they name, or of their only organization. In every case the organization must have a sandbox environment
 * (the base document's rule), or nothing is issued.
 */

export interface PersonalTokenRequest {
  environment?: string;
  organization?: string;
}

/**
 * The membership (organization and role) the token is issued under. `named` is the environment the request
 * names, as the directory knows it (undefined when unknown or deleted). An environment or organization the person
 * has no part in is answered as if it did not exist.
 */
export function personalTokenMembership(
  request: PersonalTokenRequest,
  memberships: readonly Membership[],
  named: Environment | undefined,
): Membership {
  if (request.environment !== undefined) {
    const membership = named && memberships.find((m) => m.organizationId === named.organizationId);
    const sameOrganization =
      request.organization === undefined || named?.organizationId === request.organization;
    if (!membership || !sameOrganization)
      throw new NotFoundError(`environment ${request.environment} not found`);
    return membership;
  }
  if (request.organization !== undefined) {
    const membership = memberships.find((m) => m.organizationId === request.organization);
    if (!membership) throw organizationNotFound(request.organization);
    return membership;
  }
  const [only, ...others] = memberships;
  if (!only) throw new ForbiddenError('you are not a member of any organization');
  if (others.length > 0)
    throw new ValidationError(
      `you belong to ${memberships.length} organizations: name one with "organization" (or an environment with "environment")`,
    );
  return only;
}

/** The environment, among the organization's active ones, the token is for. */
export function personalTokenEnvironment(
  organizationId: string,
  environments: readonly Environment[],
  named: Environment | undefined,
): Environment {
  // Oldest first, ties (same millisecond) by id: the same choice on every call.
  const [sandbox] = environments
    .filter((e) => e.type === 'sandbox')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  if (!sandbox)
    throw new NoSandboxEnvironmentError(
      `organization ${organizationId} has no sandbox environment: create a sandbox environment first`,
    );
  return named ?? sandbox;
}
