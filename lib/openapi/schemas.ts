import * as v from 'valibot';

/**
 * Response shapes every service shares (docs/api.md §1). Response schemas are for the document and the tests that
 * hold real answers against it: objects are strict, so a field the document does not know fails them.
 */

/** `{errorCode, errorMessage, details?}`: every error of the contract (the OAuth endpoints excepted). */
export const errorSchema = v.strictObject({
  errorCode: v.pipe(
    v.string(),
    v.description('Machine-readable code (docs/api.md §1.1), e.g. `VALIDATION`.'),
  ),
  errorMessage: v.pipe(v.string(), v.description('What went wrong, for a person.')),
  details: v.optional(v.string()),
});

/** `{data: <record>}`. */
export function dataOf<T extends v.GenericSchema>(record: T) {
  return v.strictObject({ data: record });
}

/** `{cursor: {pageSize, hasMore, previous?, next?, data: [...]}}`. */
export function cursorOf<T extends v.GenericSchema>(item: T) {
  return v.strictObject({
    cursor: v.strictObject({
      pageSize: v.pipe(v.number(), v.integer()),
      hasMore: v.boolean(),
      previous: v.optional(v.string()),
      next: v.optional(v.string()),
      data: v.array(item),
    }),
  });
}

/** RFC 3339 in UTC (docs/api.md §1, "Dates"). */
export const dateTime = v.pipe(v.string(), v.isoTimestamp());

/** An exact integer, written as a bare JSON number (a string with `Formance-Bigint-As-String`). */
export const bigInteger = v.pipe(
  v.number(),
  v.integer(),
  v.description(
    'Exact integer (ledger amounts up to 300 digits, payments up to 38): a JSON number, or a decimal string when the request has `Formance-Bigint-As-String: true`.',
  ),
);

/** v2 metadata: string to string. */
export const metadataView = v.record(v.string(), v.string());

/** `GET /api/<service>/_info` of auth, webhooks and payments: the reference's ServerInfo. */
export const serverInfoSchema = v.strictObject({ version: v.string() });

/** `GET /versions`: every service with its version and health. */
export const versionsSchema = v.strictObject({
  env: v.string(),
  region: v.string(),
  versions: v.array(v.strictObject({ name: v.string(), version: v.string(), health: v.boolean() })),
});

export const versionsSchemas = { Versions: versionsSchema };
