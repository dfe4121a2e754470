import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Whether a gsi1 list partition holds any item: one Query, Limit 1, keys only. The services' environment probes
 * (lib/<service>/store/environment-probe.ts) ask it of their environment's list partition, each knowing its own key.
 */
export async function listPartitionHasItems(
  doc: DynamoDBDocumentClient,
  table: string,
  gsi1pk: string,
): Promise<boolean> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': gsi1pk },
      ProjectionExpression: 'pk',
      Limit: 1,
    }),
  );
  return Items.length > 0;
}
