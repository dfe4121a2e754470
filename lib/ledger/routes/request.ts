import type { Context } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import type { HonoTypes } from '../../http/types.js';
import type { LedgerRecord } from '../domain/change.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';

/**
 * The ledger a `/v2/<ledger>/...` request names, in the environment of its token, and only there: another
 * environment's ledger of the same name is not found (docs/decisions/tenancy.md, "Environments").
 */
export function requestLedger(c: Context<HonoTypes>, lookup: LedgerLookup): Promise<LedgerRecord> {
  return lookup.resolve(environmentOf(c), c.req.param('ledger') ?? '');
}

/** An idempotency key, as a header or a bulk element's `ik`: 1-256 printable ASCII characters, no space. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,256}$/;

/** The `Idempotency-Key` header, when given: 1-256 printable ASCII characters. */
export function readIdempotencyKey(c: Context): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key))
    throw new ValidationError(
      'Idempotency-Key: must be 1-256 printable ASCII characters without spaces',
    );
  return key;
}

/** A transaction id path parameter; anything that cannot be an id is a 404, like an unknown id. */
export function readTransactionId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw new NotFoundError(`transaction ${raw.slice(0, 32)} not found`);
  return id;
}

/** An account address path parameter (Hono has already percent-decoded it), validated: a write to a malformed address is a 400. */
export function readAddress(address: string): string {
  if (address.length > MAX_ADDRESS_LENGTH || !ACCOUNT_ADDRESS.test(address)) {
    throw new ValidationError(
      'address: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
    );
  }
  return address;
}

/**
 * `useInsertionDate` is the reference's parameter of aggregated balances only (`insertionDate` on volumes):
 * elsewhere it reads `pit` on its own clocks (docs/decisions/ledger.md, "Point-in-time reads"), so the parameter gets
 * a message of its own rather than "unknown".
 */
export function refuseInsertionDate(c: Context): void {
  if (c.req.query('useInsertionDate') !== undefined) {
    throw new ValidationError(
      'useInsertionDate: not a parameter of this route (pit reads transactions and accounts by effective time; aggregated balances take useInsertionDate)',
    );
  }
}

/** Names of a request's parameters with values, as a cursor records them. */
export function recordParams(
  params: Record<string, string | undefined>,
  names: readonly string[],
): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => (params[name] !== undefined ? [[name, params[name]]] : [])),
  );
}
