import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
import { paymentsByCreation, RECORD_KINDS, recordsByCreation } from './keys.js';

/**
 * Whether an environment holds any payments data: one read of each list (gsi1, `Limit: 1`): payments, accounts,
 * bank accounts, payment service users, pools. The platform service deletes an environment only when empty
 * (docs/decisions.md, "Environments").
 */
export async function paymentsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  const partitions = [
    paymentsByCreation(environment),
    ...RECORD_KINDS.map((kind) => recordsByCreation(environment, kind)),
  ];
  const found = await Promise.all(partitions.map((p) => listPartitionHasItems(doc, table, p)));
  return found.some(Boolean);
}
