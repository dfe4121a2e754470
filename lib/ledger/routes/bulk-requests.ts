import * as v from 'valibot';
import { metadataMap } from '../../validation/common.js';
import type { BulkElementInput } from '../commands/bulk.js';
import { IDEMPOTENCY_KEY } from './request.js';
import { addressSchema, createTransactionSchema, revertBodySchema } from './write-requests.js';

/** One element of POST /v2/<ledger>/_bulk (docs/api.md §3.2): it produces the commands' BulkElementInput. */

const NOT_AN_ID = 'must be a transaction id';
const idSchema = v.union(
  [
    v.bigint(),
    v.pipe(v.number(), v.integer(NOT_AN_ID)),
    v.pipe(v.string(), v.regex(/^\d{1,15}$/, NOT_AN_ID)),
  ],
  NOT_AN_ID,
);

const targetSchema = v.variant('targetType', [
  v.object({ targetType: v.literal('ACCOUNT'), targetId: addressSchema }),
  v.object({ targetType: v.literal('TRANSACTION'), targetId: idSchema }),
]);

/** An element's key: the same form as the `Idempotency-Key` header's. */
const ik = v.optional(
  v.pipe(v.string(), v.regex(IDEMPOTENCY_KEY, 'must be 1-256 printable ASCII characters')),
);

export const bulkElementSchema = v.variant(
  'action',
  [
    v.strictObject({ action: v.literal('CREATE_TRANSACTION'), ik, data: createTransactionSchema }),
    v.strictObject({
      action: v.literal('ADD_METADATA'),
      ik,
      data: v.intersect([targetSchema, v.object({ metadata: metadataMap })]),
    }),
    v.strictObject({
      action: v.literal('DELETE_METADATA'),
      ik,
      data: v.intersect([targetSchema, v.object({ key: v.pipe(v.string(), v.minLength(1)) })]),
    }),
    v.strictObject({
      action: v.literal('REVERT_TRANSACTION'),
      ik,
      data: v.object({
        id: idSchema,
        force: v.optional(v.boolean()),
        atEffectiveDate: v.optional(v.boolean()),
        ...revertBodySchema.entries,
      }),
    }),
  ],
  'action must be one of CREATE_TRANSACTION, ADD_METADATA, DELETE_METADATA, REVERT_TRANSACTION',
) satisfies v.GenericSchema<unknown, BulkElementInput>;
