import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTables } from '../../infra/local/provision.js';
import { platformConfigFromEnv } from '../../lib/config/env.js';
import { createRuntime, type ServiceRuntime } from '../../lib/runtime/runtime.js';

export const TEST_BASE_URL = 'http://platform.test';

/**
 * Fresh tables for one test file in the shared DynamoDB Local, under a random prefix, and the environment
 * the services read them from.
 */
export async function testEnvironment(
  extra: NodeJS.ProcessEnv = {},
): Promise<{ env: NodeJS.ProcessEnv; runtime: ServiceRuntime; prefix: string }> {
  const endpoint = inject('dynamoEndpoint');
  const prefix = `t${randomBytes(5).toString('hex')}-`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const tables = await ensureTables(client, prefix);
  client.destroy();
  const env: NodeJS.ProcessEnv = {
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
  return { env, runtime: createRuntime(platformConfigFromEnv(env)), prefix };
}
