import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  FilterCriteria,
  FilterRule,
  type IFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import {
  DynamoEventSource,
  SqsDlq,
  SqsEventSource,
  type SqsEventSourceProps,
} from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import type { DefinedQueue, PlatformQueues } from './queues.js';

/** `dispatch`'s stream mapping. Streams keep records 24 h: a record older than this goes to the failure queue. */
export const DISPATCH_STREAM = {
  batchSize: 25,
  maxRecordAge: Duration.hours(6),
  retryAttempts: 20,
  maxBatchingWindow: Duration.seconds(1),
} as const;

/** `deliver`'s queue mapping: batches of 10 are POSTed concurrently, within the function's 30 s. */
export const DELIVER_QUEUE = {
  batchSize: 10,
  maxConcurrency: 20,
  maxBatchingWindow: Duration.seconds(1),
} as const;

/**
 * ledger-writer's queue mapping. No batching window: the first relayed write starts a writer at once (its
 * requester is waiting, with an 8 s deadline), and the writer then drains the queue itself, many intents per
 * commit, so waiting here to fill a batch would only add latency. Concurrency 2, the least AWS allows: every
 * commit is conditional on the ledger HEAD's version, so two writers on one ledger are safe, only slower (the
 * loser of a race decides again); more would mostly add such conflicts, since one writer keeps up by batching.
 */
export const LEDGER_WRITER_QUEUE = {
  batchSize: 10,
  maxBatchingWindow: Duration.seconds(0),
  maxConcurrency: 2,
} as const;

/** How often the key rotation step runs; it promotes a key only once it has been published long enough. */
export const KEY_ROTATION_SCHEDULE = Schedule.rate(Duration.hours(1));

/**
 * Only the ledger items that carry events (`ev`: log items and the mapping item, lib/ledger/store/log-events.ts)
 * invoke dispatch: every other ledger write (HEAD, volumes, accounts, indexes) is dropped by Lambda's filter,
 * unbilled, instead of being passed over by the function.
 */
export const LEDGER_EVENTS_FILTER = FilterCriteria.filter({
  dynamodb: { NewImage: { ev: { S: FilterRule.exists() } } },
});

/**
 * dispatch: the streams that carry events, each from the oldest record (TRIM_HORIZON: nothing committed is
 * skipped), partial batch failures (the function names the first failed record), bisection to isolate a poison
 * record, bounded retries and record age, then the batch's description to the failure queue (alarmed). The
 * events table (payments' outbox rows) and every ledger table, the latter filtered to the items with events.
 * Each mapping grants the function read access to its own stream only.
 */
export function feedDispatch(
  dispatch: IFunction,
  events: ITableV2,
  ledgerTables: readonly ITableV2[],
  queues: PlatformQueues,
): void {
  const feed = (table: ITableV2, filters?: Array<Record<string, unknown>>) =>
    dispatch.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        onFailure: new SqsDlq(queues.dispatchFailures),
        ...DISPATCH_STREAM,
        ...(filters ? { filters } : {}),
      }),
    );
  feed(events);
  for (const table of ledgerTables) feed(table, [LEDGER_EVENTS_FILTER]);
}

/**
 * deliver: the deliveries queue, partial batch failures, bounded concurrency (receivers are customers'
 * servers).
 */
export function feedDeliver(deliver: IFunction, timeout: Duration, queues: PlatformQueues): void {
  feedFromQueue(deliver, timeout, queues.deliveries, DELIVER_QUEUE);
}

/**
 * ledger-writer: the ledger ingress queue, partial batch failures (a message whose ledger's batch failed comes
 * back; the others of the batch are done).
 */
export function feedLedgerWriter(
  writer: IFunction,
  timeout: Duration,
  queues: PlatformQueues,
): void {
  feedFromQueue(writer, timeout, queues.ledgerIngress, LEDGER_WRITER_QUEUE);
}

/**
 * A function fed by one of the platform's queues, reporting partial batch failures. The queue's visibility
 * timeout must cover six function timeouts (AWS's guidance for SQS mappings), or a message could come back
 * while its first receipt is still being processed. Grants consuming the queue.
 */
export function feedFromQueue(
  fn: IFunction,
  timeout: Duration,
  source: DefinedQueue,
  settings: Omit<SqsEventSourceProps, 'reportBatchItemFailures'>,
): void {
  const visibility = source.definition.visibilityTimeoutSeconds;
  if (visibility < 6 * timeout.toSeconds()) {
    throw new Error(
      `${source.definition.id} queue visibility timeout ${visibility} s is under 6 x the timeout of its consumer (${timeout.toSeconds()} s)`,
    );
  }
  fn.addEventSource(
    new SqsEventSource(source.queue, { reportBatchItemFailures: true, ...settings }),
  );
}

/** rotate-keys: one rotation step on a schedule. Idempotent, so EventBridge's retries are harmless. */
export function scheduleKeyRotation(scope: Construct, rotate: IFunction): Rule {
  return new Rule(scope, 'key-rotation-schedule', {
    description: 'Signing key rotation step (promotes the next key once published long enough)',
    schedule: KEY_ROTATION_SCHEDULE,
    targets: [new LambdaFunction(rotate, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
  });
}

/** How often the payments connectors' worker looks for due schedules and initiations. */
export const CONNECTORS_TICK_SCHEDULE = Schedule.rate(Duration.minutes(1));
/** A tick runs schedules of at most 20 pages each, 8 connectors at a time: well within this. */
export const CONNECTORS_WORKER_TIMEOUT = Duration.minutes(10);

/**
 * payments-connectors: one tick a minute. A tick repeated or overlapping another is harmless: each schedule run
 * holds a lease, each initiation's sending is a conditional step, so nothing runs twice.
 */
export function scheduleConnectorsTick(scope: Construct, worker: IFunction): Rule {
  return new Rule(scope, 'connectors-tick-schedule', {
    description: "Payments connectors' worker: due schedules (fetches) and initiations",
    schedule: CONNECTORS_TICK_SCHEDULE,
    targets: [new LambdaFunction(worker, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
  });
}

/** How often the hold sweeper releases expired holds: a hold past its expiry cannot be posted meanwhile anyway. */
export const HOLD_SWEEP_SCHEDULE = Schedule.rate(Duration.minutes(1));
/** A sweep releases at most 200 due holds per shard and table, each one direct write: well within this. */
export const HOLD_SWEEPER_TIMEOUT = Duration.minutes(5);

/**
 * ledger-holds: one sweep a minute. A sweep repeated or overlapping another is harmless: each release is decided by
 * the ledger's writer, and a hold already resolved is skipped.
 */
export function scheduleHoldSweep(scope: Construct, sweeper: IFunction): Rule {
  return new Rule(scope, 'hold-sweep-schedule', {
    description: 'Ledger hold sweeper: holds (pending transfers) past their expiry',
    schedule: HOLD_SWEEP_SCHEDULE,
    targets: [new LambdaFunction(sweeper, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
  });
}

/** How often the reply queues' sweeper runs: a queue is swept once a day old, so an hour late is nothing. */
export const REPLY_SWEEP_SCHEDULE = Schedule.rate(Duration.hours(1));
/** A sweep lists and deletes a few hundred queues at most, 8 at a time: well within this. */
export const REPLY_SWEEPER_TIMEOUT = Duration.minutes(5);

/**
 * ledger-reply-sweep: one sweep an hour. A sweep repeated or overlapping another is harmless (a queue already
 * deleted is skipped), and never retried: the next is an hour away and nothing waits on it.
 */
export function scheduleReplySweep(scope: Construct, sweeper: IFunction): Rule {
  return new Rule(scope, 'reply-sweep-schedule', {
    description: "Ledger reply queues' sweeper: reply queues created more than a day ago",
    schedule: REPLY_SWEEP_SCHEDULE,
    targets: [new LambdaFunction(sweeper, { retryAttempts: 0, maxEventAge: Duration.hours(1) })],
  });
}
