import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
import { registryKeys } from './keys.js';

/**
 * Whether an environment has any ledger, for the platform service's "delete an environment only when empty"
 * (docs/decisions/tenancy.md, "Environments"): one read of the environment's ledgers list (gsi1 of the registry, in the
 * default ledger table `table`), Limit 1. A ledger of a deleted bucket still counts: it is marked, not erased,
 * and can be restored.
 */
export async function ledgersExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  return listPartitionHasItems(doc, table, registryKeys.listPartition(environment));
}
