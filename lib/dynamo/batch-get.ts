import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Key = Record<string, string>;

/**
 * Reads several items of one table in one round trip (BatchGetItem), retrying any the service left
 * unprocessed. Returns items in the order of `keys` (undefined where absent).
 */
export async function batchGetInOrder(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly Key[],
  keyNames: readonly [string, string] = ['pk', 'sk'],
): Promise<Array<Record<string, unknown> | undefined>> {
  const id = (k: Record<string, unknown>) => keyNames.map((n) => String(k[n])).join('\u0000');
  const found = new Map<string, Record<string, unknown>>();
  let pending: Key[] = [...new Map(keys.map((k) => [id(k), k])).values()];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt * Math.random()));
    if (attempt > 4) throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ThrottlingException' });
    const result = await doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of result.Responses?.[table] ?? []) found.set(id(item), item);
    pending = (result.UnprocessedKeys?.[table]?.Keys as Key[] | undefined) ?? [];
  }
  return keys.map((k) => found.get(id(k)));
}
