import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '../../../lib/observability/logger.js';

/** What a stream consumer answers for a batch, as a Lambda with `ReportBatchItemFailures` does. */
export interface StreamBatchResult {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

export interface StreamPollerOptions {
  dynamo: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  /** The table whose stream is polled. */
  table: string;
  handler: (records: _Record[]) => Promise<StreamBatchResult>;
  /** Pause between polls when there was nothing to read. Default 200 ms. */
  intervalMs?: number;
  /** Records per GetRecords (a batch). Default 100, Lambda's default batch size for streams. */
  batchSize?: number;
  /** First wait after a failed batch; doubled on each retry up to `maxBackoffMs`. Default 200 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  logger?: Logger;
  /**
   * Where checkpoints survive a restart. With it, start() resumes each shard after its saved checkpoint
   * (AFTER_SEQUENCE_NUMBER) and reads a shard it has none for from its beginning (TRIM_HORIZON), so records
   * written while the poller was stopped are handed over; without it, start() positions at the stream's end.
   */
  checkpoints?: StreamCheckpoints;
}

/** Persistent per-shard checkpoints of one consumer, keyed by stream ARN and shard id. */
export interface StreamCheckpoints {
  load(streamArn: string): Promise<Map<string, string>>;
  save(streamArn: string, shardId: string, sequenceNumber: string): Promise<void>;
}

export interface StreamPoller {
  /** Positions (after the saved checkpoints, or at the end of every open shard) and starts polling; resolves once positioned. */
  start(): Promise<void>;
  /** Stops polling and waits for the batch in progress; leaves no timer behind. */
  stop(): Promise<void>;
}

interface ShardState {
  id: string;
  parentId?: string;
  iterator?: string;
  /** Last sequence number handed over successfully (the checkpoint). */
  checkpoint?: string;
  /** Consecutive TrimmedDataAccessException answers (see pollOnce). */
  trimmedInARow?: number;
  /** Where to read from without a checkpoint: the shard's beginning. */
  start: 'TRIM_HORIZON';
  done: boolean;
}

/** Trimmed answers in a row, on a shard with a checkpoint, before it is read from TRIM_HORIZON instead. */
const TRIMMED_BEFORE_FALLBACK = 5;

/**
 * Feeds a DynamoDB stream to a handler the way a Lambda event source mapping does (DESIGN.md, "The same code,
 * two runtimes"): in order, per shard, in batches; on a partial failure the batch is retried from the first
 * failed record after a backoff (doubling, capped), and a failed invocation (the handler throws) retries the
 * whole batch; a record is never skipped, as with the mapping's default of unbounded retries. Shard lineage is
 * followed: a child shard is read (from its beginning) only once its parent is exhausted.
 *
 * Position at start: with `checkpoints`, after each shard's saved checkpoint, or from the beginning of a shard
 * it has none for (a record handed over twice is harmless: dispatch is idempotent by delivery id), so records
 * written while the poller was stopped are not lost. A checkpoint is saved after every accepted batch (part).
 * Without `checkpoints`: the end of the shards open at that moment (as LATEST would be).
 */
export function createStreamPoller(options: StreamPollerOptions): StreamPoller {
  const intervalMs = options.intervalMs ?? 200;
  const batchSize = options.batchSize ?? 100;
  const backoffMs = options.backoffMs ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 5_000;
  const shards = new Map<string, ShardState>();
  let streamArn: string | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Set when a shard closed: its children are looked for at once. */
  let rediscover = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        wake = undefined;
        resolve();
      };
      timer = setTimeout(() => wake?.(), ms);
    });

  const log = (
    level: 'warn' | 'error' | 'debug',
    message: string,
    fields: Record<string, unknown> = {},
  ) => options.logger?.log(level, `stream-poller: ${message}`, { table: options.table, ...fields });

  /** Adds the shards not known yet: at start closed ones are history; a shard found later is read from its beginning. */
  async function discover(atStart: boolean): Promise<void> {
    if (!streamArn) return;
    const found: Shard[] = [];
    let exclusiveStart: string | undefined;
    do {
      const { StreamDescription } = await options.streams.send(
        new DescribeStreamCommand({
          StreamArn: streamArn,
          ...(exclusiveStart ? { ExclusiveStartShardId: exclusiveStart } : {}),
        }),
      );
      found.push(...(StreamDescription?.Shards ?? []));
      exclusiveStart = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStart);
    for (const shard of found) {
      if (!shard.ShardId || shards.has(shard.ShardId)) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      shards.set(shard.ShardId, {
        id: shard.ShardId,
        ...(shard.ParentShardId ? { parentId: shard.ParentShardId } : {}),
        start: 'TRIM_HORIZON',
        done: atStart && closed,
      });
    }
  }

  /** Reads `shard` from its beginning to its end without handing anything over: checkpoint and iterator at the end. */
  async function skipToEnd(shard: ShardState): Promise<void> {
    let iterator = await iteratorFor(shard);
    while (iterator) {
      const { Records = [], NextShardIterator } = await options.streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
      );
      const last = Records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) shard.checkpoint = last;
      iterator = NextShardIterator;
      if (Records.length === 0) break;
    }
    if (iterator) shard.iterator = iterator;
    else shard.done = true;
  }

  /** Moves the checkpoint, and persists it when checkpoints are kept: a failed save only means a replay after a restart. */
  async function checkpoint(shard: ShardState, sequenceNumber: string): Promise<void> {
    shard.checkpoint = sequenceNumber;
    if (!options.checkpoints || !streamArn) return;
    try {
      await options.checkpoints.save(streamArn, shard.id, sequenceNumber);
    } catch (err) {
      log(
        'warn',
        'saving the checkpoint failed; its records may be handed over again after a restart',
        { shard: shard.id, error: String(err) },
      );
    }
  }

  async function iteratorFor(shard: ShardState): Promise<string | undefined> {
    const { ShardIterator } = await options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.id,
        ...(shard.checkpoint
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.checkpoint }
          : { ShardIteratorType: shard.start }),
      }),
    );
    return ShardIterator;
  }

  /** Hands `records` over until every one is accepted (or the poller stops): retries from the first failure. */
  async function deliver(shard: ShardState, records: _Record[]): Promise<void> {
    let remaining = records;
    for (let retry = 0; remaining.length > 0 && running; retry++) {
      if (retry > 0) await sleep(Math.min(maxBackoffMs, backoffMs * 2 ** (retry - 1)));
      if (!running) return;
      let failedAt = 0;
      try {
        const { batchItemFailures } = await options.handler(remaining);
        if (batchItemFailures.length === 0) failedAt = remaining.length;
        else {
          const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
          const index = remaining.findIndex(
            (r) => failed.has(r.dynamodb?.SequenceNumber ?? '') || failed.has(r.eventID ?? ''),
          );
          // An identifier that names no record fails the whole batch, as Lambda treats it.
          failedAt = Math.max(index, 0);
          log('warn', 'batch partially failed; retrying from the first failure', {
            shard: shard.id,
            retry: retry + 1,
          });
        }
      } catch (err) {
        log('error', 'handler failed; retrying the batch', {
          shard: shard.id,
          retry: retry + 1,
          error: String(err),
        });
      }
      const accepted = remaining.slice(0, failedAt);
      const last = accepted.at(-1)?.dynamodb?.SequenceNumber;
      if (last) await checkpoint(shard, last);
      remaining = remaining.slice(failedAt);
    }
  }

  /** One pass over the readable shards; true when any records were read. */
  async function pollOnce(): Promise<boolean> {
    let read = false;
    let closedOne = false;
    for (const shard of shards.values()) {
      if (!running) break;
      if (shard.done) continue;
      if (shard.parentId && shards.get(shard.parentId)?.done === false) continue;
      try {
        shard.iterator ??= await iteratorFor(shard);
        if (!shard.iterator) {
          shard.done = true;
          closedOne = true;
          continue;
        }
        const { Records = [], NextShardIterator } = await options.streams.send(
          new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: batchSize }),
        );
        shard.trimmedInARow = 0;
        if (Records.length > 0) {
          read = true;
          await deliver(shard, Records);
          if (!running) return read;
        }
        if (NextShardIterator) shard.iterator = NextShardIterator;
        else {
          delete shard.iterator;
          shard.done = true;
          closedOne = true;
          rediscover = true;
        }
      } catch (err) {
        // Expired or trimmed iterator, or DynamoDB Local hiccup: start again from the checkpoint. DynamoDB Local
        // answers TrimmedDataAccessException to an iterator taken on a shard that was empty then: expected.
        delete shard.iterator;
        const trimmed = (err as Error).name === 'TrimmedDataAccessException';
        const expected = trimmed || (err as Error).name === 'ExpiredIteratorException';
        log(expected ? 'debug' : 'warn', 'reading the shard failed; repositioning', {
          shard: shard.id,
          error: String(err),
        });
        // A checkpoint the stream no longer holds (its records aged out while the poller was stopped) can never be
        // resumed after: fall back to the oldest record still there rather than retrying forever.
        shard.trimmedInARow = trimmed ? (shard.trimmedInARow ?? 0) + 1 : 0;
        if (shard.checkpoint && shard.trimmedInARow >= TRIMMED_BEFORE_FALLBACK) {
          log(
            'warn',
            'checkpoint trimmed from the stream; reading the shard from its oldest record',
            { shard: shard.id, checkpoint: shard.checkpoint },
          );
          delete shard.checkpoint;
          shard.trimmedInARow = 0;
        }
      }
    }
    return read || closedOne;
  }

  async function run(): Promise<void> {
    let sinceDiscovery = 0;
    while (running) {
      let busy = false;
      try {
        // New shards appear when one closes (DynamoDB rolls shards over): look for them every few seconds.
        if (rediscover || sinceDiscovery++ >= 10) {
          sinceDiscovery = 0;
          rediscover = false;
          await discover(false);
        }
        busy = await pollOnce();
      } catch (err) {
        log('error', 'poll failed', { error: String(err) });
      }
      if (running && !busy) await sleep(intervalMs);
    }
  }

  return {
    async start() {
      if (running) return;
      const { Table } = await options.dynamo.send(
        new DescribeTableCommand({ TableName: options.table }),
      );
      streamArn = Table?.LatestStreamArn;
      if (!streamArn) throw new Error(`table ${options.table} has no stream`);
      if (options.checkpoints) {
        // Resume: every shard still in the stream, closed ones included, from its checkpoint or its beginning.
        await discover(false);
        const saved = await options.checkpoints.load(streamArn);
        for (const shard of shards.values()) {
          const sequenceNumber = saved.get(shard.id);
          if (sequenceNumber) shard.checkpoint = sequenceNumber;
        }
        running = true;
        loop = run();
        return;
      }
      await discover(true);
      // Position at the end of each open shard now, so that whatever is written after start() resolves is
      // seen. Not with a LATEST iterator: DynamoDB Local answers the first GetRecords after new writes on one
      // with TrimmedDataAccessException, and a LATEST taken again then skips those writes. Reading the shard
      // through instead gives a real checkpoint (its last sequence number) to resume after.
      for (const shard of shards.values()) if (!shard.done) await skipToEnd(shard);
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = undefined;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
