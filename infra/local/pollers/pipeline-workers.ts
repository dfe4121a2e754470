import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBStreamsClient,
  type DynamoDBStreamsClientConfig,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runningPipelinesEverywhere } from '../../../lib/exporters/store/pipelines-everywhere.js';
import { exportStores } from '../../../lib/exporters/stores.js';
import { createPipelineWorker } from '../../../lib/exporters/worker/create-worker.js';
import { pipelinesOfWake, wakesOf } from '../../../lib/exporters/worker/stream-wakes.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import type { Logger } from '../../../lib/observability/logger.js';
import { bigintDocumentClient, type ServiceRuntime } from '../../../lib/runtime/runtime.js';
import type { LedgerItemWrite, LedgerWrites } from '../ledger-events/ledger-writes.js';
import { hasStream } from '../provision.js';
import type { WriteSignal } from '../write-signal.js';
import { PipelineScheduler } from './pipeline-scheduler.js';
import { dynamoStreamCheckpoints } from './stream-checkpoints.js';
import { createStreamPoller, type StreamCheckpoints } from './stream-poller.js';

export interface PipelineWorkersOptions {
  runtime: ServiceRuntime;
  dynamo: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  /** This consumer's own checkpoints (dispatch keeps its own). */
  checkpoints: StreamCheckpoints;
  logger?: Logger;
  /** The pipeline worker's clock (tests). */
  now?: () => number;
  /** Pause between empty stream reads (default 1 s: DynamoDB Local's GetRecords is dear, docs/decisions/testing.md). */
  pollIntervalMs?: number;
  /** The gateway's writes: with it, an idle poller backs off to IDLE_MAX_MS and a write wakes it within an interval. */
  wakeOn?: WriteSignal;
  /**
   * The embedded platform's ledger writes: a ledger table without a stream wakes pipelines from them (the worker
   * reads the log itself from its cursor; at start every running pipeline is woken anyway).
   */
  ledgerWrites?: LedgerWrites;
}

/** An idle platform's pollers cost DynamoDB Local's one database thread a GetRecords each per pause. */
const IDLE_MAX_MS = 8_000;

/**
 * The pipeline worker as the stack's ledger-stream event source mapping would run it, locally: every ledger
 * table's stream wakes the pipelines of a ledger that logged, and a pipeline that was created, started or reset;
 * the scheduler drains them and retries a failed one after its back-off. At start, every running pipeline is woken
 * once (those that were behind or backing off when the platform stopped). Resolves with the function that stops
 * it all, once every poller is positioned.
 */
export async function startPipelineWorkers(
  options: PipelineWorkersOptions,
): Promise<() => Promise<void>> {
  const { runtime, logger } = options;
  const { config } = runtime;
  const now = options.now ?? Date.now;
  const worker = createPipelineWorker(runtime, { now });
  const doc: DynamoDBDocumentClient = bigintDocumentClient(runtime);
  const stores = exportStores(doc, config.tables.ledger);
  const scheduler = new PipelineScheduler((ref) => worker.drain(ref), now, logger);
  const pollers: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    await Promise.all(pollers.splice(0).map((p) => p.stop()));
    await scheduler.stop();
  };
  try {
    for (const table of new BucketTables(config.tables.ledger, config.ledger.bucketTables).all()) {
      if (options.ledgerWrites && !(await hasStream(options.dynamo, table))) {
        const interval = options.pollIntervalMs ?? 1000;
        const stopWakes = wakeFromWrites(
          options.ledgerWrites,
          table,
          stores,
          scheduler,
          interval,
          logger,
        );
        pollers.push({ stop: async () => stopWakes() });
        continue;
      }
      const poller = createStreamPoller({
        dynamo: options.dynamo,
        streams: options.streams,
        table,
        checkpoints: options.checkpoints,
        intervalMs: options.pollIntervalMs ?? 1000,
        // Records only wake pipelines (which read the log themselves): no need to read them as they come.
        busyPauseMs: options.pollIntervalMs ?? 1000,
        batchSize: 1000,
        ...(options.wakeOn ? { wakeOn: options.wakeOn, idleMaxMs: IDLE_MAX_MS } : {}),
        ...(logger ? { logger } : {}),
        handler: async (records) => {
          for (const wake of wakesOf(records))
            for (const ref of await pipelinesOfWake(wake, stores)) scheduler.wake(ref);
          return { batchItemFailures: [] };
        },
      });
      await poller.start();
      pollers.push(poller);
    }
    for await (const ref of runningPipelinesEverywhere(doc, config.tables.ledger))
      scheduler.wake(ref);
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}

/**
 * The pipeline worker in the local platform: its own streams client, and checkpoints of its own beside the
 * dispatcher's (in the webhooks table), so a restart resumes where it stopped. Registers its stops with `onStop`.
 */
export async function startLocalPipelineWorkers(options: {
  runtime: ServiceRuntime;
  dynamo: DynamoDBClient;
  streamsConnection: DynamoDBStreamsClientConfig;
  checkpointsTable: string;
  logger: Logger;
  onStop: (stop: () => Promise<void>) => void;
  wakeOn: WriteSignal;
  ledgerWrites?: LedgerWrites;
}): Promise<void> {
  const streams = new DynamoDBStreamsClient(options.streamsConnection);
  options.onStop(async () => streams.destroy());
  const stop = await startPipelineWorkers({
    runtime: options.runtime,
    dynamo: options.dynamo,
    streams,
    checkpoints: dynamoStreamCheckpoints(
      options.runtime.doc,
      options.checkpointsTable,
      'pipelines',
    ),
    logger: options.logger,
    wakeOn: options.wakeOn,
    ...(options.ledgerWrites ? { ledgerWrites: options.ledgerWrites } : {}),
  });
  options.onStop(stop);
}

/**
 * Wakes what stream records of the process's own ledger-table writes would have woken (`wakesOf`), gathered for
 * `intervalMs` as the stream poller's busy pause gathers records: one pipelines read per ledger per interval,
 * not one per commit. Answers the function that stops it.
 */
function wakeFromWrites(
  writes: LedgerWrites,
  table: string,
  stores: ReturnType<typeof exportStores>,
  scheduler: PipelineScheduler,
  intervalMs: number,
  logger: Logger | undefined,
): () => void {
  const pending = new Map<string, LedgerItemWrite>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const records = [...pending.values()].map((w) => ({
      eventName: 'INSERT',
      dynamodb: {
        Keys: { pk: { S: w.pk }, sk: { S: w.sk } },
        ...(w.item ? { NewImage: w.item } : {}),
      },
    }));
    pending.clear();
    for (const wake of wakesOf(records))
      pipelinesOfWake(wake, stores).then(
        (refs) => {
          for (const ref of refs) scheduler.wake(ref);
        },
        (err) =>
          logger?.log('warn', 'pipelines: waking after a write failed', { error: String(err) }),
      );
  };
  const unsubscribe = writes.on((batch) => {
    for (const w of batch) if (w.table === table) pending.set(`${w.pk}\u0000${w.sk}`, w);
    if (pending.size > 0 && !timer) timer = setTimeout(flush, intervalMs);
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
