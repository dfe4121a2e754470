import type { Context } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,256}$/;

/** The `Idempotency-Key` header, when given: 1-256 printable ASCII characters. */
export function readIdempotencyKey(c: Context): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ValidationError('Idempotency-Key: must be 1-256 printable ASCII characters without spaces');
  return key;
}

/** A transaction id path parameter; anything that cannot be an id is a 404, like an unknown id. */
export function readTransactionId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new NotFoundError(`transaction ${raw.slice(0, 32)} not found`);
  return id;
}

/** An account address path parameter (Hono has already percent-decoded it), validated: a write to a malformed address is a 400. */
export function readAddress(address: string): string {
  if (address.length > MAX_ADDRESS_LENGTH || !ACCOUNT_ADDRESS.test(address)) {
    throw new ValidationError('address: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")');
  }
  return address;
}

/**
 * `pit` (and the reference's `useInsertionDate`/`order` that go with it) is a known parameter of the contract
 * that we do not serve: it gets its own message rather than "unknown" (docs/decisions.md, "Point-in-time reads").
 */
export function refusePointInTime(c: Context): void {
  for (const name of ['pit', 'useInsertionDate', 'order']) {
    if (c.req.query(name) !== undefined) throw new ValidationError(`${name}: point-in-time reads are not supported (see docs/decisions.md)`);
  }
}
