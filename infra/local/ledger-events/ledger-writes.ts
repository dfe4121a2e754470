import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** One item the platform's process wrote to a ledger table, told after DynamoDB Local accepted the write. */
export interface LedgerItemWrite {
  table: string;
  pk: string;
  sk: string;
  /** The item as written (a Put); absent for an update or a delete. */
  item?: Record<string, AttributeValue>;
}

/**
 * Told of every write to a ledger table that the platform's own process made (`observing-handler.ts` reads them
 * off its DynamoDB requests): what the local log-tail transport reads instead of a table stream to know which
 * ledgers moved. Only a hint: what a consumer hands over is read back from the table. Listeners must be cheap.
 */
export class LedgerWrites {
  private readonly listeners = new Set<(writes: readonly LedgerItemWrite[]) => void>();

  on(listener: (writes: readonly LedgerItemWrite[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(writes: readonly LedgerItemWrite[]): void {
    if (writes.length === 0) return;
    for (const listener of this.listeners) listener(writes);
  }
}
