import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '../../../lib/observability/logger.js';
import type { LedgerWrites } from '../ledger-events/ledger-writes.js';
import type { LogTailCheckpoints } from '../ledger-events/log-tail-checkpoints.js';
import { LogTailPoller } from '../ledger-events/log-tail-poller.js';
import { ensureLedgerBucketTables, hasStream } from '../provision.js';
import type { WriteSignal } from '../write-signal.js';
import {
  createStreamPoller,
  type StreamBatchResult,
  type StreamCheckpoints,
} from './stream-poller.js';

export interface DispatchPollersOptions {
  dynamo: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  /** The events table (payments' outbox). */
  eventsTable: string;
  /** Every ledger table, the default one and each bucket's: their log and mapping items carry the ledger's events. */
  ledgerTables: readonly string[];
  handler: (records: _Record[]) => Promise<StreamBatchResult>;
  /** Kept per stream ARN, so one store serves every poller and each resumes its own stream after a restart. */
  checkpoints: StreamCheckpoints;
  logger?: Logger;
  /** The gateway's writes: with it, idle pollers back off (to IDLE_MAX_MS) and are woken by a write. */
  wakeOn?: WriteSignal;
  /**
   * The embedded platform's: ledger tables are made without a stream, and a ledger table that has none is read
   * through its ledgers' logs (ledger-events/log-tail-poller.ts), told by these writes which ledgers moved.
   */
  logTail?: { writes: LedgerWrites; checkpoints: (ledgerTable: string) => LogTailCheckpoints };
}

/** Records per GetRecords on a ledger table's stream (most carry no event: HEAD, volumes, indexes). */
const LEDGER_READ_RECORDS = 1000;
/** How long an idle poller may pause when writes wake it. */
const IDLE_MAX_MS = 2_000;
/**
 * Under load, a poll that read records waits this long before the next: a webhook after the first of a burst is
 * dispatched up to this much later, and the emulator serves a few full GetRecords instead of many small ones.
 */
const BUSY_PAUSE_MS = 50;
/**
 * The same for a ledger's log tail: each of its rounds is a Query and dispatch's reads on the emulator's one
 * database thread, in the way of the next commit. Measured (hot pair and world→any, 1 and 32 clients, A/B twice):
 * 300 ms rather than 50 gave 5–8 % more transactions a second; a webhook after the first of a burst comes up to
 * this much later (the bench's target for a first delivery is a second).
 */
const TAIL_BUSY_PAUSE_MS = 250;

/**
 * What the stack's `dispatch` event source mappings do (one per table whose stream carries events), locally:
 * one stream poller per table, all feeding the same handler. A bucket table named by the configuration is
 * created if missing, as the stack creates it, so that it has its stream. Resolves once every poller is
 * positioned, with the function that stops them all.
 */
export async function startDispatchPollers(
  options: DispatchPollersOptions,
): Promise<() => Promise<void>> {
  await ensureLedgerBucketTables(options.dynamo, options.ledgerTables, {
    ledgerStreams: options.logTail === undefined,
  });
  const started: Array<{ stop(): Promise<void> }> = [];
  const stopAll = async () => {
    await Promise.all(started.splice(0).map((poller) => poller.stop()));
  };
  try {
    for (const table of [options.eventsTable, ...new Set(options.ledgerTables)]) {
      const tail = options.logTail;
      if (tail && table !== options.eventsTable && !(await hasStream(options.dynamo, table))) {
        const poller = new LogTailPoller({
          dynamo: options.dynamo,
          table,
          handler: options.handler,
          checkpoints: tail.checkpoints(table),
          writes: tail.writes,
          busyPauseMs: TAIL_BUSY_PAUSE_MS,
          ...(options.logger ? { logger: options.logger } : {}),
        });
        await poller.start();
        started.push(poller);
        continue;
      }
      const poller = createStreamPoller({
        dynamo: options.dynamo,
        streams: options.streams,
        table,
        handler: options.handler,
        // On AWS the mapping's filter drops a ledger table's records without events before they are batched;
        // here the handler drops them, so a read takes more at once — a burst's backlog then drains in seconds.
        ...(table === options.eventsTable ? {} : { batchSize: LEDGER_READ_RECORDS }),
        checkpoints: options.checkpoints,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.wakeOn
          ? { wakeOn: options.wakeOn, idleMaxMs: IDLE_MAX_MS, busyPauseMs: BUSY_PAUSE_MS }
          : {}),
      });
      await poller.start();
      started.push(poller);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
