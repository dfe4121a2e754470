import * as v from 'valibot';
import type { LedgerRecord } from '../domain/change.js';
import type { StoredSchema } from '../domain/schema/schema-data.js';
import { applyTransactionSchema } from '../domain/schema/transaction-schema.js';
import type { LedgerWriter } from '../store/writer.js';
import { MAX_BULK_ELEMENTS } from './bulk.js';
import { createTransactionSchema } from './create-transaction.js';
import { operationRequest } from './operations.js';

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
      }),
      'must be an array of transactions',
    ),
    v.minLength(1, 'must hold at least one transaction'),
    v.maxLength(MAX_BULK_ELEMENTS, `must hold at most ${MAX_BULK_ELEMENTS} transactions`),
  ),
});

export type V1BatchTransaction = v.InferOutput<typeof v1BatchSchema>['transactions'][number];

/**
 * The v1 batch (the SDK's createTransactions): every transaction created in one commit, or none — the v2 atomic
 * bulk's write, without its other actions. Answers each transaction's result, in order.
 */
export async function createTransactionsAtomically(
  ledger: LedgerRecord,
  transactions: readonly V1BatchTransaction[],
  writer: Pick<LedgerWriter, 'writeAtomic'>,
  schema?: StoredSchema,
): Promise<unknown[]> {
  const requests = await Promise.all(
    transactions.map((body) => {
      const { input, schema: applied } = applyTransactionSchema(body, schema);
      return operationRequest(
        ledger,
        {
          kind: 'create',
          input,
          options: { dryRun: false, force: false, ...(applied ? { schema: applied } : {}) },
        },
        async () => undefined,
      );
    }),
  );
  const outcomes = await writer.writeAtomic(ledger, requests);
  return outcomes.map((o) => o.result);
}
