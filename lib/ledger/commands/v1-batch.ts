import type { LedgerRecord } from '../domain/change.js';
import type { Posting } from '../domain/postings.js';
import type { StoredSchema } from '../domain/schema/schema-data.js';
import { applyTransactionSchema } from '../domain/schema/transaction-schema.js';
import type { LedgerWriter } from '../store/writer.js';
import { operationRequest } from './operations.js';

/** One transaction of the v1 batch: the SDK's TransactionData (the routes' v1BatchSchema produces it). */
export interface V1BatchTransaction {
  postings: Posting[];
  reference?: string;
  metadata?: Record<string, string>;
  timestamp?: string;
}

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
