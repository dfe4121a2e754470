import { NotFoundError } from '../../errors/index.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerRecord } from '../store/registry.js';

/**
 * The ledger of a v1 route (`/<ledger>/...`). Everything under `/v2` belongs to the v2 API, as in the
 * reference's router, so a ledger named `v2` has no v1 routes: `/v2/mapping` is an unknown route, not the
 * mapping of ledger "v2". Unknown ledgers are 404 LEDGER_NOT_FOUND like v2 (the reference's v1 created them).
 */
export async function resolveV1Ledger(lookup: LedgerLookup, name: string): Promise<LedgerRecord> {
  if (name === 'v2') throw new NotFoundError('no such route');
  return lookup.resolve(name);
}
