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
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';

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

  it('finds the same database for an unsigned client (the embedded platform’s) as for a signed one with its key', async () => {
    const [a, b] = [0, 1].map(() => `k${randomBytes(6).toString('hex')}`) as [string, string];
    const signed = new DynamoDBClient(connection(a));
    const unsignedA = createDocumentClient({ endpoint, localAccessKeyId: a, unsigned: true });
    const unsignedB = createDocumentClient({ endpoint, localAccessKeyId: b, unsigned: true });
    // What the unsigned client sends: the key id and region, and no signature worth the name.
    const authorization: string[] = [];
    unsignedA.middlewareStack.add(
      (next) => async (args) => {
        authorization.push(
          String((args.request as { headers: Record<string, string> }).headers.authorization),
        );
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    try {
      await signed.send(streamedTable('accounts'));
      await unsignedA.send(new PutCommand({ TableName: 'accounts', Item: { pk: 'a:1', n: 7 } }));
      expect(
        (await unsignedA.send(new GetCommand({ TableName: 'accounts', Key: { pk: 'a:1' } }))).Item,
      ).toEqual({ pk: 'a:1', n: 7 });
      expect((await signed.send(new ListTablesCommand({}))).TableNames).toEqual(['accounts']);
      expect((await unsignedB.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      expect(authorization).toEqual([
        `AWS4-HMAC-SHA256 Credential=${a}/19700101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
        `AWS4-HMAC-SHA256 Credential=${a}/19700101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
      ]);
    } finally {
      signed.destroy();
      unsignedA.destroy();
      unsignedB.destroy();
    }
  });
});
