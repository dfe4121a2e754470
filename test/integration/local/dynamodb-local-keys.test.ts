/**
 * The run's platforms' DynamoDB Local keeps one database per access key id: what each test platform's isolation
 * (test/support/platform.ts) rests on — its tables unseen by the others, and its streams' GetRecords unslowed by
 * their writes.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, inject, it } from 'vitest';

const endpoint = inject('platformsDynamoEndpoint');
const connection = (accessKeyId: string) => ({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId, secretAccessKey: 'local' },
});

const streamedTable = (name: string) =>
  new CreateTableCommand({
    TableName: name,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
  });

describe("the platforms' DynamoDB Local: a database per access key id", () => {
  it('shows each key its own tables, and another key’s writes reach none of its streams', async () => {
    const [a, b] = [0, 1].map(() => `k${randomBytes(6).toString('hex')}`) as [string, string];
    const dynamoA = new DynamoDBClient(connection(a));
    const dynamoB = new DynamoDBClient(connection(b));
    const streamsA = new DynamoDBStreamsClient(connection(a));
    try {
      await dynamoA.send(streamedTable('events'));
      // The same name under the other key is another table.
      await dynamoB.send(streamedTable('events'));
      await dynamoB.send(streamedTable('only-b'));
      expect((await dynamoA.send(new ListTablesCommand({}))).TableNames).toEqual(['events']);
      expect((await dynamoB.send(new ListTablesCommand({}))).TableNames).toEqual([
        'events',
        'only-b',
      ]);

      const arn = (await dynamoA.send(new DescribeTableCommand({ TableName: 'events' }))).Table!
        .LatestStreamArn!;
      const { StreamDescription } = await streamsA.send(
        new DescribeStreamCommand({ StreamArn: arn }),
      );
      const { ShardIterator } = await streamsA.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: StreamDescription!.Shards![0]!.ShardId!,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      await dynamoB.send(
        new BatchWriteItemCommand({
          RequestItems: {
            events: Array.from({ length: 25 }, (_, i) => ({
              PutRequest: { Item: { pk: { S: `b-${i}` } } },
            })),
          },
        }),
      );
      const { Records } = await streamsA.send(new GetRecordsCommand({ ShardIterator }));
      expect(Records).toEqual([]);
    } finally {
      dynamoA.destroy();
      dynamoB.destroy();
      streamsA.destroy();
    }
  });
});
