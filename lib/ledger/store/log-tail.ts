import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { type LedgerRef, ledgerKeys, ledgerOfPartition } from './keys.js';

/**
 * Reading a ledger's event-carrying items in order, as raw images (what a table stream would hand over): the
 * local platform's event transport where the ledger table has no stream. The log is durable and gapless, and
 * its pages are written once, keyed by their first entry's id, so "the pages after the last one handled" is
 * exactly what a stream consumer has not seen yet.
 */
export type RawItem = Record<string, AttributeValue>;

/** Up to `limit` log pages after the page `afterSk` (strongly consistent), oldest first. */
export async function readLogPagesAfter(
  dynamo: DynamoDBClient,
  table: string,
  ledger: LedgerRef,
  afterSk: string,
  limit: number,
): Promise<RawItem[]> {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: table,
      // DynamoDB refuses an empty key value: before the first page, the whole partition.
      KeyConditionExpression: afterSk === '' ? 'pk = :p' : 'pk = :p AND sk > :a',
      ExpressionAttributeValues: {
        ':p': { S: ledgerKeys.logPartition(ledger) },
        ...(afterSk === '' ? {} : { ':a': { S: afterSk } }),
      },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return Items;
}

/** The ledger's mapping item (v1 mapping, with its event), or undefined. */
export async function readMappingImage(
  dynamo: DynamoDBClient,
  table: string,
  ledger: LedgerRef,
): Promise<RawItem | undefined> {
  const key = ledgerKeys.mapping(ledger);
  const { Item } = await dynamo.send(
    new GetItemCommand({
      TableName: table,
      Key: { pk: { S: key.pk }, sk: { S: key.sk } },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The version a mapping image carries (0 when it has none). */
export const mappingVersionOf = (image: RawItem): number => Number(image.version?.N ?? 0);

/**
 * Every ledger of every environment in a table, from their HEAD items: for the local platform's start-up only
 * (nothing else in the table names every environment). One Scan per start; the cloud never runs it.
 */
export async function ledgersOfTable(dynamo: DynamoDBClient, table: string): Promise<LedgerRef[]> {
  const found: LedgerRef[] = [];
  let start: RawItem | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: table,
        ProjectionExpression: 'pk',
        FilterExpression: 'sk = :head',
        ExpressionAttributeValues: { ':head': { S: 'HEAD' } },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const own = ledgerOfPartition(item.pk?.S ?? '');
      if (own?.partition === 'ledger') found.push(own.ledger);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}
