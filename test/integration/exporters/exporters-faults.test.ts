/**
 * Pipeline faults (issue 30 item 6) on the s3 driver (s3rver) and the kinesis driver (kinesalite), in-process:
 * the destination down for a minute, the worker killed between a batch's send and its cursor move, a reset
 * landing in that same moment, two workers draining one pipeline at once. Each ends with the exported set equal to
 * the ledger's log, no gap; duplicates only where the driver's idempotency removes them (the s3 object of a batch
 * sent again is overwritten, so its objects never repeat a log; kinesis records repeat only a resent batch, and
 * dropping log ids already seen gives the log in order). The http driver's faults are in exporters-worker.test.ts.
 */
import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineRef, PipelineWorker } from '../../../lib/exporters/worker/drain-pipeline.js';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LogReads } from '../../../lib/ledger/store/log-reads.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { bigintDocumentClient, type ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { startKinesisEmulator } from '../../support/kinesis-emulator.js';
import { ledgerClient } from '../../support/ledger.js';
import { startS3Emulator } from '../../support/s3-emulator.js';
import { testTables } from '../../support/tables.js';

const BUCKET = 'exports';
const T0 = Date.parse('2026-03-01T10:00:00Z');
let clock = T0;
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let s3: Awaited<ReturnType<typeof startS3Emulator>>;
let kinesis: Awaited<ReturnType<typeof startKinesisEmulator>>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  [s3, kinesis] = await Promise.all([startS3Emulator([BUCKET]), startKinesisEmulator()]);
});

afterAll(async () => {
  await Promise.all([s3?.close(), kinesis?.close()]);
});

/**
 * A pipeline worker whose own writes go through DynamoDB Local, except that `beforeCursorMove(n)` runs before its
 * n-th cursor move (1, 2 …): it may throw, as a worker killed right after a send, or act meanwhile (a reset).
 */
function workerWith(beforeCursorMove: (n: number) => Promise<void> = async () => {}) {
  const { config } = runtime;
  const doc = bigintDocumentClient(runtime);
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  let moves = 0;
  const faulty = new Proxy(doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: { input: { UpdateExpression?: string } }) => {
        if (
          command instanceof UpdateCommand &&
          command.input.UpdateExpression?.startsWith('SET #last')
        )
          await beforeCursorMove(++moves);
        return target.send(command as never);
      };
    },
  });
  return new PipelineWorker({
    doc: faulty,
    table: config.tables.ledger,
    lookup: new LedgerLookup(new LedgerRegistry(doc, buckets), () => clock),
    logs: new LogReads(doc, (bucket) => buckets.tableFor(bucket), config.ledgerScanReads),
    drivers: {
      allowLoopback: true,
      s3Credentials: s3.credentials,
      kinesisCredentials: kinesis.credentials,
    },
    now: () => clock,
  });
}

async function ledgerWithHistory(name: string, transactions: number): Promise<void> {
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  for (let i = 1; i <= transactions; i++) {
    const res = await call('POST', `/v2/${name}/transactions`, {
      postings: [{ source: 'world', destination: `u:${i % 3}`, amount: BigInt(i), asset: 'EUR' }],
    });
    expect(res.status, res.text).toBe(200);
  }
}

/** The ledger's log as the API lists it, oldest first, each with its ledger. */
async function logOf(name: string): Promise<Array<Record<string, unknown>>> {
  const res = await call('GET', `/v2/${name}/logs?pageSize=1000`);
  return (res.body.cursor.data as Array<Record<string, unknown>>)
    .reverse()
    .map((log) => ({ ...log, ledger: name }));
}

async function pipelineOn(
  ledger: string,
  driver: 's3' | 'kinesis',
  config: Record<string, unknown>,
): Promise<PipelineRef> {
  const endpoint = driver === 's3' ? s3.endpoint : kinesis.endpoint;
  const exporter = await call('POST', '/v2/_/exporters', {
    driver,
    config: { endpoint, batching: { maxItems: 5 }, ...config },
  });
  expect(exporter.status, exporter.text).toBe(201);
  const pipeline = await call('POST', `/v2/${ledger}/pipelines`, {
    exporterID: exporter.body.data.id,
  });
  expect(pipeline.status, pipeline.text).toBe(201);
  return { environment: 'default', ledger, id: pipeline.body.data.id };
}

/** The NDJSON objects under `prefix`: their names (the batch's range) and their logs, in key order. */
async function objects(bucket: string, prefix: string) {
  const out: Array<{ range: string; logs: Array<Record<string, unknown>> }> = [];
  for (const key of await s3.keys(bucket, prefix)) {
    const { Body } = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const lines = (await Body!.transformToString()).trimEnd().split('\n');
    out.push({
      range: key
        .split('/')
        .at(-1)!
        .replace(/\.ndjson$/, '')
        .replace(/0{10,}/g, ''),
      logs: lines.map((line) => parseJson(line) as Record<string, unknown>),
    });
  }
  return out;
}

/** Kinesis records of `ledger`, in shard order, with what a consumer keeps: each log id once, the first copy. */
async function consumed(stream: string, ledger: string) {
  const records = (await kinesis.records(stream)).filter((r) => r.partitionKey === ledger);
  const seen = new Set<number>();
  const kept = records
    .flatMap((r) => r.logs)
    .filter((log) => !seen.has(Number(log.id)) && seen.add(Number(log.id)));
  return { batches: records.map((r) => r.logs.map((l) => Number(l.id))), kept };
}

const cursorOf = async (ref: PipelineRef) =>
  Number((await call('GET', `/v2/${ref.ledger}/pipelines/${ref.id}`)).body.data.lastLogID);

describe('pipeline faults', () => {
  it('the bucket missing for a minute: each retry backs off, nothing is written, then the whole log with no gap', async () => {
    await ledgerWithHistory('outage', 12);
    const ref = await pipelineOn('outage', 's3', { bucket: 'late-bucket', format: 'ndjson' });
    const worker = workerWith();
    const start = clock;
    const waits: number[] = [];
    while (clock - start < 60_000) {
      const outcome = await worker.drain(ref);
      expect(outcome).toMatchObject({
        state: 'failed',
        error: expect.stringMatching(/^s3: NoSuchBucket/),
      });
      const { retryAtMs } = outcome as { retryAtMs: number };
      expect(await worker.drain(ref)).toEqual({ state: 'waiting', retryAtMs });
      waits.push(retryAtMs - clock);
      clock = retryAtMs;
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000]);
    expect((await call('GET', `/v2/outage/pipelines/${ref.id}`)).body.data).not.toHaveProperty(
      'lastLogID',
    );

    await s3.client.send(new CreateBucketCommand({ Bucket: 'late-bucket' }));
    expect(await worker.drain(ref)).toEqual({ state: 'caught-up', lastLogId: 12 });
    const written = await objects('late-bucket', '');
    expect(written.map((o) => o.range)).toEqual(['1-5', '6-10', '11-12']);
    expect(written.flatMap((o) => o.logs)).toEqual(await logOf('outage'));
  });

  it('the worker killed after a batch is stored, before its cursor moves: the next worker sends that batch again, onto the same s3 object', async () => {
    await ledgerWithHistory('killed', 13);
    const ref = await pipelineOn('killed', 's3', {
      bucket: BUCKET,
      prefix: 'killed',
      format: 'ndjson',
    });
    const dying = workerWith(async (n) => {
      if (n === 2) throw new Error('worker killed');
    });
    await expect(dying.drain(ref)).rejects.toThrow('worker killed');
    expect(await cursorOf(ref)).toBe(5);
    expect((await objects(BUCKET, 'killed/')).map((o) => o.range)).toEqual(['1-5', '6-10']);

    expect(await workerWith().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 13 });
    const written = await objects(BUCKET, 'killed/');
    expect(written.map((o) => o.range)).toEqual(['1-5', '6-10', '11-13']);
    expect(written.flatMap((o) => o.logs)).toEqual(await logOf('killed'));
  });

  it('the worker killed mid-batch on kinesis: only that batch is repeated, and dropping seen ids gives the log in order', async () => {
    await kinesis.createStream('killed-stream', 2);
    await ledgerWithHistory('killed-k', 12);
    const ref = await pipelineOn('killed-k', 'kinesis', { stream: 'killed-stream' });
    const dying = workerWith(async (n) => {
      if (n === 2) throw new Error('worker killed');
    });
    await expect(dying.drain(ref)).rejects.toThrow('worker killed');
    expect(await workerWith().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 12 });
    const { batches, kept } = await consumed('killed-stream', 'killed-k');
    expect(batches).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [6, 7, 8, 9, 10],
      [11, 12],
    ]);
    expect(kept).toEqual(await logOf('killed-k'));
  });

  it('a reset landing between a batch’s send and its cursor move: that move is refused, the run starts again from log 1', async () => {
    await ledgerWithHistory('reset', 12);
    const ref = await pipelineOn('reset', 's3', {
      bucket: BUCKET,
      prefix: 'reset',
      format: 'ndjson',
    });
    let moves = 0;
    const worker = workerWith(async (n) => {
      moves = n;
      if (n === 2)
        expect((await call('POST', `/v2/reset/pipelines/${ref.id}/reset`)).status).toBe(202);
    });
    expect(await worker.drain(ref)).toEqual({ state: 'caught-up', lastLogId: 12 });
    // 1-5, 6-10 (its move refused), then 1-5, 6-10, 11-12 again from the first log.
    expect(moves).toBe(5);
    const written = await objects(BUCKET, 'reset/');
    // Batches 1-5 and 6-10 went twice, onto their own objects: each log is in exactly one object.
    expect(written.map((o) => o.range)).toEqual(['1-5', '6-10', '11-12']);
    expect(written.flatMap((o) => o.logs)).toEqual(await logOf('reset'));
    expect(await cursorOf(ref)).toBe(12);
  });

  it('two workers draining one pipeline at once, on s3 and on kinesis: every log exported, the cursor at the last', async () => {
    await kinesis.createStream('twins-stream', 1);
    await ledgerWithHistory('twins', 23);
    const onS3 = await pipelineOn('twins', 's3', {
      bucket: BUCKET,
      prefix: 'twins',
      format: 'ndjson',
    });
    const onKinesis = await pipelineOn('twins', 'kinesis', { stream: 'twins-stream' });
    const outcomes = await Promise.all([
      workerWith().drain(onS3),
      workerWith().drain(onS3),
      workerWith().drain(onKinesis),
      workerWith().drain(onKinesis),
    ]);
    expect(outcomes).toEqual(Array(4).fill({ state: 'caught-up', lastLogId: 23 }));
    const log = await logOf('twins');
    const written = await objects(BUCKET, 'twins/');
    expect(written.map((o) => o.range)).toEqual(['1-5', '6-10', '11-15', '16-20', '21-23']);
    expect(written.flatMap((o) => o.logs)).toEqual(log);
    const { batches, kept } = await consumed('twins-stream', 'twins');
    // Each record is a run of consecutive logs starting right after a batch boundary; none is skipped.
    for (const ids of batches) expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(kept).toEqual(log);
    expect([await cursorOf(onS3), await cursorOf(onKinesis)]).toEqual([23, 23]);
  });
});
