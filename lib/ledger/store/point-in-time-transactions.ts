import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LedgerRecord } from '../domain/change.js';
import { isEnabled } from '../domain/features.js';
import { changedAfter, metadataAt, transactionAt } from '../domain/point-in-time.js';
import { metadataHistoryAt } from './metadata-history.js';
import type { StoredTransaction } from './transaction-pages.js';

/**
 * Transactions as they stood at a point in time: metadata from its revisions (TRANSACTION_METADATA_HISTORY;
 * without it the current metadata, as the reference shows), `reverted` only by a revert written by then. Volumes
 * are the transaction's own and do not change. A transaction not changed since the point in time is read
 * nothing more; one changed since costs one Query of its revisions.
 */
export async function transactionsAtPointInTime(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRecord,
  transactions: readonly StoredTransaction[],
  pit: string,
): Promise<StoredTransaction[]> {
  const history = isEnabled(ledger.features, 'TRANSACTION_METADATA_HISTORY');
  return Promise.all(
    transactions.map(async (stored) => {
      const { tx } = stored;
      const metadata =
        history && changedAfter(tx.updatedAt, pit)
          ? metadataAt(
              tx.metadata,
              await metadataHistoryAt(doc, table, ledger, { type: 'TRANSACTION', id: tx.id }, pit),
            )
          : tx.metadata;
      return { ...stored, tx: transactionAt(tx, pit, metadata) };
    }),
  );
}
