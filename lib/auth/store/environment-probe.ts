import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { clientListPartition } from './keys.js';

/**
 * Whether an environment has any dynamic client: one read (Limit 1) of its list partition. The platform service
 * asks it before deleting an environment, which must be empty (docs/decisions.md, "The platform service").
 */
export async function clientsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': clientListPartition(environment) },
      ProjectionExpression: 'pk',
      Limit: 1,
    }),
  );
  return Items.length > 0;
}
