/**
 * The pipeline worker against a loopback receiver (the `http` driver, through the SSRF guard): every test ends
 * with the exported set equal to the ledger's log, in order, no gap; duplicates only of a batch sent again.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPipelineWorker } from '../../../lib/exporters/worker/create-worker.js';
import type { PipelineRef } from '../../../lib/exporters/worker/drain-pipeline.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { startExportReceiver } from '../../support/export-receiver.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let clock = T0;
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const receivers: Array<{ close(): Promise<void> }> = [];
const worker = () => createPipelineWorker(runtime, { now: () => clock });

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
});

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A ledger with `transactions` transactions and a metadata change after every fifth: its log ids 1…n. */
async function ledgerWithHistory(name: string, transactions: number): Promise<void> {
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  for (let i = 1; i <= transactions; i++) {
    const posting = {
      source: 'world',
      destination: `users:${i % 4}`,
      amount: BigInt(i) * 10n ** 20n,
      asset: 'EUR/2',
    };
    const res = await call('POST', `/v2/${name}/transactions`, {
      postings: [posting],
      metadata: { n: String(i) },
    });
    expect(res.status, res.text).toBe(200);
    if (i % 5 === 0) {
      const meta = await call('POST', `/v2/${name}/accounts/users:${i % 4}/metadata`, {
        seen: String(i),
      });
      expect(meta.status, meta.text).toBe(204);
    }
  }
}

/** The ledger's log as the API lists it, oldest first, each with its ledger: what an exporter must receive. */
async function logOf(name: string): Promise<Array<Record<string, unknown>>> {
  const res = await call('GET', `/v2/${name}/logs?pageSize=1000`);
  expect(res.body.cursor.hasMore).toBe(false);
  return (res.body.cursor.data as Array<Record<string, unknown>>)
    .reverse()
    .map((log) => ({ ...log, ledger: name }));
}

async function pipelineOn(ledger: string, url: string, maxItems: number): Promise<PipelineRef> {
  const exporter = await call('POST', '/v2/_/exporters', {
    driver: 'http',
    config: { url, headers: { Authorization: 'Bearer sink-token' }, batching: { maxItems } },
  });
  expect(exporter.status, exporter.text).toBe(201);
  const pipeline = await call('POST', `/v2/${ledger}/pipelines`, {
    exporterID: exporter.body.data.id,
  });
  expect(pipeline.status, pipeline.text).toBe(201);
  return { environment: 'default', ledger, id: pipeline.body.data.id };
}

/** The pipeline's state as the API shows it, its cursor as a number. */
const state = async (ref: PipelineRef) => {
  const { data } = (await call('GET', `/v2/${ref.ledger}/pipelines/${ref.id}`)).body;
  return data.lastLogID === undefined ? data : { ...data, lastLogID: Number(data.lastLogID) };
};
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('pipeline worker, http driver', () => {
  it('backfills a history in bounded batches in log order, then follows new commits', async () => {
    await ledgerWithHistory('history', 30); // 36 logs
    const receiver = await startExportReceiver();
    receivers.push(receiver);
    const ref = await pipelineOn('history', receiver.url, 8);

    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 36 });
    expect(receiver.received.map((b) => b.idempotencyKey)).toEqual([
      'history:1-8',
      'history:9-16',
      'history:17-24',
      'history:25-32',
      'history:33-36',
    ]);
    expect(receiver.received.every((b) => b.authorization === 'Bearer sink-token')).toBe(true);
    expect(receiver.received.flatMap((b) => b.logs)).toEqual(await logOf('history'));
    expect(await state(ref)).toMatchObject({ enabled: true, lastLogID: 36 });
    expect(await state(ref)).not.toHaveProperty('error');

    const more = await call('POST', '/v2/history/transactions', {
      postings: [{ source: 'world', destination: 'late', amount: 5n, asset: 'EUR/2' }],
    });
    expect(more.status).toBe(200);
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 37 });
    expect(receiver.received.at(-1)!.logs).toEqual((await logOf('history')).slice(36));
    // Caught up: nothing is sent again.
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 37 });
    expect(receiver.received).toHaveLength(6);
  });

  it('sends at most maxBatches batches per drain, and says there is more', async () => {
    await ledgerWithHistory('budget', 10); // 12 logs
    const receiver = await startExportReceiver();
    receivers.push(receiver);
    const ref = await pipelineOn('budget', receiver.url, 3);
    expect(await worker().drain(ref, { maxBatches: 2 })).toEqual({ state: 'more', lastLogId: 6 });
    expect(await worker().drain(ref, { maxBatches: 2 })).toEqual({ state: 'more', lastLogId: 12 });
    expect(await worker().drain(ref, { maxBatches: 2 })).toEqual({
      state: 'caught-up',
      lastLogId: 12,
    });
    expect(receiver.received.flatMap((b) => b.logs)).toEqual(await logOf('budget'));
  });

  it('receiver down, then up: the failure is recorded and backed off, then the log is exported with no gap', async () => {
    await ledgerWithHistory('outage', 20); // 24 logs
    const receiver = await startExportReceiver();
    receivers.push(receiver);
    const ref = await pipelineOn('outage', receiver.url, 10);
    expect(await worker().drain(ref, { maxBatches: 1 })).toEqual({ state: 'more', lastLogId: 10 });
    await receiver.down();

    const failed = await worker().drain(ref);
    expect(failed).toEqual({
      state: 'failed',
      error: expect.stringMatching(/^network: ECONNREFUSED/),
      retryAtMs: clock + 1000,
    });
    expect(await state(ref)).toMatchObject({
      enabled: true,
      lastLogID: 10,
      error: (failed as { error: string }).error,
    });
    // Within its back-off the pipeline is left alone; each failure in a row doubles the wait.
    expect(await worker().drain(ref)).toEqual({ state: 'waiting', retryAtMs: clock + 1000 });
    clock += 1000;
    expect(await worker().drain(ref)).toMatchObject({ state: 'failed', retryAtMs: clock + 2000 });

    await receiver.up();
    clock += 2000;
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 24 });
    expect(receiver.received.flatMap((b) => b.logs)).toEqual(await logOf('outage'));
    const after = await state(ref);
    expect(after).toMatchObject({ lastLogID: 24 });
    expect(after).not.toHaveProperty('error');
  });

  it('a batch the receiver took but the worker never saw succeed is sent again, and only that batch', async () => {
    await ledgerWithHistory('crash', 10); // 12 logs
    // The second batch is stored and answered 500: as a worker killed between the send and the cursor move.
    const receiver = await startExportReceiver((n) => (n === 2 ? 500 : 200));
    receivers.push(receiver);
    const ref = await pipelineOn('crash', receiver.url, 5);
    expect(await worker().drain(ref)).toMatchObject({
      state: 'failed',
      error: 'the receiver answered HTTP 500',
    });
    clock += 1000;
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 12 });
    expect(receiver.received.map((b) => b.idempotencyKey)).toEqual([
      'crash:1-5',
      'crash:6-10',
      'crash:6-10',
      'crash:11-12',
    ]);
    const byId = receiver.logsById();
    expect([...byId.keys()].sort((a, b) => a - b).map((id) => byId.get(id))).toEqual(
      await logOf('crash'),
    );
  });

  it('two workers woken for one pipeline at once: no gap, no reorder, the cursor at the last log', async () => {
    await ledgerWithHistory('twins', 25); // 30 logs
    const receiver = await startExportReceiver();
    receivers.push(receiver);
    const ref = await pipelineOn('twins', receiver.url, 4);
    const outcomes = await Promise.all([worker().drain(ref), worker().drain(ref)]);
    expect(outcomes).toEqual([
      { state: 'caught-up', lastLogId: 30 },
      { state: 'caught-up', lastLogId: 30 },
    ]);
    const log = await logOf('twins');
    for (const batch of receiver.received) {
      // Each batch is consecutive logs in order, exactly as logged.
      const first = batch.ids[0]!;
      expect(batch.logs).toEqual(log.slice(first - 1, first - 1 + batch.logs.length));
    }
    expect([...receiver.logsById().keys()].sort((a, b) => a - b)).toEqual(range(1, 30));
    expect((await state(ref)).lastLogID).toBe(30);
  });

  it('stop halts before the next batch, start resumes from the cursor, a reset during a run starts again from the first log', async () => {
    await ledgerWithHistory('control', 10); // 12 logs
    let resetDuring: number | undefined;
    let ref: PipelineRef;
    const receiver = await startExportReceiver(async (n) => {
      if (n === resetDuring) {
        const res = await call('POST', `/v2/control/pipelines/${ref.id}/reset`);
        expect(res.status).toBe(202);
      }
      return 200;
    });
    receivers.push(receiver);
    ref = await pipelineOn('control', receiver.url, 4);
    expect((await call('POST', `/v2/control/pipelines/${ref.id}/stop`)).status).toBe(202);
    expect(await worker().drain(ref)).toEqual({ state: 'stopped' });
    expect(receiver.received).toEqual([]);

    expect((await call('POST', `/v2/control/pipelines/${ref.id}/start`)).status).toBe(202);
    expect(await worker().drain(ref, { maxBatches: 1 })).toEqual({ state: 'more', lastLogId: 4 });

    // The reset lands while batch 2 (logs 5-8) is in flight: that batch cannot move the cursor, and the run
    // goes on from log 1.
    resetDuring = 2;
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 12 });
    expect(receiver.received.map((b) => b.idempotencyKey)).toEqual([
      'control:1-4',
      'control:5-8',
      'control:1-4',
      'control:5-8',
      'control:9-12',
    ]);
    expect(receiver.received.slice(2).flatMap((b) => b.logs)).toEqual(await logOf('control'));
    expect((await state(ref)).lastLogID).toBe(12);
  });

  it('records a failure when the exporter refuses the address at connect time, and exports nothing', async () => {
    expect((await call('POST', '/v2/guarded')).status).toBe(204);
    await call('POST', '/v2/guarded/transactions', {
      postings: [{ source: 'world', destination: 'a', amount: 1n, asset: 'EUR' }],
    });
    const guarded = createPipelineWorker(runtime, {
      now: () => clock,
      drivers: { allowLoopback: false },
    });
    const ref = await pipelineOn('guarded', 'http://127.0.0.1:9/never', 10);
    expect(await guarded.drain(ref)).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/^refused: /),
    });
    expect((await state(ref)).lastLogID).toBeUndefined();
  });
});
