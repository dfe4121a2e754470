import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchWriteItem's limit on requests per call. */
const BATCH = 25;

/**
 * Puts items with BatchWriteItem (1 write unit per KB, half a transaction's price), 25 per call, the calls in
 * parallel; items DynamoDB leaves unprocessed (throttling) are sent again after a jittered backoff until none are.
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
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0)
          await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** Math.min(attempt, 6)));
        const { UnprocessedItems } = await doc.send(
          new BatchWriteCommand({ RequestItems: { [table]: pending } }),
        );
        pending = (UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
      }
    }),
  );
}
