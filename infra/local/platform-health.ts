import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Hono } from 'hono';
import { createVersionsApp } from '../../lib/runtime/versions.js';
import { SERVICES } from '../../lib/tokens/scopes.js';
import type { FetchHandler, HealthReport } from './gateway.js';

type Apps = Record<string, { fetch: FetchHandler }>;

export interface PlatformHealthOptions {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  /** The platform's own tables and queues (names and URLs). */
  tables: Record<string, string>;
  queues: Record<string, string>;
  ledgerWorkers: { healthy(): boolean | Promise<boolean> };
  ledgerWriters: { healthy(): boolean | Promise<boolean> };
  apps: Apps;
  baseUrl: string;
}

/** `/_health`: each component up or down, and the platform ok only when every one is up. */
export function platformHealth(options: PlatformHealthOptions): () => Promise<HealthReport> {
  const { dynamo, sqs, tables, queues, apps, baseUrl } = options;
  return async () => {
    const components: Record<string, 'up' | 'down'> = {};
    const check = async (name: string, probe: () => Promise<boolean>) => {
      components[name] = await probe().then(
        (ok) => (ok ? 'up' : 'down'),
        () => 'down' as const,
      );
    };
    await Promise.all([
      // Each of its own tables described: ListTables pages at 100 names, and a DynamoDB Local shared by many
      // platforms (the tests') holds more than that.
      check('dynamodb', async () => {
        const described = await Promise.all(
          Object.values(tables).map((TableName) =>
            dynamo.send(new DescribeTableCommand({ TableName })),
          ),
        );
        return described.every((d) => d.Table?.TableStatus === 'ACTIVE');
      }),
      check('ledger-workers', async () => options.ledgerWorkers.healthy()),
      check('ledger-writers', async () => options.ledgerWriters.healthy()),
      check('sqs', async () => {
        for (const url of Object.values(queues))
          await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url }));
        return true;
      }),
      ...Object.entries(apps).map(([name, app]) =>
        check(name, async () => serviceHealthy(app, baseUrl, name)),
      ),
    ]);
    return {
      status: Object.values(components).every((s) => s === 'up') ? 'ok' : 'unavailable',
      components,
    };
  };
}

/** `GET /versions`, as the auth function answers it in AWS. */
export function platformVersions(apps: Apps, baseUrl: string, stage: string, region: string): Hono {
  return createVersionsApp({
    env: stage,
    region,
    // The reference's services, as the SDK's `getVersions` lists them (the platform API is not one of them).
    probes: Object.entries(apps)
      .filter(([name]) => (SERVICES as readonly string[]).includes(name))
      .map(([name, app]) => ({ name, healthy: async () => serviceHealthy(app, baseUrl, name) })),
  });
}

async function serviceHealthy(
  app: { fetch: FetchHandler },
  baseUrl: string,
  name: string,
): Promise<boolean> {
  return (await app.fetch(new Request(`${baseUrl}/api/${name}/_health`))).status === 200;
}
