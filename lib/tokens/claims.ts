/**
 * The claims of the platform's access tokens (docs/decisions/tenancy.md, "Environments and token types"). Two kinds:
 *
 * - environment tokens: `aud` the API's audience (TOKEN_AUDIENCE) and an `environment` claim; accepted by the
 *   ledger, webhooks, payments and auth's client and user routes, for that environment's data only;
 * - platform tokens: `aud` the platform API's audience (`<PUBLIC_BASE_URL>/api/platform`) and no environment;
 *   accepted by `/api/platform` only.
 *
 * Either is issued to a client or to a person: `principal_type` says which. A person's tokens carry its
 * `email`; a platform-level client's platform tokens carry the `organization` and `role` its configuration
 * gives it. Personal tokens are environment tokens issued to a person by `/api/platform/personal-tokens`:
 * `token_use` is `personal`.
 */

/** The path of the platform service, and the last part of a platform token's audience. */
export const PLATFORM_API_PATH = '/api/platform';

/** The audience of platform tokens: distinct from the API's, so no service mistakes one for the other. */
export const platformAudience = (publicBaseUrl: string): string =>
  `${publicBaseUrl}${PLATFORM_API_PATH}`;

export type PrincipalType = 'client' | 'person';

/** A role in an organization: admins manage environments and members; members use the environments. */
export type Role = 'admin' | 'member';
export const ROLES: readonly Role[] = ['admin', 'member'];

/** How long a personal token lives: exactly five minutes (the base document's rule), never refreshed. */
export const PERSONAL_TOKEN_LIFETIME_SECONDS = 300;

/** Claim names beyond RFC 9068's (`iss sub aud exp iat nbf jti client_id scope`). */
export const CLAIMS = {
  environment: 'environment',
  principalType: 'principal_type',
  email: 'email',
  organization: 'organization',
  role: 'role',
  tokenUse: 'token_use',
} as const;
