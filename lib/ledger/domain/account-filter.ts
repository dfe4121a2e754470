import { ValidationError } from '../../errors/index.js';
import { type FeatureSet, requireFeature } from './features.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from './names.js';

/**
 * The account filters we can serve from keys: an exact address, or an address prefix ending with `:`
 * (`users:` matches `users:1` and `users:1:eur`, not `users`), served by `begins_with` on gsi1's sort key.
 * Anything else (metadata, balances, `$or`, ...) would need a scan or an index we do not keep, so it is
 * refused with 400 (docs/api.md §3.3: never an unbounded scan).
 */
export interface AddressFilter {
  /** The address, or the prefix including its trailing `:`. */
  address: string;
  prefix: boolean;
}

const SEGMENT = /^[a-zA-Z0-9_-]+$/;

/** `metadata[key] = value`, served by the account metadata index (exact value match). */
export interface MetadataFilter {
  metadata: { key: string; value: string };
}

/**
 * `balance[ASSET]` compared with an integer (INDEX_ACCOUNT_BALANCES): inclusive bounds, either may be open.
 * Accounts without a volume in the asset do not match (as in the reference platform).
 */
export interface BalanceFilter {
  balance: { asset: string; min?: bigint; max?: bigint };
}

/**
 * An address pattern with empty segments as wildcards (`users::eur`, `:1`): addresses with exactly as many
 * segments whose fixed segments are equal (INDEX_ADDRESS_SEGMENTS). `null` marks a wildcard.
 */
export interface SegmentFilter {
  segments: Array<string | null>;
}

/** Segments at these positions are indexed; a pattern needs a fixed segment among them. */
export const INDEXED_SEGMENTS = 4;

export type AccountFilter = AddressFilter | MetadataFilter | BalanceFilter | SegmentFilter;

export const isMetadataFilter = (filter: AccountFilter): filter is MetadataFilter =>
  'metadata' in filter;
export const isBalanceFilter = (filter: AccountFilter): filter is BalanceFilter =>
  'balance' in filter;
export const isAddressFilter = (filter: AccountFilter): filter is AddressFilter =>
  'address' in filter && 'prefix' in filter;
export const isSegmentFilter = (filter: AccountFilter): filter is SegmentFilter =>
  'segments' in filter;

/**
 * A segment pattern — segments of a-z A-Z 0-9 _ - or empty, at least one empty before the last — or undefined
 * when the text is not one (an exact address, a `prefix:`, or malformed: addressFilter judges those).
 */
export function segmentFilter(address: string, features: FeatureSet): SegmentFilter | undefined {
  if (address.length > MAX_ADDRESS_LENGTH || !address.includes(':')) return undefined;
  const parts = address.split(':');
  const body = address.endsWith(':') ? parts.slice(0, -1) : parts;
  if (!body.includes('') || !parts.every((p) => p === '' || SEGMENT.test(p))) return undefined;
  requireFeature(features, 'INDEX_ADDRESS_SEGMENTS');
  const segments = parts.map((p) => (p === '' ? null : p));
  if (!segments.slice(0, INDEXED_SEGMENTS).some((p) => p !== null)) {
    throw new ValidationError(
      `query.$match.address: a segment pattern needs a fixed segment among its first ${INDEXED_SEGMENTS}`,
    );
  }
  return { segments };
}

/** An address filter from its text (the `query` parameter or a cursor), checked the same way. */
export function addressFilter(address: string, features: FeatureSet, field: string): AddressFilter {
  if (address.length > MAX_ADDRESS_LENGTH)
    throw new ValidationError(`${field}: must be at most ${MAX_ADDRESS_LENGTH} characters`);
  const prefix = address.endsWith(':');
  const body = prefix ? address.slice(0, -1) : address;
  if (!ACCOUNT_ADDRESS.test(body)) {
    const segments = body.split(':');
    // Empty segments elsewhere (`:1`, `users::eur`) are the reference platform's segment patterns: they
    // would need an index per segment position, which we do not keep.
    if (
      body !== '' &&
      segments.includes('') &&
      segments.every((s) => s === '' || SEGMENT.test(s))
    ) {
      throw new ValidationError(
        `${field}: only an exact address or a prefix ending with ":" is supported, not segment patterns`,
      );
    }
    throw new ValidationError(
      `${field}: must be an account address, or an address prefix ending with ":"`,
    );
  }
  if (prefix) requireFeature(features, 'INDEX_ADDRESS_SEGMENTS');
  return { address, prefix };
}
