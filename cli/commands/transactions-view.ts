import type { Run } from '../kit.js';
import { formatMetadata, formatPosting, type PostingView } from '../output/format.js';

export interface TransactionView {
  id: bigint;
  timestamp: string;
  reference?: string;
  reverted?: boolean;
  postings: PostingView[];
  metadata: Record<string, string>;
}

/** Transactions as a table, one row per posting (the transaction's own columns on its first row). */
export function printTransactions(
  run: Run<unknown>,
  transactions: readonly TransactionView[],
): void {
  const rows = transactions.flatMap((tx) =>
    (tx.postings.length > 0 ? tx.postings : [undefined]).map((posting, i) => ({
      tx,
      posting,
      first: i === 0,
    })),
  );
  run.table(
    [
      { header: 'id', value: (r) => (r.first ? String(r.tx.id) : ''), align: 'right' },
      { header: 'timestamp', value: (r) => (r.first ? r.tx.timestamp : '') },
      { header: 'posting', value: (r) => (r.posting ? formatPosting(r.posting) : '') },
      { header: 'reference', value: (r) => (r.first ? (r.tx.reference ?? '') : '') },
      {
        header: 'metadata',
        value: (r) =>
          r.first ? formatMetadata(r.tx.metadata) + (r.tx.reverted ? ' (reverted)' : '') : '',
      },
    ],
    rows,
    'no transactions',
  );
}
