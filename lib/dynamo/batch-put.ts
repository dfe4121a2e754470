import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { throttlingError } from './errors.js';
import { retryWithBackoff } from './retry.js';

/** BatchWriteItem's limit on requests per call. */
const BATCH = 25;
/**
 * Calls per chunk while DynamoDB leaves items unprocessed (throttling): the backoff (windows of 40 ms doubling to
 * 1.28 s) then spans about 5 s before the write fails as throttled.
 */
const MAX_CALLS = 8;
const BACKOFF = { baseDelayMs: 20, maxDelayMs: 1280 };

/**
 * Puts items with BatchWriteItem (1 write unit per KB, half a transaction's price), 25 per call, the calls in
 * parallel; items DynamoDB leaves unprocessed (throttling) are sent again after a jittered backoff, a bounded
 * number of times.
 */
export async function batchPut(
  doc: DynamoDBDocumentClient,
  table: string,
  items: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  const chunks: Array<Array<Record<string, unknown>>> = [];
  for (let i = 0; i < items.length; i += BATCH) chunks.push(items.slice(i, i + BATCH));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
      await retryWithBackoff(
        async () => {
          const { UnprocessedItems } = await doc.send(
            new BatchWriteCommand({ RequestItems: { [table]: pending } }),
          );
          pending = (UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
          return pending.length === 0 ? { done: true, value: undefined } : { done: false };
        },
        { ...BACKOFF, maxAttempts: MAX_CALLS },
        () => {
          throw throttlingError('BatchWriteItem left items unprocessed');
        },
      );
    }),
  );
}
