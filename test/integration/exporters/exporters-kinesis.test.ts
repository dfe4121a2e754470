/**
 * The `kinesis` driver against a Kinesis emulator from npm (kinesalite): a ledger's log lands on one shard (its
 * partition key is the ledger), in log order, no gap; a stream that is missing is a recorded failure, retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipelineWorker } from '../../../lib/exporters/worker/create-worker.js';
import type { PipelineRef } from '../../../lib/exporters/worker/drain-pipeline.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { startKinesisEmulator } from '../../support/kinesis-emulator.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let clock = T0;
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let kinesis: Awaited<ReturnType<typeof startKinesisEmulator>>;
const worker = () =>
  createPipelineWorker(runtime, {
    now: () => clock,
    drivers: { kinesisCredentials: kinesis.credentials },
  });

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  kinesis = await startKinesisEmulator();
});

afterAll(async () => {
  await kinesis?.close();
});

async function ledgerWithHistory(name: string, transactions: number): Promise<void> {
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  for (let i = 1; i <= transactions; i++) {
    const res = await call('POST', `/v2/${name}/transactions`, {
      postings: [
        {
          source: 'world',
          destination: `users:${i % 3}`,
          amount: BigInt(i) * 10n ** 25n,
          asset: 'EUR/2',
        },
      ],
      metadata: { n: String(i) },
    });
    expect(res.status, res.text).toBe(200);
  }
}

async function logOf(name: string): Promise<Array<Record<string, unknown>>> {
  const res = await call('GET', `/v2/${name}/logs?pageSize=1000`);
  return (res.body.cursor.data as Array<Record<string, unknown>>)
    .reverse()
    .map((log) => ({ ...log, ledger: name }));
}

async function pipelineOn(ledger: string, stream: string, maxItems: number): Promise<PipelineRef> {
  const exporter = await call('POST', '/v2/_/exporters', {
    driver: 'kinesis',
    config: { stream, endpoint: kinesis.endpoint, batching: { maxItems } },
  });
  expect(exporter.status, exporter.text).toBe(201);
  const pipeline = await call('POST', `/v2/${ledger}/pipelines`, {
    exporterID: exporter.body.data.id,
  });
  expect(pipeline.status, pipeline.text).toBe(201);
  return { environment: 'default', ledger, id: pipeline.body.data.id };
}

describe('pipeline worker, kinesis driver', () => {
  it('puts each batch as one record keyed by the ledger: one shard per ledger, in log order, no gap', async () => {
    await kinesis.createStream('ledger-logs', 4);
    await ledgerWithHistory('north', 14); // 14 logs
    await ledgerWithHistory('south', 9);
    const north = await pipelineOn('north', 'ledger-logs', 5);
    const south = await pipelineOn('south', 'ledger-logs', 5);
    expect(await worker().drain(north)).toEqual({ state: 'caught-up', lastLogId: 14 });
    expect(await worker().drain(south)).toEqual({ state: 'caught-up', lastLogId: 9 });

    const records = await kinesis.records('ledger-logs');
    for (const ledger of ['north', 'south']) {
      const mine = records.filter((r) => r.partitionKey === ledger);
      expect(new Set(mine.map((r) => r.shardId)).size).toBe(1);
      expect(mine.map((r) => r.logs.map((l) => Number(l.id)))).toEqual(
        ledger === 'north'
          ? [
              [1, 2, 3, 4, 5],
              [6, 7, 8, 9, 10],
              [11, 12, 13, 14],
            ]
          : [
              [1, 2, 3, 4, 5],
              [6, 7, 8, 9],
            ],
      );
      // Exactly the log as the API lists it, amounts exact (10^25 is beyond a double's integers).
      expect(mine.flatMap((r) => r.logs)).toEqual(await logOf(ledger));
    }
    expect(records).toHaveLength(5);
  });

  it('a missing stream is a recorded failure; once it exists the log is exported from the cursor', async () => {
    await ledgerWithHistory('late', 6);
    const ref = await pipelineOn('late', 'not-yet', 4);
    const failed = await worker().drain(ref);
    expect(failed).toEqual({
      state: 'failed',
      error: expect.stringMatching(/^kinesis: ResourceNotFoundException: .* \(stream not-yet\)$/),
      retryAtMs: clock + 1000,
    });
    const state = await call('GET', `/v2/late/pipelines/${ref.id}`);
    expect(state.body.data).toMatchObject({
      enabled: true,
      error: (failed as { error: string }).error,
    });
    expect(state.body.data).not.toHaveProperty('lastLogID');

    await kinesis.createStream('not-yet', 1);
    clock += 1000;
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 6 });
    const records = await kinesis.records('not-yet');
    expect(records.flatMap((r) => r.logs)).toEqual(await logOf('late'));
    expect((await call('GET', `/v2/late/pipelines/${ref.id}`)).body.data).not.toHaveProperty(
      'error',
    );
  });

  it('refuses a malformed kinesis configuration with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'config.stream: '],
      [{ stream: 'has space' }, 'config.stream: must be a Kinesis stream name'],
      [{ stream: 's', region: 'moon' }, 'config.region: must be an AWS region'],
      [{ stream: 's', partitionKey: 'x' }, 'config.partitionKey: '],
    ];
    for (const [config, message] of cases) {
      const res = await call('POST', '/v2/_/exporters', { driver: 'kinesis', config });
      expect(res.status, JSON.stringify(config)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage.startsWith(message), res.body.errorMessage).toBe(true);
    }
  });
});
