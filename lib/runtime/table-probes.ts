import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlatformConfig } from '../config/env.js';
import { tableActive } from '../dynamo/table-health.js';
import type { ServiceProbe } from './versions.js';

/**
 * In AWS each service is a function of its own, so one function cannot ask the others: a service is reported
 * healthy when its table answers and is ACTIVE (the functions scale on demand; their table is what can be
 * missing or unreachable). The local platform asks each app's `/_health` instead (infra/local/platform.ts).
 */
export function tableProbes(doc: DynamoDBDocumentClient, config: PlatformConfig): ServiceProbe[] {
  const serviceTables = {
    auth: config.tables.auth,
    ledger: config.tables.ledger,
    webhooks: config.tables.webhooks,
    payments: config.tables.payments,
  };
  return Object.entries(serviceTables).map(([name, table]) => ({
    name,
    healthy: () => tableActive(doc, table),
  }));
}
