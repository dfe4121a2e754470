import { ledgerKeys } from '../store/keys.js';
import type { Write } from '../store/writer.js';
import { metadataIndexWrites } from './metadata-index.js';

/**
 * The transaction metadata index (one item per key, value and transaction, by id: `metadata[key] = value`
 * filters read one partition), kept in step with a change.
 */
export function transactionMetadataIndexWrites(
  table: string,
  ledger: string,
  txId: number,
  before: Record<string, string>,
  after: Record<string, string>,
): Write[] {
  return metadataIndexWrites(table, before, after, (key, value) => ledgerKeys.transactionMetadata(ledger, key, value, txId), { txId });
}
