import type { Query } from '../api/client.js';
import { UsageError } from '../errors.js';

/** Addresses, prefixes (`users:`) and segment patterns (`users::eur`): segments of a-z A-Z 0-9 _ -, some empty. */
const ADDRESS_PATTERN = /^[a-zA-Z0-9_-]*(:[a-zA-Z0-9_-]*)*$/;

/** `--address` as the list's `query` (the reference's filter language: `{"$match": {"address": ...}}`). */
export function addressQuery(address: string | undefined): Query {
  if (address === undefined) return {};
  if (address === '' || !ADDRESS_PATTERN.test(address))
    throw new UsageError(`--address: "${address}" is not an address or address pattern`);
  return { query: JSON.stringify({ $match: { address } }) };
}
