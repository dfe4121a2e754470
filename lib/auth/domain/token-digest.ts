import { createHash } from 'node:crypto';

/**
 * SHA-256 of a subject token or assertion, base64url: what the auth table remembers of a token it accepted, so a
 * replay is recognised without the token itself ever being stored.
 */
export const tokenDigest = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('base64url');
