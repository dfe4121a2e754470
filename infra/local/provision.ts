import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  deadLetterQueueName,
  type IndexDefinition,
  QUEUES,
  TABLES,
  type TableDefinition,
  tableName,
} from '../../lib/resources/definitions.js';

/**
 * Creates every table of `lib/resources/definitions.ts` that does not exist yet under `prefix` (the CDK stack
 * builds the same tables from the same module). Existing tables are left as they are, so data survives
 * restarts.
 */
export async function ensureTables(
  client: DynamoDBClient,
  prefix: string,
  options: LedgerStreamOption = {},
): Promise<Record<string, string>> {
  const names: Record<string, string> = {};
  for (const table of TABLES) {
    const name = tableName(prefix, table.id);
    names[table.variable] = name;
    await ensureTable(client, name, table.id === 'ledger' ? ledgerDefinition(options) : table);
  }
  return names;
}

/**
 * Whether ledger tables get a DynamoDB stream (default: yes, as in the cloud). The embedded platform's ledger
 * tables have none: its events are read from each ledger's log instead (infra/local/ledger-events), since
 * DynamoDB Local makes every write to a table with a stream several times dearer. A table that has one keeps it.
 */
export interface LedgerStreamOption {
  ledgerStreams?: boolean;
}

function ledgerDefinition(
  options: LedgerStreamOption,
): TableDefinition & { streamRequired?: boolean } {
  const ledger = TABLES.find((t) => t.id === 'ledger')!;
  if (options.ledgerStreams !== false) return { ...ledger, streamRequired: true };
  const { stream: _none, ...withoutStream } = ledger;
  return withoutStream;
}

/**
 * The ledger tables of buckets mapped to a table of their own (`LEDGER_BUCKET_TABLES`), built from the ledger
 * table's definition as the stack builds them (infra/stacks/tables.ts `createBucketTables`).
 */
export async function ensureLedgerBucketTables(
  client: DynamoDBClient,
  names: readonly string[],
  options: LedgerStreamOption = {},
): Promise<void> {
  for (const name of names) await ensureTable(client, name, ledgerDefinition(options));
}

/**
 * Creates the table, or gives an existing one the stream and the indexes its definition now asks for (a data
 * directory from before the ledger tables carried events, or before the holds' `due` index); nothing else of an
 * existing table is changed.
 */
async function ensureTable(
  client: DynamoDBClient,
  name: string,
  table: TableDefinition & { streamRequired?: boolean },
): Promise<void> {
  const existing = await describe(client, name);
  if (existing) {
    if (table.streamRequired && !existing.StreamSpecification?.StreamEnabled && existing.ItemCount)
      throw new Error(
        `table ${name} carries its ledgers' events in their logs (it was made by the embedded platform): ` +
          'the worker-process mode (LEDGER_WORKERS) reads them from a table stream; start it on another DATA_DIR',
      );
    if (table.stream && !existing.StreamSpecification?.StreamEnabled) {
      await client.send(
        new UpdateTableCommand({
          TableName: name,
          StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream },
        }),
      );
    }
    await addMissingIndexes(client, name, table, existing.GlobalSecondaryIndexes ?? []);
    return;
  }
  await client.send(new CreateTableCommand(createTableInput(name, table)));
  if (table.ttlAttribute) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { Enabled: true, AttributeName: table.ttlAttribute },
      }),
    );
  }
}

/** One UpdateTable per index the definition has and the table lacks (DynamoDB adds one index per update). */
async function addMissingIndexes(
  client: DynamoDBClient,
  name: string,
  table: TableDefinition,
  present: ReadonlyArray<{ IndexName?: string }>,
): Promise<void> {
  const names = new Set(present.map((i) => i.IndexName));
  for (const index of table.globalIndexes) {
    if (names.has(index.name)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: attributeDefinitions(table),
        GlobalSecondaryIndexUpdates: [{ Create: indexInput(index) }],
      }),
    );
  }
}

function attributeDefinitions(table: TableDefinition): AttributeDefinition[] {
  const attributes = new Map<string, AttributeDefinition>();
  const add = (k: { name: string; type: 'S' | 'N' } | undefined) => {
    if (k) attributes.set(k.name, { AttributeName: k.name, AttributeType: k.type });
  };
  add(table.partitionKey);
  add(table.sortKey);
  for (const index of table.globalIndexes) {
    add(index.partitionKey);
    add(index.sortKey);
  }
  return [...attributes.values()];
}

function indexInput(i: IndexDefinition) {
  return {
    IndexName: i.name,
    KeySchema: [
      { AttributeName: i.partitionKey.name, KeyType: 'HASH' as const },
      ...(i.sortKey ? [{ AttributeName: i.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    Projection: { ProjectionType: 'ALL' as const },
  };
}

export function createTableInput(name: string, table: TableDefinition) {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributeDefinitions(table),
    KeySchema: [
      { AttributeName: table.partitionKey.name, KeyType: 'HASH' as const },
      { AttributeName: table.sortKey.name, KeyType: 'RANGE' as const },
    ],
    ...(table.globalIndexes.length > 0
      ? { GlobalSecondaryIndexes: table.globalIndexes.map(indexInput) }
      : {}),
    ...(table.stream
      ? { StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream } }
      : {}),
  };
}

/** Whether the table has a stream (the embedded platform's ledger tables have none, `LedgerStreamOption`). */
export async function hasStream(client: DynamoDBClient, name: string): Promise<boolean> {
  return (await describe(client, name))?.StreamSpecification?.StreamEnabled === true;
}

async function describe(client: DynamoDBClient, name: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (err) {
    if ((err as Error).name === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

/** Creates each queue and its dead-letter queue with the definitions' redrive policy. Returns the functions' variables naming them. */
export async function ensureQueues(
  client: SQSClient,
  prefix: string,
): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const queue of QUEUES) {
    const name = `${prefix}${queue.id}`;
    const dlqUrl = await createQueue(client, deadLetterQueueName(name), {});
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const dlqArn = Attributes?.QueueArn;
    if (!dlqArn) throw new Error(`queue ${deadLetterQueueName(name)} has no ARN`);
    urls[queue.variable] = await createQueue(client, name, {
      VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(queue.retentionSeconds),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: dlqArn,
        maxReceiveCount: queue.maxReceiveCount,
      }),
    });
  }
  return urls;
}

async function createQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  if (!QueueUrl) throw new Error(`queue ${name} was not created`);
  return QueueUrl;
}
