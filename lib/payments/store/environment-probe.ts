import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listPartitionHasItems } from '../../dynamo/list-probe.js';
import { paymentsByCreation, type RecordKindName, recordsByCreation } from './keys.js';

/** Tasks are a connector's history, kept after it is gone: they do not make an environment non-empty. */
const HOLDING: RecordKindName[] = ['ACCOUNT', 'BANKACCOUNT', 'PSU', 'POOL', 'CONNECTOR'];

/**
 * Whether an environment holds any payments data: one read of each list (gsi1, `Limit: 1`): payments, accounts,
 * bank accounts, payment service users, pools, connectors. The platform service deletes an environment only when empty
 * (docs/decisions/tenancy.md, "Environments").
 */
export async function paymentsExist(
  doc: DynamoDBDocumentClient,
  table: string,
  environment: string,
): Promise<boolean> {
  const partitions = [
    paymentsByCreation(environment),
    ...HOLDING.map((kind) => recordsByCreation(environment, kind)),
  ];
  const found = await Promise.all(partitions.map((p) => listPartitionHasItems(doc, table, p)));
  return found.some(Boolean);
}
