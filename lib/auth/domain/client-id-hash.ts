import { createHash } from 'node:crypto';

/**
 * SHA-256 of a presented client id, base64url, first 22 characters (132 bits): a fixed-size stand-in for an id
 * that may be anything — over-long, hostile, or a secret sent in the wrong field. Used in throttle keys and in
 * the token endpoint's log line before the id has authenticated.
 */
export function hashedClientId(clientId: string): string {
  return createHash('sha256').update(clientId, 'utf8').digest('base64url').slice(0, 22);
}
