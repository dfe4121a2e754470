import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
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
  return listPartitionHasItems(doc, table, paymentsByCreation(environment));
}
