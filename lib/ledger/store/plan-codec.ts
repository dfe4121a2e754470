import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A staged bulk's plan part as stored: its writes as one deflated JSON text instead of a nested attribute. A part
 * repeats the same keys, accounts and attribute names in every write, so it deflates several times over, and
 * DynamoDB reads, writes and bills an item by its size (and DynamoDB Local parses every byte of its JSON). Values
 * keep their JavaScript types across the round trip: bigints, byte arrays and sets are tagged in the text.
 */
export function encodePlanOps(ops: readonly unknown[]): Uint8Array {
  return new Uint8Array(deflateRawSync(JSON.stringify(ops, tagged)));
}

export function decodePlanOps(bytes: Uint8Array): unknown[] {
  return JSON.parse(inflateRawSync(bytes).toString('utf8'), untagged) as unknown[];
}

const BIGINT = '$bigint';
const BYTES = '$bytes';
const SET = '$set';

function tagged(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify hands a replacer what toJSON made of the value; the holder still has the original.
  const original = (this as Record<string, unknown>)[key];
  if (typeof original === 'bigint') return { [BIGINT]: original.toString() };
  if (original instanceof Uint8Array) return { [BYTES]: Buffer.from(original).toString('base64') };
  if (original instanceof Set) return { [SET]: [...original] };
  return value;
}

function untagged(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const tags = Object.keys(value);
  if (tags.length !== 1) return value;
  const inner = (value as Record<string, unknown>)[tags[0]!];
  if (tags[0] === BIGINT && typeof inner === 'string') return BigInt(inner);
  if (tags[0] === BYTES && typeof inner === 'string')
    return new Uint8Array(Buffer.from(inner, 'base64'));
  if (tags[0] === SET && Array.isArray(inner)) return new Set(inner);
  return value;
}
