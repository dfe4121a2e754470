import { type DynamoDBDocumentClient, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { StreamCheckpoints } from './stream-poller.js';

/**
 * The local stream poller's checkpoints, kept as small items in a DynamoDB table of the same DynamoDB Local (the
 * webhooks table, for the dispatcher): `LOCAL#stream=<stream ARN>` / `SHARD#<shard id>` with `sequenceNumber`.
 * They live and die with the data they point into — an in-memory DynamoDB Local loses both together, a data
 * directory keeps both — which a file beside the data could not promise. In the cloud, Lambda's event source
 * mapping keeps this state itself; these items are never written there.
 */
export function dynamoStreamCheckpoints(
  doc: DynamoDBDocumentClient,
  table: string,
  /** Another consumer of the same streams keeps checkpoints of its own (the pipeline worker). */
  consumer?: string,
): StreamCheckpoints {
  const partition = (streamArn: string) =>
    consumer === undefined ? `LOCAL#stream=${streamArn}` : `LOCAL#stream=${streamArn}#${consumer}`;
  return {
    async load(streamArn) {
      const saved = new Map<string, string>();
      const pages = paginateQuery(
        { client: doc },
        {
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition(streamArn) },
          ConsistentRead: true,
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? [])
          saved.set(String(item.sk).slice('SHARD#'.length), String(item.sequenceNumber));
      }
      return saved;
    },
    async save(streamArn, shardId, sequenceNumber) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: partition(streamArn), sk: `SHARD#${shardId}`, sequenceNumber },
        }),
      );
    },
  };
}
