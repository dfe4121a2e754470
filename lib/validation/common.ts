import * as v from 'valibot';

/** Printable text: no control characters (they break logs and headers), bounded length. */
export const boundedText = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters'),
  );

export const nonEmptyText = (max: number) => v.pipe(boundedText(max), v.minLength(1, 'must not be empty'));

/** v2 metadata: a flat map of string to string with bounded size. */
export const MAX_METADATA_KEYS = 64;
export const metadataMap = v.pipe(
  // valibot's record would take an array as an object keyed "0", "1", ...: refuse arrays first.
  v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object of string values'),
  v.record(
    v.pipe(v.string(), v.minLength(1, 'metadata keys must not be empty'), v.maxLength(256, 'metadata keys must be at most 256 characters')),
    v.pipe(v.string('metadata values must be strings'), v.maxLength(4096, 'metadata values must be at most 4096 characters')),
    'must be an object of string values',
  ),
  v.check((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `must have at most ${MAX_METADATA_KEYS} keys`),
);
