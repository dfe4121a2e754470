import { ValidationError } from '../../errors/index.js';
import { MAX_METADATA_KEYS } from '../../validation/common.js';

/** A metadata change: the given keys are set, the others kept, within the platform's bound on keys. */
export function mergeMetadata(
  current: Record<string, string>,
  changes: Record<string, string>,
  what: string,
): Record<string, string> {
  const merged = { ...current, ...changes };
  if (Object.keys(merged).length > MAX_METADATA_KEYS) {
    throw new ValidationError(
      `metadata: the ${what} would have more than ${MAX_METADATA_KEYS} keys`,
    );
  }
  return merged;
}

/** Whether two metadata maps hold the same keys and values. */
export function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k])
  );
}
