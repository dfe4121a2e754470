import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerKeys } from './keys.js';
import type { LedgerRecord } from './registry.js';

/** Counts kept on the ledger's HEAD item, maintained by every write: one GetItem, no scan. */
export class LedgerStats {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  async read(ledger: LedgerRecord): Promise<{ accounts: number; transactions: number }> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableFor(ledger.bucket),
        Key: ledgerKeys.head(ledger),
        ConsistentRead: true,
      }),
    );
    return { accounts: Number(Item?.accounts ?? 0), transactions: Number(Item?.lastTxId ?? 0) };
  }
}
