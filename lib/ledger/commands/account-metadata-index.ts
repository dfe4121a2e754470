import { ledgerKeys } from '../store/keys.js';
import type { Write } from '../store/writer.js';
import { metadataIndexWrites } from './metadata-index.js';

/** The account metadata index (one item per key, value and account, by address), kept in step with a change. */
export function accountMetadataIndexWrites(
  table: string,
  ledger: string,
  address: string,
  before: Record<string, string>,
  after: Record<string, string>,
): Write[] {
  return metadataIndexWrites(table, before, after, (key, value) => ({ pk: ledgerKeys.accountMetadataPartition(ledger, key, value), sk: address }), { address });
}
