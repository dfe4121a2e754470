import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { sortableCreatedAt } from '../domain/input.js';
import {
  connectorIndexPartition,
  creationSort,
  filterPartition,
  indexPartitions,
  paymentKey,
  recordKey,
} from './keys.js';
import type { RecordStoreOptions } from './record-store.js';

/** Deletes at once. */
const CONCURRENT_DELETES = 16;

/**
 * Removes what a connector brought in, as the reference does on uninstall and reset: its payments (with their
 * index items), its accounts (with their balances and index items) and its schedule runs. Each step reads a page
 * and deletes it, so a run that stops half-way (a Lambda's timeout) is simply run again; its schedules and the
 * connector record are its caller's to remove or keep.
 */
export async function purgeConnectorData(
  options: RecordStoreOptions,
  connectorId: string,
): Promise<number> {
  const { environment } = options;
  let deleted = 0;
  // Payments: the connectorID filter partition lists them all.
  const paymentsIndex = filterPartition(environment, { connectorID: connectorId });
  for (;;) {
    const ids = await firstPage(options, paymentsIndex, 'id');
    if (ids.length === 0) break;
    const items = await batchGetInOrder(
      options.doc,
      options.table,
      ids.map((id) => paymentKey(environment, id)),
    );
    const keys: Array<Record<string, string>> = [];
    items.forEach((item, i) => {
      const id = ids[i]!;
      if (!item) return;
      const sort = creationSort(sortableCreatedAt(String(item.createdAt)), id);
      keys.push(paymentKey(environment, id));
      for (const pk of indexPartitions(environment, item as never)) keys.push({ pk, sk: sort });
    });
    deleted += await deleteKeys(options, keys);
    // An index item whose payment is already gone (an earlier, interrupted purge) is removed too.
    deleted += await deleteIndexLeftovers(options, paymentsIndex, ids, items);
  }
  // Accounts: their index partition, then each account's own partition (the record and its balances).
  const accountsIndex = connectorIndexPartition(environment, 'ACCOUNT', connectorId);
  for (;;) {
    const ids = await firstPage(options, accountsIndex, 'sk');
    if (ids.length === 0) break;
    for (const id of ids) {
      const { pk } = recordKey(environment, 'ACCOUNT', id);
      for (;;) {
        const sks = await firstPage(options, pk, 'sk');
        if (sks.length === 0) break;
        deleted += await deleteKeys(
          options,
          sks.map((sk) => ({ pk, sk })),
        );
      }
    }
    deleted += await deleteKeys(
      options,
      ids.map((sk) => ({ pk: accountsIndex, sk })),
    );
  }
  return deleted;
}

/** Removes a connector's schedules and runs (everything in its partition but the connector record). */
export async function purgeConnectorPartition(
  options: RecordStoreOptions,
  connectorId: string,
): Promise<void> {
  const { pk, sk: recordSk } = recordKey(options.environment, 'CONNECTOR', connectorId);
  for (;;) {
    const sks = (await firstPage(options, pk, 'sk')).filter((sk) => sk !== recordSk);
    if (sks.length === 0) return;
    await deleteKeys(
      options,
      sks.map((sk) => ({ pk, sk })),
    );
  }
}

async function deleteIndexLeftovers(
  options: RecordStoreOptions,
  partition: string,
  ids: readonly string[],
  items: ReadonlyArray<Record<string, unknown> | undefined>,
): Promise<number> {
  const orphans = ids.filter((_, i) => !items[i]);
  if (orphans.length === 0) return 0;
  const { Items = [] } = await options.doc.send(
    new QueryCommand({
      TableName: options.table,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': partition },
      ConsistentRead: true,
    }),
  );
  const keys = Items.filter((i) => orphans.includes(String(i.id))).map((i) => ({
    pk: partition,
    sk: String(i.sk),
  }));
  return deleteKeys(options, keys);
}

/** The first page (up to 100) of a partition's items, one attribute of each. */
async function firstPage(
  options: RecordStoreOptions,
  pk: string,
  attribute: string,
): Promise<string[]> {
  const { Items = [] } = await options.doc.send(
    new QueryCommand({
      TableName: options.table,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
      ConsistentRead: true,
      Limit: 100,
    }),
  );
  return Items.map((i) => String(i[attribute]));
}

async function deleteKeys(
  options: RecordStoreOptions,
  keys: ReadonlyArray<Record<string, string>>,
): Promise<number> {
  for (let i = 0; i < keys.length; i += CONCURRENT_DELETES) {
    await Promise.all(
      keys
        .slice(i, i + CONCURRENT_DELETES)
        .map((Key) => options.doc.send(new DeleteCommand({ TableName: options.table, Key }))),
    );
  }
  return keys.length;
}

/** The ids of the accounts a connector brought in (up to `limit`), from its index partition. */
export async function connectorAccountIds(
  options: RecordStoreOptions,
  connectorId: string,
  limit: number,
): Promise<string[]> {
  const partition = connectorIndexPartition(options.environment, 'ACCOUNT', connectorId);
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await options.doc.send(
      new QueryCommand({
        TableName: options.table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': partition },
        ConsistentRead: true,
        Limit: Math.min(1000, limit - ids.length),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    ids.push(...(page.Items ?? []).map((i) => String(i.sk)));
    start = page.LastEvaluatedKey;
  } while (start && ids.length < limit);
  return ids;
}
