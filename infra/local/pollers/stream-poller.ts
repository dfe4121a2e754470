import {
  DescribeTableCommand,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '../../../lib/observability/logger.js';
import type { WriteSignal } from '../write-signal.js';

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
  /**
   * Idle back-off: each poll in a row that read nothing doubles the pause, up to this (default: `intervalMs`, no
   * back-off), and a pause is never shorter than IDLE_DURATION_FACTOR times the last poll took — DynamoDB Local's
   * GetRecords grows slower with every stream record it keeps, and an idle poller must not grow costlier with it.
   */
  idleMaxMs?: number;
  /** Wakes the poller from an idle pause at once (the gateway's writes): idle back-off then costs no latency. */
  wakeOn?: WriteSignal;
  /**
   * Pause after a poll that read records (default 0: the next poll at once). Under load, records then gather into
   * fewer, fuller GetRecords — each of which DynamoDB Local makes costlier as history grows — at the price of this
   * much latency for records after the first.
   */
  busyPauseMs?: number;
  /**
   * An empty read at least this slow writes a position marker (see markPosition). Default STALE_READ_MS; tests set
   * 0 to see the marker written whatever the machine's speed.
   */
  staleReadMs?: number;
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
  /**
   * While records flow, a shard's checkpoint is saved at most this often (default CHECKPOINT_EVERY_MS); the latest
   * is saved once a read finds nothing new, and at stop. Each save is a write with its own commit on DynamoDB
   * Local's one database thread, which every ledger commit waits for; a crash replays at most this long of
   * records, which the handlers take at least once anyway (as from a Lambda event source).
   */
  checkpointEveryMs?: number;
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
  /** The checkpoint last saved, and when (ms). */
  saved?: { sequenceNumber: string; atMs: number };
  /** Consecutive TrimmedDataAccessException answers (see reposition). */
  trimmedInARow?: number;
  /** Where to read from without a checkpoint: the shard's beginning. */
  start: 'TRIM_HORIZON';
  done: boolean;
}

/**
 * The one item a poller writes to its own table to move its stream position forward (see markPosition). Its
 * records are never handed over. Real DynamoDB keeps each shard apart, so nothing like it exists on AWS.
 */
export const POSITION_MARKER_PK = '#LOCAL#STREAM-POSITION';

/**
 * An empty GetRecords slower than this scanned other streams' records: the poller then writes a marker, and its
 * next reads start after it. A fresh emulator answers an empty read in 1–5 ms.
 */
const STALE_READ_MS = 10;

/** Trimmed answers in a row, on a shard with a checkpoint, before it is read from TRIM_HORIZON instead. */
const TRIMMED_BEFORE_FALLBACK = 5;

/**
 * Feeds a DynamoDB stream to a handler the way a Lambda event source mapping does, so the handlers run locally as
 * they run in AWS: in order, per shard, in batches; on a partial failure the batch is retried from the first
 * failed record after a backoff (doubling, capped), and a failed invocation (the handler throws) retries the
 * whole batch; a record is never skipped, as with the mapping's default of unbounded retries. Shard lineage is
 * followed: a child shard is read (from its beginning) only once its parent is exhausted.
 *
 * Position at start: with `checkpoints`, after each shard's saved checkpoint, or from the beginning of a shard
 * it has none for (a record handed over twice is harmless: dispatch is idempotent by delivery id), so records
 * written while the poller was stopped are not lost. A checkpoint is saved at most once a second while records
 * flow (`checkpointEveryMs`), and once caught up.
 * Without `checkpoints`: the end of the shards open at that moment (as LATEST would be).
 */
export function createStreamPoller(options: StreamPollerOptions): StreamPoller {
  const poller = new DynamoStreamPoller(options);
  return { start: () => poller.start(), stop: () => poller.stop() };
}

/** An idle pause is at least this many times as long as the last poll took. */
const IDLE_DURATION_FACTOR = 4;
const CHECKPOINT_EVERY_MS = 1_000;

/** One consumer of one table's stream: its shards, their checkpoints, and the polling loop. */
class DynamoStreamPoller {
  private readonly intervalMs: number;
  private readonly idleMaxMs: number;
  private unsubscribe: (() => void) | undefined;
  private readonly batchSize: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly shards = new Map<string, ShardState>();
  private streamArn: string | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the current pause began (undefined while polling). */
  private sleepStartedAt: number | undefined;
  private sleepEndsAt = 0;
  /** Set when a shard closed: its children are looked for at once. */
  private rediscover = false;
  /** When the last position marker was written (markPosition writes at most one per interval). */
  private markedAt = 0;

  constructor(private readonly options: StreamPollerOptions) {
    this.intervalMs = options.intervalMs ?? 200;
    this.idleMaxMs = Math.max(this.intervalMs, options.idleMaxMs ?? this.intervalMs);
    this.batchSize = options.batchSize ?? 100;
    this.backoffMs = options.backoffMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 5_000;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const { Table } = await this.options.dynamo.send(
      new DescribeTableCommand({ TableName: this.options.table }),
    );
    this.streamArn = Table?.LatestStreamArn;
    if (!this.streamArn) throw new Error(`table ${this.options.table} has no stream`);
    if (this.options.checkpoints) {
      // Resume: every shard still in the stream, closed ones included, from its checkpoint or its beginning.
      await this.discover(false);
      const saved = await this.options.checkpoints.load(this.streamArn);
      for (const shard of this.shards.values()) {
        const sequenceNumber = saved.get(shard.id);
        if (sequenceNumber) {
          shard.checkpoint = sequenceNumber;
          shard.saved = { sequenceNumber, atMs: 0 };
        }
      }
      this.running = true;
      this.loop = this.run();
      return;
    }
    await this.discover(true);
    // Position at the end of each open shard now, so that whatever is written after start() resolves is
    // seen. Not with a LATEST iterator: DynamoDB Local answers the first GetRecords after new writes on one
    // with TrimmedDataAccessException, and a LATEST taken again then skips those writes. Reading the shard
    // through instead gives a real checkpoint (its last sequence number) to resume after.
    for (const shard of this.shards.values()) if (!shard.done) await this.skipToEnd(shard);
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    for (const shard of this.shards.values()) await this.saveCheckpoint(shard);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private sleep(ms: number): Promise<void> {
    this.sleepStartedAt = Date.now();
    this.sleepEndsAt = this.sleepStartedAt + ms;
    return new Promise<void>((resolve) => {
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        this.wake = undefined;
        this.sleepStartedAt = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), ms);
    });
  }

  /**
   * A write was told of: an idle pause ends `intervalMs` after it began (at once if that is past), so writes still
   * reach the poller as fast as without the back-off, but a stream of writes costs one poll per interval, not one
   * GetRecords (and one checkpoint) per write.
   */
  private shortenPause(): void {
    if (this.sleepStartedAt === undefined || !this.wake) return;
    // Never later than the pause would have ended anyway (a busy pause is shorter than an interval).
    const left = Math.min(this.sleepEndsAt, this.sleepStartedAt + this.intervalMs) - Date.now();
    if (left <= 0) {
      this.wake();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake?.(), left);
  }

  private log(
    level: 'warn' | 'error' | 'debug',
    message: string,
    fields: Record<string, unknown> = {},
  ): void {
    this.options.logger?.log(level, `stream-poller: ${message}`, {
      table: this.options.table,
      ...fields,
    });
  }

  /** Adds the shards not known yet: at start closed ones are history; a shard found later is read from its beginning. */
  private async discover(atStart: boolean): Promise<void> {
    if (!this.streamArn) return;
    for (const shard of await this.describeShards(this.streamArn)) {
      if (!shard.ShardId || this.shards.has(shard.ShardId)) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      this.shards.set(shard.ShardId, {
        id: shard.ShardId,
        ...(shard.ParentShardId ? { parentId: shard.ParentShardId } : {}),
        start: 'TRIM_HORIZON',
        done: atStart && closed,
      });
    }
  }

  /** Every shard of the stream, page by page. */
  private async describeShards(streamArn: string): Promise<Shard[]> {
    const found: Shard[] = [];
    let exclusiveStart: string | undefined;
    do {
      const { StreamDescription } = await this.options.streams.send(
        new DescribeStreamCommand({
          StreamArn: streamArn,
          ...(exclusiveStart ? { ExclusiveStartShardId: exclusiveStart } : {}),
        }),
      );
      found.push(...(StreamDescription?.Shards ?? []));
      exclusiveStart = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStart);
    return found;
  }

  /** Reads `shard` from its beginning to its end without handing anything over: checkpoint and iterator at the end. */
  private async skipToEnd(shard: ShardState): Promise<void> {
    let iterator = await this.iteratorFor(shard);
    while (iterator) {
      const { Records = [], NextShardIterator } = await this.options.streams.send(
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

  /** Moves the checkpoint, and saves it unless one was saved within `checkpointEveryMs`. */
  private async checkpoint(shard: ShardState, sequenceNumber: string): Promise<void> {
    shard.checkpoint = sequenceNumber;
    const everyMs = this.options.checkpointEveryMs ?? CHECKPOINT_EVERY_MS;
    if (shard.saved && Date.now() - shard.saved.atMs < everyMs) return;
    await this.saveCheckpoint(shard);
  }

  /** Persists the shard's checkpoint if it moved since saved: a failed save only means a replay after a restart. */
  private async saveCheckpoint(shard: ShardState): Promise<void> {
    const sequenceNumber = shard.checkpoint;
    if (!this.options.checkpoints || !this.streamArn || !sequenceNumber) return;
    if (shard.saved?.sequenceNumber === sequenceNumber) return;
    shard.saved = { sequenceNumber, atMs: Date.now() };
    try {
      await this.options.checkpoints.save(this.streamArn, shard.id, sequenceNumber);
    } catch (err) {
      shard.saved = undefined;
      this.log(
        'warn',
        'saving the checkpoint failed; its records may be handed over again after a restart',
        { shard: shard.id, error: String(err) },
      );
    }
  }

  private async iteratorFor(shard: ShardState): Promise<string | undefined> {
    const { ShardIterator } = await this.options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shard.id,
        ...(shard.checkpoint
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.checkpoint }
          : { ShardIteratorType: shard.start }),
      }),
    );
    return ShardIterator;
  }

  /** Hands `records` over until every one is accepted (or the poller stops): retries from the first failure. */
  private async deliver(shard: ShardState, records: _Record[]): Promise<void> {
    let remaining = records;
    for (let retry = 0; remaining.length > 0 && this.running; retry++) {
      if (retry > 0)
        await this.sleep(Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (retry - 1)));
      if (!this.running) return;
      const failedAt = await this.handOver(shard, remaining, retry);
      const accepted = remaining.slice(0, failedAt);
      const last = accepted.at(-1)?.dynamodb?.SequenceNumber;
      if (last) await this.checkpoint(shard, last);
      remaining = remaining.slice(failedAt);
    }
  }

  /** One invocation of the handler: the index of the first record it did not accept (the length when all were). */
  private async handOver(shard: ShardState, records: _Record[], retry: number): Promise<number> {
    try {
      const { batchItemFailures } = await this.options.handler(records);
      if (batchItemFailures.length === 0) return records.length;
      const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
      const index = records.findIndex(
        (r) => failed.has(r.dynamodb?.SequenceNumber ?? '') || failed.has(r.eventID ?? ''),
      );
      this.log('warn', 'batch partially failed; retrying from the first failure', {
        shard: shard.id,
        retry: retry + 1,
      });
      // An identifier that names no record fails the whole batch, as Lambda treats it.
      return Math.max(index, 0);
    } catch (err) {
      this.log('error', 'handler failed; retrying the batch', {
        shard: shard.id,
        retry: retry + 1,
        error: String(err),
      });
      return 0;
    }
  }

  /** One pass over the readable shards; true when any records were read. */
  private async pollOnce(): Promise<boolean> {
    let read = false;
    let closedOne = false;
    for (const shard of this.shards.values()) {
      if (!this.running) break;
      if (shard.done) continue;
      if (shard.parentId && this.shards.get(shard.parentId)?.done === false) continue;
      try {
        const pass = await this.readShard(shard);
        if (pass.read) read = true;
        if (pass.closed) closedOne = true;
        if (pass.stopped) return read;
      } catch (err) {
        this.reposition(shard, err as Error);
      }
    }
    return read || closedOne;
  }

  /** One GetRecords on `shard`, handed over; whether it read records, closed the shard, or saw the poller stop. */
  private async readShard(
    shard: ShardState,
  ): Promise<{ read: boolean; closed: boolean; stopped: boolean }> {
    shard.iterator ??= await this.iteratorFor(shard);
    if (!shard.iterator) {
      shard.done = true;
      return { read: false, closed: true, stopped: false };
    }
    const started = Date.now();
    const { Records = [], NextShardIterator } = await this.options.streams.send(
      new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: this.batchSize }),
    );
    shard.trimmedInARow = 0;
    const records = Records.filter((r) => r.dynamodb?.Keys?.pk?.S !== POSITION_MARKER_PK);
    const read = records.length > 0;
    if (read) {
      await this.deliver(shard, records);
      if (!this.running) return { read, closed: false, stopped: true };
    }
    const lastMarker = Records.length > 0 ? Records.at(-1)?.dynamodb?.SequenceNumber : undefined;
    if (lastMarker && !read) await this.checkpoint(shard, lastMarker);
    // Caught up: what was held back from saving is saved now.
    if (Records.length === 0) await this.saveCheckpoint(shard);
    const staleReadMs = this.options.staleReadMs ?? STALE_READ_MS;
    if (Records.length === 0 && NextShardIterator && Date.now() - started >= staleReadMs)
      await this.markPosition();
    if (NextShardIterator) {
      shard.iterator = NextShardIterator;
      return { read, closed: false, stopped: false };
    }
    delete shard.iterator;
    shard.done = true;
    this.rediscover = true;
    return { read, closed: true, stopped: false };
  }

  /**
   * Moves this table's stream position past what other tables wrote since. DynamoDB Local keeps the records of
   * every stream in one SQLite table ordered by a global sequence number, and reads a shard by scanning forward
   * from its position over all of them: a stream idle while another is busy (the payments outbox while a ledger
   * takes writes) would rescan everything written since its own last record at every poll, ever longer, on the
   * emulator's one SQLite thread that every other request waits for. A record of its own ends that scan.
   */
  private async markPosition(): Promise<void> {
    const now = Date.now();
    if (now - this.markedAt < this.intervalMs) return;
    this.markedAt = now;
    try {
      await this.options.dynamo.send(
        new PutItemCommand({
          TableName: this.options.table,
          Item: {
            pk: { S: POSITION_MARKER_PK },
            sk: { S: POSITION_MARKER_PK },
            at: { N: String(now) },
          },
        }),
      );
    } catch (err) {
      this.log('debug', 'writing the position marker failed', { error: String(err) });
    }
  }

  /** After a failed read: the next pass starts again from the checkpoint (or, once trimmed, the oldest record). */
  private reposition(shard: ShardState, err: Error): void {
    // Expired or trimmed iterator, or DynamoDB Local hiccup: start again from the checkpoint. DynamoDB Local
    // answers TrimmedDataAccessException to an iterator taken on a shard that was empty then: expected.
    delete shard.iterator;
    const trimmed = err.name === 'TrimmedDataAccessException';
    const expected = trimmed || err.name === 'ExpiredIteratorException';
    this.log(expected ? 'debug' : 'warn', 'reading the shard failed; repositioning', {
      shard: shard.id,
      error: String(err),
    });
    // A checkpoint the stream no longer holds (its records aged out while the poller was stopped) can never be
    // resumed after: fall back to the oldest record still there rather than retrying forever.
    shard.trimmedInARow = trimmed ? (shard.trimmedInARow ?? 0) + 1 : 0;
    if (shard.checkpoint && shard.trimmedInARow >= TRIMMED_BEFORE_FALLBACK) {
      this.log(
        'warn',
        'checkpoint trimmed from the stream; reading the shard from its oldest record',
        {
          shard: shard.id,
          checkpoint: shard.checkpoint,
        },
      );
      delete shard.checkpoint;
      shard.trimmedInARow = 0;
    }
  }

  private async run(): Promise<void> {
    let sinceDiscovery = 0;
    let idleRounds = 0;
    // A write told of shortens an idle pause to one interval (shortenPause).
    let written = false;
    this.unsubscribe = this.options.wakeOn?.on(() => {
      written = true;
      idleRounds = 0;
      this.shortenPause();
    });
    while (this.running) {
      let busy = false;
      written = false;
      const started = Date.now();
      try {
        // New shards appear when one closes (DynamoDB rolls shards over): look for them every few seconds.
        if (this.rediscover || sinceDiscovery++ >= 10) {
          sinceDiscovery = 0;
          this.rediscover = false;
          await this.discover(false);
        }
        busy = await this.pollOnce();
      } catch (err) {
        this.log('error', 'poll failed', { error: String(err) });
      }
      idleRounds = busy ? 0 : idleRounds + 1;
      if (this.running && busy && (this.options.busyPauseMs ?? 0) > 0)
        await this.sleep(this.options.busyPauseMs!);
      // A write told of during this poll (which may have missed it) gets the next poll after one interval.
      if (this.running && !busy)
        await this.sleep(
          written ? this.intervalMs : this.idlePause(idleRounds, Date.now() - started),
        );
    }
  }

  /** The pause after `idleRounds` idle polls in a row, the last of which took `lastPollMs`. */
  private idlePause(idleRounds: number, lastPollMs: number): number {
    const backedOff = Math.min(this.idleMaxMs, this.intervalMs * 2 ** Math.min(idleRounds - 1, 16));
    return Math.max(
      backedOff,
      this.idleMaxMs > this.intervalMs ? IDLE_DURATION_FACTOR * lastPollMs : 0,
    );
  }
}
