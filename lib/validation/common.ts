import * as v from 'valibot';
import { keyedRecord } from './record.js';

/** Printable text: no control characters (they break logs and headers), bounded length. */
export const boundedText = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters'),
  );

export const nonEmptyText = (max: number) =>
  v.pipe(boundedText(max), v.minLength(1, 'must not be empty'));

/** v2 metadata: a flat map of string to string with bounded size. Every key is kept, `__proto__` included. */
export const MAX_METADATA_KEYS = 64;
export const MAX_METADATA_KEY_LENGTH = 256;
export const metadataMap = v.pipe(
  keyedRecord(
    v.pipe(
      v.string(),
      v.minLength(1, 'metadata keys must not be empty'),
      v.maxLength(
        MAX_METADATA_KEY_LENGTH,
        `metadata keys must be at most ${MAX_METADATA_KEY_LENGTH} characters`,
      ),
    ),
    v.pipe(
      v.string('metadata values must be strings'),
      v.maxLength(4096, 'metadata values must be at most 4096 characters'),
    ),
    'must be an object of string values',
  ),
  v.check(
    (m) => Object.keys(m).length <= MAX_METADATA_KEYS,
    `must have at most ${MAX_METADATA_KEYS} keys`,
  ),
);
