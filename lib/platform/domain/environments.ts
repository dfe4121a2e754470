import { DEFAULT_ENVIRONMENT } from '../../environments/environment-id.js';
import { ConflictError, EnvironmentNotEmptyError } from '../../errors/index.js';
import { DEFAULT_ORGANIZATION, type Environment } from './directory.js';

/** Rules of an organization's environments: how many, and when one may be deleted. */

/**
 * Environments an organization may have. Checked against the list before a creation (two concurrent creations
 * may pass it together: a bound on work, not an invariant).
 */
export const MAX_ENVIRONMENTS_PER_ORGANIZATION = 100;

export function requireRoomForEnvironment(organizationId: string, existing: number): void {
  if (existing >= MAX_ENVIRONMENTS_PER_ORGANIZATION)
    throw new ConflictError(
      `organization ${organizationId} has ${MAX_ENVIRONMENTS_PER_ORGANIZATION} environments, the most it may have: delete one first`,
    );
}

/**
 * The `default` environment of the `default` organization holds what a self-hosted deployment held before
 * environments existed, and its static clients name it: it is never deleted.
 */
export function requireDeletable(environment: Environment): void {
  if (environment.organizationId === DEFAULT_ORGANIZATION && environment.id === DEFAULT_ENVIRONMENT)
    throw new ConflictError(
      'the default environment of the default organization cannot be deleted: the deployment and its static clients rely on it',
    );
}

/** Deletion only of an empty environment: what it still holds (`ledgers`, `payments`, …) refuses it. */
export function requireEmpty(environment: Environment, holds: readonly string[]): void {
  if (holds.length > 0)
    throw new EnvironmentNotEmptyError(
      `environment ${environment.id} still holds ${holds.join(', ')}: delete them first`,
    );
}
