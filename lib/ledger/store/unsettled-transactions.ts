import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createdTransactionItems } from './batch-settle.js';
import { headFromItem } from './head.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { readLogRange } from './log-pages.js';

/**
 * Items of committed transactions that are not written yet: a sequenced writer puts new transactions' items right
 * after its commit, and HEAD names the batch until they are all written (docs/data-model.md, "Two write modes").
 * Built from the batch's log page, exactly as the writer writes them. Only reads that miss an item pay for this.
 */
export async function unsettledTransactionItems(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  ids: readonly number[],
): Promise<{ items: Map<number, Record<string, unknown>>; lastTxId: number }> {
  const items = new Map<number, Record<string, unknown>>();
  if (ids.length === 0) return { items, lastTxId: 0 };
  const { Item } = await doc.send(
    new GetCommand({ TableName: table, Key: ledgerKeys.head(ledger), ConsistentRead: true }),
  );
  if (!Item) return { items, lastTxId: 0 };
  const head = headFromItem(Item);
  const pending = head.pendingResults;
  if (!pending) return { items, lastTxId: head.lastTxId };
  const wanted = new Set(ids);
  for (const item of createdTransactionItems(
    ledger,
    await readLogRange(doc, table, ledger, pending.firstLogId, pending.lastLogId),
  )) {
    if (wanted.has(Number(item.id))) items.set(Number(item.id), item);
  }
  return { items, lastTxId: head.lastTxId };
}
