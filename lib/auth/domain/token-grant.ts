import { OAuthError } from './oauth-error.js';

/**
 * What a client-credentials token grants, as rules over plain values: which id is worth a lookup, which scopes
 * and audience the token carries, for how long, and when a secret's use is worth recording.
 */

/** A presented id that could never be a client (control characters, empty, over-long): no lookup is made. */
const PLAUSIBLE_CLIENT_ID = /^[^\u0000-\u001f\u007f]{1,256}$/u;

export const isPlausibleClientId = (clientId: string): boolean =>
  PLAUSIBLE_CLIENT_ID.test(clientId);

/** The scopes asked for (every one of the client's when none was), and those of them the client lacks. */
export function scopeGrant(
  requested: readonly string[],
  clientScopes: readonly string[],
): { granted: readonly string[]; refused: string[] } {
  const granted = requested.length === 0 ? clientScopes : requested;
  return { granted, refused: granted.filter((s) => !clientScopes.includes(s)) };
}

export const scopeRefused = (refused: readonly string[]) =>
  new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);

/**
 * The token's `aud`: the platform's audience unless a resource (RFC 8707) was asked for, which must be an
 * absolute URI without fragment and one this server issues tokens for.
 */
export function audienceFor(
  resource: string | undefined,
  audience: string,
  allowedResources: ReadonlySet<string>,
): string {
  if (resource === undefined) return audience;
  let url: URL | undefined;
  try {
    url = new URL(resource);
  } catch {
    url = undefined;
  }
  if (!url || resource.includes('#') || !allowedResources.has(resource)) {
    throw new OAuthError(
      'invalid_target',
      'resource is not a resource this server issues tokens for',
    );
  }
  return resource;
}

/** `lastUsedAt` is written at most this often per secret, so a busy client does not pay a write per token. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Whether a secret last used at `lastUsedAt` (ISO) should have its use recorded again at `nowMs`. */
export const lastUseWorthRecording = (lastUsedAt: string | undefined, nowMs: number): boolean =>
  lastUsedAt === undefined || nowMs - Date.parse(lastUsedAt) >= LAST_USED_RESOLUTION_MS;

/**
 * The scopes of a token issued to a person: those of their role, or the ones asked for, each of which the role
 * must allow (asking for more is `invalid_scope`, never a silent narrowing).
 */
export function personScopes(
  requested: readonly string[],
  roleScopes: readonly string[],
): readonly string[] {
  const { granted, refused } = scopeGrant(requested, roleScopes);
  if (refused.length > 0)
    throw new OAuthError('invalid_scope', `scope not allowed for this role: ${refused.join(' ')}`);
  return granted;
}
