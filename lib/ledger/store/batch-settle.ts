import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import type { Transaction, VolumesView } from '../domain/transaction.js';
import { transactionItem } from './change-items.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import type { StoredLogEntry } from './log-pages.js';
import { transactionHolderKeys } from './transaction-lookup.js';
import {
  pageItem,
  transactionIn,
  transactionPages,
  writesTransactionPages,
} from './transaction-pages.js';

/**
 * What a sequenced writer writes after its commit, rebuilt from the commit's log page when the writer stopped
 * before writing it (docs/data-model.md, "Two write modes"): the items of the transactions the batch created.
 */

/** The items of the transactions these log entries created (a new transaction, a revert's reverse transaction). */
export function createdTransactionItems(
  ledger: LedgerRef,
  entries: readonly StoredLogEntry[],
): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  for (const { log, extras } of entries) {
    if (log.type !== 'NEW_TRANSACTION' && log.type !== 'REVERTED_TRANSACTION') continue;
    const tx = (log.data as { transaction?: Transaction }).transaction;
    const post = extras.post as VolumesView | undefined;
    if (tx && post) items.push(transactionItem(ledger, { tx, post }));
  }
  return items;
}

/**
 * The items of the transactions these entries created that no item holds yet, gathered into pages as the writer
 * gathers them (transaction-pages.ts): a writer that stopped may have written some of its pages and not others,
 * and a page is cut from the transactions as created, so the missing ones make the same pages again.
 */
export async function unwrittenTransactionItems(
  table: Pick<LedgerTable, 'floorKeys' | 'getItems'>,
  ledger: LedgerRef,
  entries: readonly StoredLogEntry[],
): Promise<Array<Record<string, unknown>>> {
  const created = createdTransactionItems(ledger, entries);
  const ids = created.map((item) => Number(item.id));
  const holders = await table.getItems(await transactionHolderKeys(table, ledger, ids));
  const missing = created.filter((_, i) => !transactionIn(holders[i], ids[i]!));
  return writesTransactionPages(ledger) ? transactionPages(missing).map(pageItem) : missing;
}

/**
 * Puts each item unless it exists. A repair may run late, after the item was written and changed since (a
 * revert, metadata): the condition keeps it from putting back an older state. Items the same batch changed
 * again were in its commit, so they exist.
 */
export async function putAbsentItems(
  doc: DynamoDBDocumentClient,
  table: string,
  items: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  await Promise.all(
    items.map(async (Item) => {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item,
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }),
  );
}

/**
 * Records on HEAD that the batch it names is settled (its after-commit items all written), so direct writers
 * need not settle it again. Not a new HEAD version: no decision depends on it. Refused, harmlessly, once HEAD moved.
 */
export async function clearPendingBatch(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  version: number | undefined,
): Promise<void> {
  if (version === undefined) return;
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: ledgerKeys.head(ledger),
        UpdateExpression: 'REMOVE pendingResults',
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': version },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}
