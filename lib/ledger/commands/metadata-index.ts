import type { ItemKey } from '../store/keys.js';
import type { Write } from '../store/writer.js';

/**
 * Keeps a metadata index (one item per key/value pair of a target) in step with a change, in the same
 * transaction: items of pairs that went away or changed value are deleted, those of new or changed pairs put.
 * Unchanged pairs cost nothing.
 */
export function metadataIndexWrites(
  table: string,
  before: Record<string, string>,
  after: Record<string, string>,
  keyOf: (key: string, value: string) => ItemKey,
  attributes: Record<string, unknown>,
): Write[] {
  const writes: Write[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (after[key] === value) continue;
    writes.push({ item: { Delete: { TableName: table, Key: keyOf(key, value) } } });
  }
  for (const [key, value] of Object.entries(after)) {
    if (before[key] === value) continue;
    writes.push({ item: { Put: { TableName: table, Item: { ...keyOf(key, value), ...attributes } } } });
  }
  return writes;
}
