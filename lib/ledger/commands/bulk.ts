import type { WriteSchema } from '../domain/schema/transaction-schema.js';
import type { CreateTransactionInput } from './create-transaction.js';
import type { MetadataTarget } from './metadata.js';
import type { LedgerOperation } from './operations.js';
import type { RevertBody } from './revert-transaction.js';

/** docs/api.md §3.2: more than this many elements → 413 BULK_SIZE_EXCEEDED. */
export const MAX_BULK_ELEMENTS = 100;

/** A transaction id as a bulk element may give it: a JSON integer or a string of digits. */
type BulkId = bigint | number | string;
type BulkTarget =
  | { targetType: 'ACCOUNT'; targetId: string }
  | { targetType: 'TRANSACTION'; targetId: BulkId };

/** A bulk element as its request gives it (the routes' bulkElementSchema produces it: routes/bulk-requests.ts). */
export type BulkElementInput = { ik?: string } & (
  | { action: 'CREATE_TRANSACTION'; data: CreateTransactionInput }
  | { action: 'ADD_METADATA'; data: BulkTarget & { metadata: Record<string, string> } }
  | { action: 'DELETE_METADATA'; data: BulkTarget & { key: string } }
  | {
      action: 'REVERT_TRANSACTION';
      data: { id: BulkId; force?: boolean; atEffectiveDate?: boolean } & RevertBody;
    }
);

/** An element as validated, with the schema version it is written under (a create's template resolved). */
export type BulkElement = BulkElementInput & { schema?: WriteSchema };

export const toId = (value: BulkId): number => Number(value);

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

function target(data: BulkTarget): MetadataTarget {
  return data.targetType === 'ACCOUNT'
    ? { type: 'ACCOUNT', address: data.targetId }
    : { type: 'TRANSACTION', id: toId(data.targetId) };
}
