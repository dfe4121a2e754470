import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
import { configsByCreation } from './keys.js';

/**
 * Whether an environment has any webhook config: one read of its config list (gsi1, `Limit: 1`). The platform
 * service deletes an environment only when empty (docs/decisions/tenancy.md, "Environments"); a config created while it
 * decides is the platform's race to close (the index is eventually consistent), not this probe's.
 */
export async function webhookConfigsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  return listPartitionHasItems(doc, table, configsByCreation(environment));
}
