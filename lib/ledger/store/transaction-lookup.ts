import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import type { RecordExpansion } from '../../dynamo/paginate.js';
import { type ItemKey, type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import {
  beyondPosition,
  holderOfPosition,
  idRange,
  type StoredTransaction,
  transactionIn,
  transactionRecords,
  writesTransactionPages,
} from './transaction-pages.js';

type Item = Record<string, unknown>;

/**
 * The keys of the items holding these transactions, for a read by key: in a ledger with pages, found by `floorKeys`
 * (which item holds an id never changes once it is written); otherwise the transactions' own keys. An id no item
 * holds yet keeps its own key (read, it is absent).
 */
export async function transactionHolderKeys(
  port: Pick<LedgerTable, 'floorKeys'>,
  ledger: LedgerRef,
  ids: readonly number[],
): Promise<ItemKey[]> {
  const own = [...new Set(ids)].map((id) => ledgerKeys.transaction(ledger, id));
  if (!writesTransactionPages(ledger) || own.length === 0) return own;
  const floors = await port.floorKeys(own);
  return own.map((key, i) => {
    const floor = floors[i];
    return floor && floor.pk === key.pk ? floor : key;
  });
}

/** Reads in flight at once when looking up many ids. */
const CONCURRENT_READS = 16;

/**
 * The item holding each transaction (its own, or the page it is in), strongly consistent: in a ledger with pages,
 * the item with the greatest key at or below the id's in its block (one Query with Limit 1 per id, an id a found
 * page holds needing none); in an older ledger, the transactions' own items (BatchGetItem). Absent ids are left out.
 */
async function transactionHolders(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  ids: readonly number[],
): Promise<Map<number, Item>> {
  const unique = [...new Set(ids)].sort((a, b) => b - a);
  const found = new Map<number, Item>();
  if (!writesTransactionPages(ledger)) {
    const items = await batchGetInOrder(
      doc,
      table,
      unique.map((id) => ledgerKeys.transaction(ledger, id)),
    );
    unique.forEach((id, i) => {
      const item = items[i];
      if (item) found.set(id, item);
    });
    return found;
  }
  const held = (id: number) => {
    for (const item of found.values()) {
      const { first, last } = idRange(item);
      if (id >= first && id <= last) return item;
    }
    return undefined;
  };
  for (let i = 0; i < unique.length; i += CONCURRENT_READS) {
    const wave = unique.slice(i, i + CONCURRENT_READS).filter((id) => !held(id));
    const items = await Promise.all(
      wave.map((id) => floorItem(doc, table, ledgerKeys.transaction(ledger, id))),
    );
    wave.forEach((id, j) => {
      const item = items[j];
      if (item && transactionIn(item, id)) found.set(id, item);
    });
  }
  for (const id of unique) {
    const item = held(id);
    if (item) found.set(id, item);
  }
  return found;
}

/**
 * The item with the greatest sort key at or below `key`'s in its partition (consistent; `keyOnly`: its key
 * attributes alone). For a transaction's key: the item holding it, if any does.
 */
export async function floorItem(
  doc: DynamoDBDocumentClient,
  table: string,
  { pk, sk }: ItemKey,
  keyOnly = false,
): Promise<Item | undefined> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :p AND sk <= :s',
      ExpressionAttributeValues: { ':p': pk, ':s': sk },
      ...(keyOnly ? { ProjectionExpression: 'pk, sk' } : {}),
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return Items?.[0] as Item | undefined;
}

/** Transactions by id, in a map (absent ids left out). */
export async function readTransactions(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  ids: readonly number[],
): Promise<Map<number, StoredTransaction>> {
  const holders = await transactionHolders(doc, table, ledger, ids);
  const out = new Map<number, StoredTransaction>();
  for (const [id, item] of holders) out.set(id, transactionIn(item, id)!);
  return out;
}

/**
 * A list of transactions record by record, pages expanded (`order`: the list's key, by id or by time). A cursor's
 * page is read only from this ledger's blocks (`owns`): a forged cursor names no other item.
 */
export function transactionExpansion(
  order: 'id' | 'time',
  owns: (pk: string) => boolean,
): RecordExpansion {
  return {
    records: (item) => transactionRecords(item),
    holder: (position) => {
      const key = holderOfPosition(position);
      return key && owns(key.pk) ? key : undefined;
    },
    beyond: (record, position, forward) => beyondPosition(record, position, order, forward),
  };
}
