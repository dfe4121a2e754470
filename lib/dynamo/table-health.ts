import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Whether a table answers and is ACTIVE: DescribeTable reads the table's description, never its items, so a
 * function may probe another service's table without being able to read its data (infra/stacks/grants.ts).
 */
export async function tableActive(
  doc: DynamoDBDocumentClient | DynamoDBClient,
  table: string,
): Promise<boolean> {
  const client = doc as unknown as DynamoDBClient;
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  return Table?.TableStatus === 'ACTIVE';
}
