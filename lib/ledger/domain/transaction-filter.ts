/**
 * The index a transaction list reads through (chosen by domain/query/transaction-query.ts, or by v1's
 * parameters): the per-account moves (INDEX_TRANSACTION_ACCOUNTS), the reference item, the metadata index
 * items (exact value), or gsi1 by timestamp.
 */
export type TransactionFilter =
  | { kind: 'account'; address: string; role: 'any' | 'source' | 'destination' }
  | { kind: 'reference'; reference: string }
  | { kind: 'metadata'; key: string; value: string }
  | { kind: 'time'; from?: Bound; to?: Bound };

export interface Bound {
  /** Sortable instant (see domain/time.ts). */
  at: string;
  inclusive: boolean;
}
