import { createHash } from 'node:crypto';
import type { Role } from '../../tokens/claims.js';
import { ALL_SCOPES } from '../../tokens/scopes.js';

export { normaliseEmail } from '../../validation/email.js';

/**
 * The platform service's directory as plain values (docs/decisions/tenancy.md, "Environments and token types"): organizations,
 * their environments, their members (persons, by email) and persons' profiles. No I/O here.
 */

export type EnvironmentType = 'sandbox' | 'production';
export const ENVIRONMENT_TYPES: readonly EnvironmentType[] = ['sandbox', 'production'];

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
}

export interface Environment {
  id: string;
  organizationId: string;
  name: string;
  type: EnvironmentType;
  createdAt: string;
}

/** A person's place in an organization. Persons are known by their (verified, lower-cased) email. */
export interface Membership {
  organizationId: string;
  email: string;
  role: Role;
  addedAt: string;
}

/**
 * What the platform service remembers of a person once they have logged in: the identity provider's `iss` and `sub` the
 * email was first seen with (a later login with the same email and another subject is refused), and when.
 */
export interface PersonProfile {
  id: string;
  email: string;
  issuer: string;
  subject: string;
  name?: string;
  firstLoginAt: string;
  lastLoginAt: string;
}

/** What a self-hosted deployment has from its first start: one organization, one environment, both `default`. */
export const DEFAULT_ORGANIZATION = 'default';

/**
 * The scopes of an environment token issued to a person (personal tokens, token exchange): every service's for
 * an admin; members use the environment (ledger, webhooks, payments) and read its clients and users, but do not
 * manage clients.
 */
export function roleScopes(role: Role): readonly string[] {
  return role === 'admin' ? ALL_SCOPES : ALL_SCOPES.filter((s) => s !== 'auth:write');
}

/**
 * A person's id (`sub` of their platform and personal tokens, `id` of `/api/auth/users`): derived from the email,
 * so it is the same in every environment and never reveals the address.
 */
export const personId = (email: string): string =>
  `usr_${createHash('sha256').update(email).digest('base64url').slice(0, 22)}`;
