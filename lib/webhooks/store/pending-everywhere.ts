import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { pendingPartitionEnvironment } from './keys.js';

/** Pending deliveries of one environment, as one page of the walk found them. */
export interface PendingOfEnvironment {
  environment: string;
  ids: string[];
}

/**
 * The pending deliveries of every environment, page by page: for the local platform's start-up only
 * (infra/local/pollers/requeue-pending.ts), which must re-queue what its in-memory queue lost without a list of
 * the environments (each has its own `pending` index partition, keys.ts, and nothing in this table names them
 * all). It is a Scan, reading the whole local table once per start: the cloud never runs it (SQS keeps the
 * messages), and no request ever does. Only filter index items come back (they alone hold `deliveryId` without
 * being an attempt); those of a `pending` partition are kept.
 */
export async function* pendingDeliveriesOfEveryEnvironment(
  doc: DynamoDBDocumentClient,
  table: string,
): AsyncGenerator<PendingOfEnvironment> {
  const pages = paginateScan(
    { client: doc },
    {
      TableName: table,
      ProjectionExpression: '#pk, #id',
      FilterExpression: 'attribute_exists(#id) AND attribute_not_exists(#attempt)',
      ExpressionAttributeNames: { '#pk': 'pk', '#id': 'deliveryId', '#attempt': 'attempt' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    const byEnvironment = new Map<string, string[]>();
    for (const item of page.Items ?? []) {
      const environment = pendingPartitionEnvironment(String(item.pk));
      if (environment === undefined) continue;
      const ids = byEnvironment.get(environment) ?? [];
      ids.push(String(item.deliveryId));
      byEnvironment.set(environment, ids);
    }
    for (const [environment, ids] of byEnvironment) yield { environment, ids };
  }
}
