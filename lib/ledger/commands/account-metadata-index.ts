import { ledgerKeys } from '../store/keys.js';
import type { Write } from '../store/writer.js';

/**
 * Keeps the account metadata index in step with a metadata change, in the same transaction: the items of pairs
 * that went away or changed value are deleted, those of new or changed pairs put. Unchanged pairs cost nothing.
 */
export function accountMetadataIndexWrites(
  table: string,
  ledger: string,
  address: string,
  before: Record<string, string>,
  after: Record<string, string>,
): Write[] {
  const writes: Write[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (after[key] === value) continue;
    writes.push({ item: { Delete: { TableName: table, Key: { pk: ledgerKeys.accountMetadataPartition(ledger, key, value), sk: address } } } });
  }
  for (const [key, value] of Object.entries(after)) {
    if (before[key] === value) continue;
    writes.push({ item: { Put: { TableName: table, Item: { pk: ledgerKeys.accountMetadataPartition(ledger, key, value), sk: address, address } } } });
  }
  return writes;
}
