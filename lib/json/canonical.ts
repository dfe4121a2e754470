import { stringifyJson } from './bigint-json.js';

/**
 * Canonical JSON for hashing: object keys sorted at every depth, big integers as bare numbers, no spaces.
 * The same value gives the same text however its maps were ordered when stored and read back.
 */
export function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
