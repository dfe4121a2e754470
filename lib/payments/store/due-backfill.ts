import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import { environmentOfKey } from '../../environments/key-scope.js';
import { dueKeyOf } from './due-index.js';
import { SCHEDULE_PREFIX } from './keys.js';

export interface BackfillPage {
  /** Items read by this call's Scan pages. */
  scanned: number;
  /** Items given their `dueKey` (and `nextRunAtMs`) now. */
  updated: number;
  /** Where to go on; absent when the table has been read to its end. */
  next?: Record<string, unknown>;
}

/**
 * The one-off repair of items written before the `due` index existed (docs/operations.md): schedule items, and
 * initiations waiting for a time (`dueAt`), that lack `dueKey` get it, with `nextRunAtMs` (a schedule's own, an
 * initiation's from its `dueAt`), so the worker finds them on the index. A Scan, run by an operator: never on a
 * request's or a tick's path. Each update is conditional on the item still existing and still lacking `dueKey`,
 * so a run beside live writes, or twice, changes nothing a writer set. Reads up to `maxPages` Scan pages from
 * `start` and answers where to go on.
 */
export async function backfillDueKeys(
  doc: DynamoDBDocumentClient,
  table: string,
  options: { start?: Record<string, unknown>; maxPages: number },
): Promise<BackfillPage> {
  let start = options.start;
  let scanned = 0;
  let updated = 0;
  for (let page = 0; page < options.maxPages; page++) {
    const read = await doc.send(
      new ScanCommand({
        TableName: table,
        FilterExpression:
          'attribute_not_exists(dueKey) AND (begins_with(sk, :schedule) OR (sk = :initiation AND attribute_exists(dueAt)))',
        ExpressionAttributeValues: { ':schedule': SCHEDULE_PREFIX, ':initiation': 'INITIATION' },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    scanned += read.ScannedCount ?? 0;
    for (const item of read.Items ?? []) if (await repair(doc, table, item)) updated++;
    start = read.LastEvaluatedKey;
    if (!start) return { scanned, updated };
  }
  return { scanned, updated, ...(start ? { next: start } : {}) };
}

async function repair(
  doc: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
): Promise<boolean> {
  if (environmentOfKey(String(item.pk)) === undefined || typeof item.connectorID !== 'string')
    return false;
  const at =
    item.nextRunAtMs !== undefined ? Number(item.nextRunAtMs) : Date.parse(String(item.dueAt));
  if (!Number.isFinite(at)) return false;
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET dueKey = :key, nextRunAtMs = if_not_exists(nextRunAtMs, :at)',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(dueKey)',
        ExpressionAttributeValues: { ':key': dueKeyOf(item.connectorID), ':at': at },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}
