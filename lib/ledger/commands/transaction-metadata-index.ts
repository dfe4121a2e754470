import { ledgerKeys } from '../store/keys.js';
import type { Write } from '../store/writer.js';

/**
 * Keeps the transaction metadata index in step, in the same transaction as the change: one item per (key,
 * value, transaction), so `metadata[key] = value` filters read one partition by id. Pairs that went away or
 * changed value are deleted, new or changed ones put; unchanged pairs cost nothing.
 */
export function transactionMetadataIndexWrites(
  table: string,
  ledger: string,
  txId: number,
  before: Record<string, string>,
  after: Record<string, string>,
): Write[] {
  const writes: Write[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (after[key] === value) continue;
    writes.push({ item: { Delete: { TableName: table, Key: ledgerKeys.transactionMetadata(ledger, key, value, txId) } } });
  }
  for (const [key, value] of Object.entries(after)) {
    if (before[key] === value) continue;
    writes.push({ item: { Put: { TableName: table, Item: { ...ledgerKeys.transactionMetadata(ledger, key, value, txId), txId } } } });
  }
  return writes;
}
