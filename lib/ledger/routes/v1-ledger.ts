import type { Context, Handler } from 'hono';
import {
  NotFoundError,
  PayloadTooLargeError,
  PlatformError,
  ValidationError,
} from '../../errors/index.js';
import type { HonoTypes } from '../../http/types.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerRecord } from '../store/registry.js';
import { requestLedger } from './request.js';

/**
 * The ledger of a v1 route (`/<ledger>/...`), in the token's environment (as v2's). Everything under `/v2` belongs
 * to the v2 API, as in the reference's router, so a ledger named `v2` has no v1 routes: `/v2/mapping` is an unknown
 * route, not the mapping of ledger "v2". Unknown ledgers are 404 NOT_FOUND (the reference's v1 created them; v1's
 * error enum has no LEDGER_NOT_FOUND, see v1Errors).
 */
export async function resolveV1Ledger(
  c: Context<HonoTypes>,
  lookup: LedgerLookup,
): Promise<LedgerRecord> {
  if (c.req.param('ledger') === 'v2') throw new NotFoundError('no such route');
  try {
    return await requestLedger(c, lookup);
  } catch (err) {
    throw v1Error(err);
  }
}

/**
 * The v1 error enum (the SDK's ErrorsEnum is closed: INTERNAL, INSUFFICIENT_FUND, VALIDATION, CONFLICT,
 * NO_SCRIPT, COMPILATION_FAILED, METADATA_OVERRIDE, NOT_FOUND, TIMEOUT) lacks some of v2's codes: those failures
 * are answered with the v1 code the reference's v1 API used for them, same status, same message.
 */
export function v1Error(err: unknown): unknown {
  if (!(err instanceof PlatformError)) return err;
  switch (err.kind) {
    case 'ledger_not_found':
      return new NotFoundError(err.message);
    case 'no_postings':
    case 'already_reverted':
      return new ValidationError(err.message);
    case 'bulk_size_exceeded':
      return new PayloadTooLargeError(err.message);
    default:
      return err;
  }
}

/** A v1 route's handler whose failures are answered in v1's error enum. */
export function v1Handler(
  handler: (c: Context<HonoTypes>) => Promise<Response>,
): Handler<HonoTypes> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (err) {
      throw v1Error(err);
    }
  };
}
