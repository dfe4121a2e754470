/**
 * An item's size as DynamoDB bills it: attribute names plus values (strings in UTF-8 bytes, numbers about one
 * byte per two digits plus one, binaries their length, maps and lists 3 bytes plus their members, 1 byte per
 * member of a list). Capacity units follow from it: a write unit per started KB, a strongly consistent read unit
 * per started 4 KB, both doubled inside a transaction.
 */

export function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/^-/, '').replace('.', '').length;
    return Math.ceil(digits / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object') return 3 + attributesBytes(value as Record<string, unknown>);
  return 0;
}

function attributesBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return bytes;
}

export const itemBytes = (item: Record<string, unknown>): number => attributesBytes(item);

export const writeUnits = (bytes: number, transactional: boolean): number =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);

export const readUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 4096));
