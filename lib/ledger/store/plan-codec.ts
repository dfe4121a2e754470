import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A staged bulk's plan part as stored: its writes as one deflated JSON text instead of a nested attribute. A part
 * repeats the same keys, accounts and attribute names in every write, so it deflates several times over, and
 * DynamoDB reads, writes and bills an item by its size (and DynamoDB Local parses every byte of its JSON). Values
 * keep their JavaScript types across the round trip: bigints, byte arrays and sets are tagged in the text, and a
 * plain object that would read as a tag (account metadata is the user's: `{"$bigint": "5"}`) is escaped as its
 * entries.
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
const OBJECT = '$object';
const TAGS = new Set([BIGINT, BYTES, SET, OBJECT]);

function tagged(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify hands a replacer what toJSON made of the value; the holder still has the original.
  const original = (this as Record<string, unknown>)[key];
  if (typeof original === 'bigint') return { [BIGINT]: original.toString() };
  if (original instanceof Uint8Array) return { [BYTES]: Buffer.from(original).toString('base64') };
  if (original instanceof Set) return { [SET]: [...original] };
  if (isTagShaped(value)) return { [OBJECT]: Object.entries(value) };
  return value;
}

/** A plain object of one key that is a tag's name: it would be read back as that tag. */
function isTagShaped(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && TAGS.has(keys[0]!);
}

function untagged(_key: string, value: unknown): unknown {
  if (!isTagShaped(value)) return value;
  const tag = Object.keys(value)[0]!;
  const inner = value[tag];
  if (tag === BIGINT && typeof inner === 'string') return BigInt(inner);
  if (tag === BYTES && typeof inner === 'string')
    return new Uint8Array(Buffer.from(inner, 'base64'));
  if (tag === SET && Array.isArray(inner)) return new Set(inner);
  if (tag === OBJECT && Array.isArray(inner)) return Object.fromEntries(inner);
  return value;
}
