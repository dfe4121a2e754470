/**
 * The local platform's pipeline worker (infra/local/pollers/pipeline-workers.ts): woken by the ledger table's
 * stream and at start, retried after its back-off, exactly as a user of `npm start` sees it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoLocal, startDynamoLocal } from '../../../infra/local/dynamodb-local.js';
import { startPipelineWorkers } from '../../../infra/local/pollers/pipeline-workers.js';
import type { StreamCheckpoints } from '../../../infra/local/pollers/stream-poller.js';
import { ensureTables } from '../../../infra/local/provision.js';
import { platformConfigFromVariables } from '../../../lib/config/env.js';
import { createRuntime, type ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { startExportReceiver } from '../../support/export-receiver.js';
import { ledgerClient } from '../../support/ledger.js';
import { TEST_BASE_URL } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

const local = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
/**
 * A DynamoDB Local of this file's own, as the stream poller's test has: streams are polled here, and on the run's
 * shared instance GetRecords slows with every record the whole run wrote (docs/decisions/testing.md).
 */
let dynamoLocal: DynamoLocal;

beforeAll(async () => {
  dynamoLocal = await startDynamoLocal();
  const { endpoint } = dynamoLocal;
  dynamo = new DynamoDBClient({ ...local, endpoint });
  streams = new DynamoDBStreamsClient({ ...local, endpoint });
  const tables = await ensureTables(dynamo, 'pipelines-');
  const env = {
    STAGE: 'local',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'silent',
    ...tables,
  };
  runtime = createRuntime(platformConfigFromVariables(env));
  ({ call } = await ledgerClient(runtime));
});

afterAll(async () => {
  dynamo?.destroy();
  streams?.destroy();
  await dynamoLocal?.stop();
});

function memoryCheckpoints(): StreamCheckpoints {
  const saved = new Map<string, Map<string, string>>();
  return {
    load: async (arn) => new Map(saved.get(arn) ?? []),
    save: async (arn, shard, sequence) => {
      saved.set(arn, (saved.get(arn) ?? new Map()).set(shard, sequence));
    },
  };
}

/** Waits until `check` holds (the worker runs on its own); fails with what was last seen after 30 s. */
async function eventually<T>(read: () => Promise<T> | T, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const commit = async (ledger: string, n: number) => {
  for (let i = 0; i < n; i++) {
    const res = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: `shop:${i}`, amount: 100n, asset: 'USD/2' }],
    });
    expect(res.status, res.text).toBe(200);
  }
};

describe('local pipeline worker', () => {
  it('picks up a pipeline at start, follows new commits, and rides out a receiver outage with no gap', async () => {
    const receiver = await startExportReceiver();
    expect((await call('POST', '/v2/live')).status).toBe(204);
    await commit('live', 5);
    const exporter = await call('POST', '/v2/_/exporters', {
      driver: 'http',
      config: { url: receiver.url, batching: { maxItems: 2 } },
    });
    const pipeline = await call('POST', '/v2/live/pipelines', {
      exporterID: exporter.body.data.id,
    });
    expect(pipeline.status).toBe(201);
    const path = `/v2/live/pipelines/${pipeline.body.data.id}`;
    const exported = () => [...receiver.logsById().keys()].sort((a, b) => a - b);
    const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

    const stop = await startPipelineWorkers({
      runtime,
      dynamo,
      streams,
      checkpoints: memoryCheckpoints(),
    });
    try {
      expect(await eventually(exported, (ids) => ids.length >= 5)).toEqual(range(5));
      await commit('live', 3);
      expect(await eventually(exported, (ids) => ids.length >= 8)).toEqual(range(8));

      await receiver.down();
      await commit('live', 2);
      const failing = await eventually(
        async () => (await call('GET', path)).body.data,
        (p) => p.error !== undefined,
      );
      expect(failing.error).toMatch(/^network: ECONNREFUSED/);
      expect(Number(failing.lastLogID)).toBe(8);

      await receiver.up();
      expect(await eventually(exported, (ids) => ids.length >= 10)).toEqual(range(10));
      const recovered = await eventually(
        async () => (await call('GET', path)).body.data,
        (p) => p.error === undefined,
      );
      expect(Number(recovered.lastLogID)).toBe(10);
      // In order: every batch is consecutive logs, and each starts right after one already sent.
      for (const batch of receiver.received)
        expect(batch.ids).toEqual(range(batch.ids.at(-1)!).slice(batch.ids[0]! - 1));
    } finally {
      await stop();
      await receiver.close();
    }
  });
});
