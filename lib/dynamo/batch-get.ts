import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { throttlingError } from './errors.js';
import { retryWithBackoff } from './retry.js';

type Key = Record<string, string>;

/** DynamoDB takes at most 100 keys per BatchGetItem. */
const KEYS_PER_CALL = 100;
/** Calls in flight at once for a large read: enough to overlap round trips, few enough not to burst. */
const CONCURRENT_CALLS = 4;
/** Calls per chunk while DynamoDB leaves keys unprocessed (throttling); waits of up to 40, 80, 160, 320 ms. */
const MAX_CALLS = 5;
const BACKOFF = { baseDelayMs: 20, maxDelayMs: 320 };

/**
 * Reads items of one table by key with BatchGetItem (strongly consistent), 100 keys per call and a few calls at
 * a time, retrying any keys the service left unprocessed. Returns items in the order of `keys` (undefined
 * where absent).
 */
export async function batchGetInOrder(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly Key[],
  keyNames: readonly [string, string] = ['pk', 'sk'],
): Promise<Array<Record<string, unknown> | undefined>> {
  const id = (k: Record<string, unknown>) => keyNames.map((n) => String(k[n])).join('\u0000');
  const unique = [...new Map(keys.map((k) => [id(k), k])).values()];
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += KEYS_PER_CALL)
    chunks.push(unique.slice(i, i + KEYS_PER_CALL));
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < chunks.length; i += CONCURRENT_CALLS) {
    await Promise.all(
      chunks.slice(i, i + CONCURRENT_CALLS).map((chunk) => readChunk(doc, table, chunk, id, found)),
    );
  }
  return keys.map((k) => found.get(id(k)));
}

async function readChunk(
  doc: DynamoDBDocumentClient,
  table: string,
  chunk: Key[],
  id: (k: Record<string, unknown>) => string,
  found: Map<string, Record<string, unknown>>,
): Promise<void> {
  let pending = chunk;
  await retryWithBackoff(
    async () => {
      const result = await doc.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[table] ?? []) found.set(id(item), item);
      pending = (result.UnprocessedKeys?.[table]?.Keys as Key[] | undefined) ?? [];
      return pending.length === 0 ? { done: true, value: undefined } : { done: false };
    },
    { ...BACKOFF, maxAttempts: MAX_CALLS },
    () => {
      throw throttlingError('BatchGetItem left keys unprocessed');
    },
  );
}
