import { PERSONAL_TOKEN_LIFETIME_SECONDS } from '../../tokens/claims.js';
import { mintAccessToken } from '../../tokens/mint.js';
import { type Caller, requirePerson } from '../domain/access.js';
import { personId, roleScopes } from '../domain/directory.js';
import {
  type PersonalTokenRequest,
  personalTokenEnvironment,
  personalTokenMembership,
} from '../domain/personal-token.js';
import type { PlatformServiceContext } from './context.js';

export interface PersonalToken {
  token: string;
  tokenType: 'Bearer';
  expiresIn: number;
  expiresAt: string;
  environment: string;
  scope: string;
}

/**
 * A personal token (docs/decisions/tenancy.md, "Personal tokens"): an environment token for the person, valid exactly
 * PERSONAL_TOKEN_LIFETIME_SECONDS, with their role's scopes, not refreshable. Membership and environments are read
 * (strongly consistent) at issue: a removed member gets none.
 */
export async function issuePersonalToken(
  ctx: PlatformServiceContext,
  caller: Caller,
  request: PersonalTokenRequest,
): Promise<PersonalToken> {
  const person = requirePerson(caller, 'get a personal token');
  const [named, memberships] = await Promise.all([
    request.environment !== undefined ? ctx.directory.environment(request.environment) : undefined,
    ctx.directory.membershipsOf(person.email),
  ]);
  const membership = personalTokenMembership(request, memberships, named);
  const environment = personalTokenEnvironment(
    membership.organizationId,
    await ctx.directory.environmentsOf(membership.organizationId),
    named,
  );
  const scopes = roleScopes(membership.role);
  const nowMs = ctx.now();
  const subject = personId(person.email);
  const token = await mintAccessToken(ctx.tokens.signer, {
    issuer: ctx.tokens.issuer,
    audience: ctx.tokens.audience,
    subject,
    // No OAuth client asked for it: the person did, through the platform service's API.
    clientId: subject,
    scopes,
    principalType: 'person',
    environment: environment.id,
    email: person.email,
    tokenUse: 'personal',
    lifetimeSeconds: PERSONAL_TOKEN_LIFETIME_SECONDS,
    nowMs,
  });
  const expiresAtSeconds = Math.floor(nowMs / 1000) + PERSONAL_TOKEN_LIFETIME_SECONDS;
  return {
    token,
    tokenType: 'Bearer',
    expiresIn: PERSONAL_TOKEN_LIFETIME_SECONDS,
    expiresAt: new Date(expiresAtSeconds * 1000).toISOString(),
    environment: environment.id,
    scope: scopes.join(' '),
  };
}
