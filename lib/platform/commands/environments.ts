import { isEnvironmentId } from '../../environments/environment-id.js';
import { ForbiddenError, NotFoundError } from '../../errors/index.js';
import { type Caller, organizationNotFound } from '../domain/access.js';
import type { Environment, EnvironmentType } from '../domain/directory.js';
import {
  requireDeletable,
  requireEmpty,
  requireRoomForEnvironment,
} from '../domain/environments.js';
import { newEnvironmentId } from '../domain/ids.js';
import type { AdminGuard } from '../store/directory-writes.js';
import { isoAt, type PlatformServiceContext } from './context.js';
import { MAX_ID_ATTEMPTS } from './organizations.js';

/** An admin creates an environment in their organization; its id is new, never given before. */
export async function createEnvironment(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  input: { name: string; type: EnvironmentType },
): Promise<Environment> {
  await ctx.access.require(caller, organizationId, 'admin');
  requireRoomForEnvironment(
    organizationId,
    (await ctx.directory.environmentsOf(organizationId)).length,
  );
  for (let attempt = 1; attempt <= MAX_ID_ATTEMPTS; attempt++) {
    const environment: Environment = {
      id: newEnvironmentId(input.name, ctx.random),
      organizationId,
      name: input.name,
      type: input.type,
      createdAt: isoAt(ctx.now()),
    };
    const outcome = await ctx.writes.createEnvironment(environment, guardOf(caller));
    if (outcome === 'created') return environment;
    if (outcome === 'organization_gone') throw organizationNotFound(organizationId);
    if (outcome === 'not_admin') throw noLongerAdmin(organizationId);
  }
  throw new Error(`no free environment id after ${MAX_ID_ATTEMPTS} attempts`);
}

/** One environment of an organization the caller belongs to; 404 for any other id. */
export async function readEnvironment(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  environmentId: string,
): Promise<Environment> {
  await ctx.access.require(caller, organizationId, 'member');
  return environmentIn(ctx, organizationId, environmentId);
}

/**
 * An admin deletes an empty environment. Its id stays taken (a tombstone), so no later environment inherits a
 * token, key or log line naming it. What it still holds, each service's probe says.
 */
export async function deleteEnvironment(
  ctx: PlatformServiceContext,
  caller: Caller,
  organizationId: string,
  environmentId: string,
): Promise<void> {
  await ctx.access.require(caller, organizationId, 'admin');
  const environment = await environmentIn(ctx, organizationId, environmentId);
  requireDeletable(environment);
  const holds = await Promise.all(
    ctx.probes.map(async (probe) => ((await probe.exists(environment.id)) ? [probe.holds] : [])),
  );
  requireEmpty(environment, holds.flat());
  const outcome = await ctx.writes.deleteEnvironment(
    environment,
    isoAt(ctx.now()),
    guardOf(caller),
  );
  if (outcome === 'gone') throw environmentNotFound(environmentId);
  if (outcome === 'not_admin') throw noLongerAdmin(organizationId);
}

async function environmentIn(
  ctx: PlatformServiceContext,
  organizationId: string,
  environmentId: string,
): Promise<Environment> {
  const environment = isEnvironmentId(environmentId)
    ? await ctx.directory.environment(environmentId)
    : undefined;
  if (environment?.organizationId !== organizationId) throw environmentNotFound(environmentId);
  return environment;
}

/** A person's admin role is checked again inside the write; a client's is its token's. */
const guardOf = (caller: Caller): AdminGuard =>
  caller.type === 'person' ? { adminEmail: caller.email } : {};

const environmentNotFound = (id: string) =>
  new NotFoundError(`environment ${id.slice(0, 64)} not found`);

const noLongerAdmin = (organizationId: string) =>
  new ForbiddenError(`only an admin of organization ${organizationId} may do this`);
