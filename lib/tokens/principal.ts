import type { PrincipalType, Role } from './claims.js';

/** What the bearer middleware learned about the caller (the token's claims, lib/tokens/claims.ts). */
export interface Principal {
  clientId: string;
  /** `sub`: the client, or the person a platform or personal token was issued to. */
  subject: string;
  /** Whether the token was issued to a client or to a person (tokens from before persons existed: client). */
  type: PrincipalType;
  scopes: ReadonlySet<string>;
  /** The environment an environment token is scoped to; undefined for a platform token. */
  environment?: string;
  /** A person's email (persons' tokens only). */
  email?: string;
  /** A platform-level client's organization and role (its platform tokens only). */
  organization?: string;
  role?: Role;
  /** A personal token (issued by `/api/platform/personal-tokens`). */
  personal?: boolean;
}
