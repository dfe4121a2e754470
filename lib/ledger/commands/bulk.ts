import * as v from 'valibot';
import { metadataMap } from '../../validation/common.js';
import type { WriteSchema } from '../domain/schema/transaction-schema.js';
import { addressSchema, createTransactionSchema } from './create-transaction.js';
import type { MetadataTarget } from './metadata.js';
import type { LedgerOperation } from './operations.js';
import { revertBodySchema } from './revert-transaction.js';

/** docs/api.md §3.2: more than this many elements → 413 BULK_SIZE_EXCEEDED. */
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

/** An element as validated, with the schema version it is written under (a create's template resolved). */
export type BulkElement = v.InferOutput<typeof bulkElementSchema> & { schema?: WriteSchema };

export const toId = (value: bigint | number | string): number => Number(value);

/** A bulk element as the operation a single request would ask for (bulk elements have no dry run). */
export function operationOf(element: BulkElement): LedgerOperation {
  const ik = element.ik !== undefined ? { idempotencyKey: element.ik } : {};
  switch (element.action) {
    case 'CREATE_TRANSACTION':
      return {
        kind: 'create',
        input: element.data,
        options: {
          dryRun: false,
          force: false,
          ...ik,
          ...(element.schema ? { schema: element.schema } : {}),
        },
      };
    case 'ADD_METADATA':
      return {
        kind: 'metadata',
        target: target(element.data),
        change: { kind: 'save', metadata: element.data.metadata },
        options: { dryRun: false, ...ik, ...(element.schema ? { schema: element.schema } : {}) },
      };
    case 'DELETE_METADATA':
      return {
        kind: 'metadata',
        target: target(element.data),
        change: { kind: 'delete', key: element.data.key },
        options: { dryRun: false, ...ik, ...(element.schema ? { schema: element.schema } : {}) },
      };
    case 'REVERT_TRANSACTION':
      return {
        kind: 'revert',
        id: toId(element.data.id),
        body: element.data.metadata ? { metadata: element.data.metadata } : {},
        options: {
          force: element.data.force === true,
          atEffectiveDate: element.data.atEffectiveDate === true,
          dryRun: false,
          ...ik,
          ...(element.schema ? { schemaVersion: element.schema.version } : {}),
        },
      };
  }
}

function target(
  data:
    | { targetType: 'ACCOUNT'; targetId: string }
    | { targetType: 'TRANSACTION'; targetId: bigint | number | string },
): MetadataTarget {
  return data.targetType === 'ACCOUNT'
    ? { type: 'ACCOUNT', address: data.targetId }
    : { type: 'TRANSACTION', id: toId(data.targetId) };
}
