import { ConflictError, NotFoundError } from '../../errors/index.js';
import type { Role } from '../../tokens/claims.js';
import type { Membership } from './directory.js';

/**
 * Changes to an organization's members, decided over the whole roster as read (the store writes the decision
 * only if the roster did not change meanwhile). An organization always keeps one admin.
 */

/** Members an organization may have: the directory reads at most this many (store/directory.ts, MAX_MEMBERS). */
export const MAX_ORGANIZATION_MEMBERS = 1000;

export type RosterChange =
  | { kind: 'put'; membership: Membership }
  | { kind: 'unchanged'; membership: Membership }
  | { kind: 'remove'; membership: Membership };

const admins = (members: readonly Membership[]) => members.filter((m) => m.role === 'admin').length;

/** Adds `email` with `role`, or changes their role (keeping when they were added). */
export function setRole(
  members: readonly Membership[],
  target: { organizationId: string; email: string; role: Role; at: string },
): RosterChange {
  const current = members.find((m) => m.email === target.email);
  if (current?.role === target.role) return { kind: 'unchanged', membership: current };
  if (current?.role === 'admin' && admins(members) <= 1) throw lastAdmin(target);
  if (!current && members.length >= MAX_ORGANIZATION_MEMBERS)
    throw new ConflictError(
      `organization ${target.organizationId} has ${MAX_ORGANIZATION_MEMBERS} members, the most it may have`,
    );
  return {
    kind: 'put',
    membership: {
      organizationId: target.organizationId,
      email: target.email,
      role: target.role,
      addedAt: current?.addedAt ?? target.at,
    },
  };
}

/** Removes `email` from the organization. */
export function removal(
  members: readonly Membership[],
  target: { organizationId: string; email: string },
): RosterChange {
  const current = members.find((m) => m.email === target.email);
  if (!current)
    throw new NotFoundError(
      `${target.email} is not a member of organization ${target.organizationId}`,
    );
  if (current.role === 'admin' && admins(members) <= 1) throw lastAdmin(target);
  return { kind: 'remove', membership: current };
}

const lastAdmin = (target: { organizationId: string; email: string }) =>
  new ConflictError(
    `${target.email} is the last admin of organization ${target.organizationId}: make another member admin first`,
  );
