import * as v from 'valibot';
import { metadataMap } from '../../validation/common.js';
import { addressSchema, createTransactionSchema } from './create-transaction.js';
import { revertBodySchema } from './revert-transaction.js';

/** API.md §3.2: more than this many elements → 413 BULK_SIZE_EXCEEDED. */
export const MAX_BULK_ELEMENTS = 100;

const targetSchema = v.variant('targetType', [
  v.object({ targetType: v.literal('ACCOUNT'), targetId: addressSchema }),
  v.object({
    targetType: v.literal('TRANSACTION'),
    targetId: v.union(
      [v.bigint(), v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.regex(/^\d{1,15}$/))],
      'must be a transaction id',
    ),
  }),
]);

const idSchema = v.union(
  [v.bigint(), v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.regex(/^\d{1,15}$/))],
  'must be a transaction id',
);
const ik = v.optional(
  v.pipe(v.string(), v.regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 printable ASCII characters')),
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
);

export type BulkElement = v.InferOutput<typeof bulkElementSchema>;

export const toId = (value: bigint | number | string): number => Number(value);
