import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { paymentsByCreation } from './keys.js';

/**
 * Whether an environment has any payment: one read of its payment list (gsi1, `Limit: 1`). The platform service
 * deletes an environment only when empty (docs/decisions.md, "Environments"). Payments are never deleted, so once
 * true it stays true.
 */
export async function paymentsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': paymentsByCreation(environment) },
      ProjectionExpression: 'pk',
      Limit: 1,
    }),
  );
  return Items.length > 0;
}
