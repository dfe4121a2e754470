import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { environmentOfKey } from '../../environments/key-scope.js';
import type { PipelineRef } from '../domain/pipeline.js';
import { PIPELINE_PREFIX } from './keys.js';

/**
 * The running pipelines of every environment: for the local platform's start-up only, which must pick up the
 * pipelines that were behind or backing off when it stopped (nothing in the table names every environment). A
 * Scan of the default ledger table, once per start; the cloud never runs it, and no request does.
 */
export async function* runningPipelinesEverywhere(
  doc: DynamoDBDocumentClient,
  table: string,
): AsyncGenerator<PipelineRef> {
  const pages = paginateScan(
    { client: doc },
    {
      TableName: table,
      ProjectionExpression: 'pk, sk, ledger',
      FilterExpression: 'begins_with(sk, :p) AND attribute_exists(exporterId) AND enabled = :on',
      ExpressionAttributeValues: { ':p': PIPELINE_PREFIX, ':on': true },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const environment = environmentOfKey(String(item.pk));
      if (environment === undefined) continue;
      yield {
        environment,
        ledger: String(item.ledger),
        id: String(item.sk).slice(PIPELINE_PREFIX.length),
      };
    }
  }
}
