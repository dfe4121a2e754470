/**
 * Local provisioning of the ledger tables' streams: a bucket table named by the configuration is created like the
 * stack creates it, and a table from a data directory made before ledger tables carried events gets its stream (and
 * one from before the holds' due index gets that index).
 */
import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  createTableInput,
  ensureLedgerBucketTables,
  hasStream,
} from '../../../infra/local/provision.js';
import { TABLES } from '../../../lib/resources/definitions.js';

const client = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(() => client.destroy());
const ledger = TABLES.find((t) => t.id === 'ledger')!;
const streamOf = async (name: string) =>
  (await client.send(new DescribeTableCommand({ TableName: name }))).Table!.StreamSpecification;

describe('ensureLedgerBucketTables', () => {
  it('creates a missing bucket table from the ledger definition, streaming new images', async () => {
    const name = `v${randomBytes(5).toString('hex')}-ledger-heavy`;
    await ensureLedgerBucketTables(client, [name]);
    expect(await streamOf(name)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table!.GlobalSecondaryIndexes!.map((i) => i.IndexName).sort()).toEqual(['due', 'gsi1']);
  });

  it("gives an existing ledger table without the holds' due index that index", async () => {
    const name = `v${randomBytes(5).toString('hex')}-ledger`;
    const input = createTableInput(name, ledger);
    await client.send(
      new CreateTableCommand({
        ...input,
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes!.filter((i) => i.IndexName === 'gsi1'),
        AttributeDefinitions: input.AttributeDefinitions.filter(
          (a) => !['dueKey', 'dueAt'].includes(a.AttributeName!),
        ),
      }),
    );
    await ensureLedgerBucketTables(client, [name]);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table!.GlobalSecondaryIndexes!.map((i) => i.IndexName).sort()).toEqual(['due', 'gsi1']);
    expect(Table!.GlobalSecondaryIndexes!.find((i) => i.IndexName === 'due')!.KeySchema).toEqual([
      { AttributeName: 'dueKey', KeyType: 'HASH' },
      { AttributeName: 'dueAt', KeyType: 'RANGE' },
    ]);
  });

  it('gives an existing ledger table without a stream its stream, and leaves one that has it alone', async () => {
    const name = `v${randomBytes(5).toString('hex')}-ledger`;
    const { StreamSpecification: _stream, ...withoutStream } = createTableInput(name, ledger);
    await client.send(new CreateTableCommand(withoutStream));
    expect(await streamOf(name)).toBeUndefined();
    await ensureLedgerBucketTables(client, [name]);
    expect(await streamOf(name)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    const arn = (await client.send(new DescribeTableCommand({ TableName: name }))).Table!
      .LatestStreamArn;
    await ensureLedgerBucketTables(client, [name]);
    expect(
      (await client.send(new DescribeTableCommand({ TableName: name }))).Table!.LatestStreamArn,
    ).toBe(arn);
  });
});

describe('ledger tables of the embedded platform (no stream)', () => {
  it('creates them without a stream, and leaves an existing table with one as it is', async () => {
    const fresh = `v${randomBytes(5).toString('hex')}-ledger`;
    await ensureLedgerBucketTables(client, [fresh], { ledgerStreams: false });
    expect(await streamOf(fresh)).toBeUndefined();
    expect(await hasStream(client, fresh)).toBe(false);
    const streamed = `v${randomBytes(5).toString('hex')}-ledger`;
    await ensureLedgerBucketTables(client, [streamed]);
    await ensureLedgerBucketTables(client, [streamed], { ledgerStreams: false });
    expect(await streamOf(streamed)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    expect(await hasStream(client, streamed)).toBe(true);
  });

  it('refuses the worker-process mode on a table whose events are in its logs, and writes nothing', async () => {
    const name = `v${randomBytes(5).toString('hex')}-ledger`;
    await ensureLedgerBucketTables(client, [name], { ledgerStreams: false });
    await client.send(
      new PutItemCommand({
        TableName: name,
        Item: { pk: { S: 'E#default#L#a' }, sk: { S: 'HEAD' } },
      }),
    );
    await expect(ensureLedgerBucketTables(client, [name])).rejects.toThrow(
      `table ${name} carries its ledgers' events in their logs (it was made by the embedded platform): ` +
        'the worker-process mode (LEDGER_WORKERS) reads them from a table stream; start it on another DATA_DIR',
    );
    expect(await streamOf(name)).toBeUndefined();
  });
});
