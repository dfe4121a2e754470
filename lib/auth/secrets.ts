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

/** Constant-time comparison of a presented secret with a stored digest. */
export function secretMatches(presented: string, storedDigest: string): boolean {
  const a = Buffer.from(digestSecret(presented), 'base64url');
  const b = Buffer.from(storedDigest, 'base64url');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Checks a presented secret against every digest without stopping at the first match. */
export function anySecretMatches(presented: string, digests: readonly string[]): number {
  let found = -1;
  // An unknown client still costs one comparison, so timing does not tell unknown ids from wrong secrets.
  const candidates = digests.length > 0 ? digests : [digestSecret('')];
  candidates.forEach((digest, index) => {
    if (secretMatches(presented, digest) && digests.length > 0 && found === -1) found = index;
  });
  return found;
}

export const lastDigits = (secret: string): string => secret.slice(-4);
