import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
import { clientListPartition } from './keys.js';

/**
 * Whether an environment has any dynamic client: one read (Limit 1) of its list partition. The platform service
 * asks it before deleting an environment, which must be empty (docs/decisions/tenancy.md, "The platform service").
 */
export async function clientsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  return listPartitionHasItems(doc, table, clientListPartition(environment));
}
