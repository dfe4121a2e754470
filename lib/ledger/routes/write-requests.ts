import * as v from 'valibot';
import { ledgerAmountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { signedAmountSchema } from '../../money/signed-amount.js';
import { metadataMap } from '../../validation/common.js';
import { keyedRecord } from '../../validation/record.js';
import { MAX_BULK_ELEMENTS } from '../commands/bulk.js';
import type { CreateTransactionInput } from '../commands/create-transaction.js';
import type { RevertBody } from '../commands/revert-transaction.js';
import type { V1BatchTransaction } from '../commands/v1-batch.js';
import { type Expectation, MAX_EXPECTATIONS } from '../domain/expectations.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { MAX_POSTINGS } from '../domain/postings.js';
import { MAX_REFERENCE_LENGTH } from '../domain/transaction.js';

/**
 * The bodies of the ledger's transaction writes (docs/api.md §3): create (v2 and v1), revert, the v1 batch, and the
 * `expect` every write may carry. Each produces the command's input type (commands/create-transaction.ts,
 * revert-transaction.ts, v1-batch.ts).
 */

/** A script's text, at most (the interpreter's own limit). */
const SCRIPT_MAX_BYTES = 512 * 1024;

export const addressSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
  v.regex(
    ACCOUNT_ADDRESS,
    'must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
  ),
);
const assetSchema = v.pipe(
  v.string('must be a string'),
  v.regex(ASSET, 'must be an asset such as USD, USD/2 or EUR_COL/12'),
);

const postingSchema = v.strictObject({
  source: addressSchema,
  destination: addressSchema,
  amount: ledgerAmountSchema,
  asset: assetSchema,
});

const comparisons = v.pipe(
  v.strictObject({
    $eq: v.optional(signedAmountSchema),
    $ne: v.optional(signedAmountSchema),
    $gt: v.optional(signedAmountSchema),
    $gte: v.optional(signedAmountSchema),
    $lt: v.optional(signedAmountSchema),
    $lte: v.optional(signedAmountSchema),
  }),
  v.check(
    (c) => Object.keys(c).length > 0,
    'must hold at least one of $eq, $ne, $gt, $gte, $lt, $lte',
  ),
);

const expectationSchema = v.pipe(
  v.strictObject({
    account: v.pipe(
      v.string('must be a string'),
      v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
      v.regex(ACCOUNT_ADDRESS, 'must be an account address'),
    ),
    asset: v.pipe(
      v.string('must be a string'),
      v.regex(ASSET, 'must be an asset such as USD or USD/2'),
    ),
    at: v.optional(v.picklist(['before', 'after'], 'must be before or after')),
    balance: v.optional(comparisons),
    input: v.optional(comparisons),
    output: v.optional(comparisons),
  }),
  v.check(
    (e) => e.balance !== undefined || e.input !== undefined || e.output !== undefined,
    'must compare at least one of balance, input, output',
  ),
);

/** `expect` on a write's body (docs/api.md §3.6). */
const expectationsSchema = v.pipe(
  v.array(expectationSchema, 'must be an array of expectations'),
  v.maxLength(MAX_EXPECTATIONS, `must have at most ${MAX_EXPECTATIONS} expectations`),
) satisfies v.GenericSchema<unknown, Expectation[]>;

/** A write's body schema with `expect` beside its own fields (the pending bodies: pending-schemas.ts). */
export function withExpect<TEntries extends v.ObjectEntries>(
  body: v.StrictObjectSchema<TEntries, undefined>,
) {
  return v.strictObject({ ...body.entries, expect: v.optional(expectationsSchema) });
}

/** The body of POST /v2/<ledger>/transactions (and v1's). */
export const createTransactionSchema = v.strictObject({
  postings: v.optional(
    v.pipe(
      v.array(postingSchema, 'must be an array of postings'),
      v.maxLength(MAX_POSTINGS, `must have at most ${MAX_POSTINGS} postings`),
    ),
  ),
  script: v.optional(
    v.strictObject({
      plain: v.optional(
        v.pipe(
          v.string('must be a string'),
          v.maxLength(SCRIPT_MAX_BYTES, `must be at most ${SCRIPT_MAX_BYTES} characters`),
        ),
      ),
      /** A transaction template of the schema version the write names (`schemaVersion`): its Numscript runs. */
      template: v.optional(
        v.pipe(
          v.string('must be a string'),
          v.regex(/^[0-9A-Za-z_-]{1,128}$/, 'must be a template id'),
        ),
      ),
      vars: v.optional(keyedRecord(v.string(), v.unknown(), 'must map variable names to values')),
    }),
  ),
  /** The reference's choice of Numscript runtime: one interpreter serves both here. */
  runtime: v.optional(
    v.picklist(
      ['experimental-interpreter', 'machine'],
      'must be experimental-interpreter or machine',
    ),
  ),
  metadata: v.optional(metadataMap),
  reference: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.minLength(1, 'must not be empty'),
      v.maxLength(MAX_REFERENCE_LENGTH, `must be at most ${MAX_REFERENCE_LENGTH} characters`),
    ),
  ),
  timestamp: v.optional(v.string('must be an RFC 3339 date-time string')),
  accountMetadata: v.optional(
    keyedRecord(addressSchema, metadataMap, 'must map account addresses to metadata'),
  ),
  force: v.optional(v.boolean('must be a boolean')),
  /** Balance preconditions (docs/api.md §3.6): an extension the reference's SDK never sends. */
  expect: v.optional(expectationsSchema),
}) satisfies v.GenericSchema<unknown, CreateTransactionInput>;

/** The body of POST /v2/<ledger>/transactions/<id>/revert (optional). */
export const revertBodySchema = v.strictObject({
  metadata: v.optional(metadataMap),
  /** Balance preconditions (docs/api.md §3.6): an extension the reference's SDK never sends. */
  expect: v.optional(expectationsSchema),
}) satisfies v.GenericSchema<unknown, RevertBody>;

/** The v1 batch body: its elements are the SDK's TransactionData (postings, optional reference, metadata, timestamp). */
export const v1BatchSchema = v.strictObject({
  transactions: v.pipe(
    v.array(
      v.strictObject({
        postings: v.pipe(
          createTransactionSchema.entries.postings.wrapped,
          v.minLength(1, 'must hold at least one posting'),
        ),
        reference: createTransactionSchema.entries.reference,
        metadata: createTransactionSchema.entries.metadata,
        timestamp: createTransactionSchema.entries.timestamp,
      }) satisfies v.GenericSchema<unknown, V1BatchTransaction>,
      'must be an array of transactions',
    ),
    v.minLength(1, 'must hold at least one transaction'),
    v.maxLength(MAX_BULK_ELEMENTS, `must hold at most ${MAX_BULK_ELEMENTS} transactions`),
  ),
});
