import type { PlatformDirectory } from '../../platform/store/directory.js';
import { invalidGrant } from '../domain/oauth-error.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { UsedTokenStore } from '../store/used-token-store.js';
import type { TokenResponse } from './token-response.js';

/** How long a person's tokens from the token endpoint live (docs/decisions/tenancy.md, "Token types"): 15 minutes. */
export const PERSON_PLATFORM_TOKEN_LIFETIME_SECONDS = 900;
export const EXCHANGED_ENVIRONMENT_TOKEN_LIFETIME_SECONDS = 900;

/**
 * A consumed token's record outlives its `exp` by more than any verifier's clock leeway, so it cannot be deleted
 * (TTL) while the token could still be accepted.
 */
const SINGLE_USE_MARGIN_SECONDS = 120;

/** What the grants issued to persons share. */
export interface PersonGrantOptions {
  keys: SigningKeys;
  issuer: string;
  /** The `aud` of environment tokens. */
  audience: string;
  /** The `aud` of platform tokens. */
  platformAudience: string;
  directory: PlatformDirectory;
  usedTokens: UsedTokenStore;
  now: () => number;
}

/** A token issued, and whom to name in the request's log line (never the token). */
export interface IssuedToken {
  response: TokenResponse;
  subject: string;
}

/**
 * Records a subject token or assertion as used, after every other check has passed: the first request wins, any
 * other with the same token (a replay, or a concurrent twin) is refused.
 */
export async function consumeOnce(
  usedTokens: UsedTokenStore,
  token: string,
  expiresAtSeconds: number,
): Promise<void> {
  if (!(await usedTokens.claim(token, expiresAtSeconds + SINGLE_USE_MARGIN_SECONDS)))
    throw invalidGrant('token already used: each subject token or assertion is accepted once');
}
