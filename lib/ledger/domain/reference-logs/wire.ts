import * as v from 'valibot';

/**
 * One line of the reference platform's v2 log export (`POST /v2/{ledger}/logs/export`): Go's json.Encoder writes
 * each Log as one JSON object and a newline. Fields it writes that the migration does not need (idempotencyHash,
 * the transactions' volumes, insertedAt...) are ignored, not refused. docs/decisions/ledger.md, "Migrating from the
 * reference ledger", has the whole form.
 */
const metadata = v.nullish(v.record(v.string(), v.string('metadata values must be strings')));
const txId = v.pipe(v.bigint('must be an integer'), v.minValue(0n, 'must be at least 0'));
const posting = v.object({
  source: v.string(),
  destination: v.string(),
  amount: v.pipe(v.bigint('must be an integer'), v.minValue(0n, 'must not be negative')),
  asset: v.string(),
});
const referenceTransaction = v.object({
  postings: v.array(posting),
  metadata,
  timestamp: v.string('must be a date-time string'),
  reference: v.optional(v.string()),
  id: txId,
});
export type ReferenceTransaction = v.InferOutput<typeof referenceTransaction>;

export const referenceLogLine = v.object({
  type: v.string('must be a string'),
  data: v.record(v.string(), v.unknown(), 'must be an object'),
  date: v.string('must be a date-time string'),
  idempotencyKey: v.nullish(v.string('must be a string'), ''),
  id: v.pipe(v.bigint('must be an integer'), v.minValue(0n, 'must be at least 0')),
  hash: v.nullish(v.string('must be a base64 string')),
  schemaVersion: v.optional(v.string()),
});
export type ReferenceLogLine = v.InferOutput<typeof referenceLogLine>;

const target = v.variant('targetType', [
  v.object({ targetType: v.literal('ACCOUNT'), targetId: v.string('must be an address') }),
  v.object({ targetType: v.literal('TRANSACTION'), targetId: txId }),
]);

/** The `data` of each log type the migration maps, as the reference writes it. */
export const referencePayloads = {
  NEW_TRANSACTION: v.object({
    transaction: referenceTransaction,
    accountMetadata: v.nullish(v.record(v.string(), metadata)),
  }),
  REVERTED_TRANSACTION: v.object({
    revertedTransaction: referenceTransaction,
    transaction: referenceTransaction,
  }),
  SET_METADATA: v.intersect([target, v.object({ metadata })]),
  DELETE_METADATA: v.intersect([target, v.object({ key: v.string() })]),
};
export type ReferenceLogType = keyof typeof referencePayloads;
export type ReferencePayload<T extends ReferenceLogType> = v.InferOutput<
  (typeof referencePayloads)[T]
>;
