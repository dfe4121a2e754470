import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { createTableInput } from '../../infra/local/provision.js';
import { platformConfigFromVariables } from '../../lib/config/env.js';
import { TABLES, tableName, tableVariables } from '../../lib/resources/definitions.js';
import { createRuntime, type ServiceRuntime } from '../../lib/runtime/runtime.js';

export const TEST_BASE_URL = 'http://platform.test';

/**
 * Fresh tables for one test file in the shared DynamoDB Local, under a random prefix, and the variables
 * the services read them from.
 */
export async function testTables(
  extra: NodeJS.ProcessEnv = {},
): Promise<{ variables: NodeJS.ProcessEnv; runtime: ServiceRuntime; prefix: string }> {
  const endpoint = inject('dynamoEndpoint');
  const prefix = `t${randomBytes(5).toString('hex')}-`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTablesWithoutStreams(client, prefix);
  client.destroy();
  const tables = tableVariables(prefix);
  const variables: NodeJS.ProcessEnv = {
    STAGE: 'local',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'silent',
    // Small transaction blocks and time shards, so every listing test crosses blocks and merges shards.
    LEDGER_TX_BLOCK_IDS: '4',
    LEDGER_TX_TIME_SHARDS: '3',
    ...tables,
    ...extra,
  };
  return { variables, runtime: createRuntime(platformConfigFromVariables(variables)), prefix };
}

/**
 * Every table of `lib/resources/definitions.ts` under `prefix`, as the stack defines it but without its stream:
 * nothing in-process reads a DynamoDB stream (the pollers run in a whole local platform, on a DynamoDB Local of
 * its own), and DynamoDB Local spends most of its CPU keeping streams. Measured: a write to a table with a stream
 * costs its JVM 5-9x the CPU of one without (more as the instance's stream records grow), and the in-process
 * suites' DynamoDB Local used three times the CPU of the test files themselves.
 */
async function createTablesWithoutStreams(client: DynamoDBClient, prefix: string): Promise<void> {
  await Promise.all(
    TABLES.map(async (table) => {
      const { StreamSpecification: _stream, ...input } = createTableInput(
        tableName(prefix, table.id),
        table,
      );
      await client.send(new CreateTableCommand(input));
      if (!table.ttlAttribute) return;
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: input.TableName,
          TimeToLiveSpecification: { Enabled: true, AttributeName: table.ttlAttribute },
        }),
      );
    }),
  );
}
