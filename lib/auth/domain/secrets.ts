import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Generated client secrets: a scannable prefix and 256 bits of randomness, URL-safe characters only. */
export const SECRET_PREFIX = 'cs_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Secrets are stored only as SHA-256 digests. Generated secrets carry 256 bits of entropy, so a fast hash is
 * enough (NIST SP 800-63B lets high-entropy verifier-generated secrets skip a slow KDF) and keeps the token
 * endpoint cheap.
 */
export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

const DUMMY_DIGEST = digestSecret('');

/**
 * Index of the stored digest the presented secret matches, or -1. Every digest is compared in constant time
 * and the loop never stops early; an unknown client (no digests) still pays one comparison, so timing tells
 * neither which secret matched nor whether the client exists.
 */
export function findMatchingSecret(presented: string, digests: readonly string[]): number {
  const candidate = Buffer.from(digestSecret(presented), 'base64url');
  const equal = (digest: string) => {
    const stored = Buffer.from(digest, 'base64url');
    return stored.length === candidate.length && timingSafeEqual(stored, candidate);
  };
  if (digests.length === 0) {
    equal(DUMMY_DIGEST);
    return -1;
  }
  let found = -1;
  digests.forEach((digest, index) => {
    if (equal(digest) && found === -1) found = index;
  });
  return found;
}

export const lastDigits = (secret: string): string => secret.slice(-4);
