import { INDEXED_SEGMENTS } from '../domain/account-filter.js';
import { isEnabled, type FeatureSet } from '../domain/features.js';
import { ledgerKeys } from '../store/keys.js';
import type { Write } from '../store/writer.js';

/**
 * Index items of a new account's address (INDEX_ADDRESS_SEGMENTS ON): one per segment among the first
 * INDEXED_SEGMENTS, each holding every segment so a pattern's other fixed segments filter within the partition.
 * Written once, when the account is created (an address never changes).
 */
export function addressSegmentIndexWrites(table: string, ledger: string, address: string, features: FeatureSet): Write[] {
  if (!isEnabled(features, 'INDEX_ADDRESS_SEGMENTS')) return [];
  const segments = address.split(':');
  return segments.slice(0, INDEXED_SEGMENTS).map((segment, position) => ({
    item: {
      Put: {
        TableName: table,
        Item: { pk: ledgerKeys.addressSegmentPartition(ledger, segments.length, position, segment), sk: address, address, segments },
      },
    },
  }));
}
