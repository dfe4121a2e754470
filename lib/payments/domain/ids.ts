import { createHash, randomUUID } from 'node:crypto';
import { ValidationError } from '../../errors/index.js';

/**
 * A deterministic id: base64url (no padding) of SHA-256 over `<scheme>:` and the JSON array of the parts that make
 * the record unique. JSON string encoding is injective, so distinct tuples never share a preimage; the scheme
 * keeps two kinds of record (and two versions of a scheme) apart.
 */
export function hashedId(scheme: string, parts: readonly string[]): string {
  return createHash('sha256')
    .update(`${scheme}:${JSON.stringify(parts)}`)
    .digest('base64url');
}

/** 32 bytes in base64url: 43 characters, the last one carrying 4 bits (so only 16 letters can end an id). */
const HASHED_ID = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
export const isHashedId = (raw: string): boolean => HASHED_ID.test(raw);

/** Records created through the API alone (bank accounts, users, pools) get a random UUID, as in the reference. */
export const newRecordId = (): string => randomUUID();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path or body id that must be a UUID: anything else is a 400, as in the reference, and is never read. */
export function requireUuid(raw: string, field: string): string {
  if (!UUID.test(raw)) throw new ValidationError(`${field}: must be a UUID`);
  return raw.toLowerCase();
}
