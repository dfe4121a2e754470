import { Arn, ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  FilterCriteria,
  FilterRule,
  type IFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { PIPELINE_PREFIX } from '../../lib/exporters/store/keys.js';
import type { ExportTargets } from './config.js';
import type { PlatformFunction } from './functions.js';
import type { PlatformQueues } from './queues.js';
import { feedFromQueue, LEDGER_EVENTS_FILTER } from './workers.js';

/**
 * The pipelines function's timeout: a drain starts batches for 30 s (DRAIN_BUDGET_MS,
 * lib/exporters/worker/lambda-deps.ts) and its last may take one http send (15 s) more. The wakes queue's
 * visibility timeout is six times this (lib/resources/definitions.ts; synth refuses less).
 */
export const PIPELINES_TIMEOUT = Duration.seconds(60);

/**
 * The ledger streams' mapping of the pipelines function. It only reads keys and queues wakes (one SQS batch per
 * stream batch), so it keeps up in large batches; streams keep records 24 h, and a batch that keeps failing goes
 * to its failure queue (alarmed) after 6 h.
 */
export const PIPELINE_STREAM = {
  batchSize: 500,
  maxRecordAge: Duration.hours(6),
  retryAttempts: 20,
  maxBatchingWindow: Duration.seconds(1),
} as const;

/** The wakes queue's mapping: each message drains one pipeline, ten at a time; destinations are customers'. */
export const PIPELINE_WAKES_QUEUE = {
  batchSize: 10,
  maxConcurrency: 20,
  maxBatchingWindow: Duration.seconds(0),
} as const;

/**
 * What wakes pipelines: a ledger's log items (they carry `ev`, as for dispatch) and a pipeline item that is
 * running after its change (created, started, reset). Every other ledger write is dropped by Lambda, unbilled.
 */
export const PIPELINE_WAKE_FILTERS = [
  LEDGER_EVENTS_FILTER,
  FilterCriteria.filter({
    dynamodb: {
      Keys: { sk: { S: FilterRule.beginsWith(PIPELINE_PREFIX) } },
      NewImage: { enabled: { BOOL: FilterRule.isEqual(true) } },
    },
  }),
];

/**
 * The pipelines function's event sources: each ledger table's stream (from its oldest record, partial batch
 * failures, bisection, bounded retries and age, then the failure queue) and the wakes queue. Grants reading each
 * stream, consuming the queue; sending to it is granted here too (follow-ups and stream wakes).
 */
export function feedPipelines(
  pipelines: IFunction,
  ledgerTables: readonly ITableV2[],
  queues: PlatformQueues,
): void {
  for (const table of ledgerTables)
    pipelines.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        onFailure: new SqsDlq(queues.pipelineStreamFailures),
        filters: PIPELINE_WAKE_FILTERS,
        ...PIPELINE_STREAM,
      }),
    );
  feedFromQueue(pipelines, PIPELINES_TIMEOUT, queues.pipelineWakes, PIPELINE_WAKES_QUEUE);
  queues.pipelineWakes.queue.grantSendMessages(pipelines);
}

/**
 * The pipelines function's reach beyond the ledger tables: `s3:PutObject` under each configured bucket and
 * prefix, `kinesis:PutRecord` on each configured stream. Nothing else: no read, no list, no other bucket.
 */
export function grantExportTargets(fn: PlatformFunction, targets: ExportTargets): void {
  const stack = Stack.of(fn);
  if (targets.buckets.length > 0)
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: targets.buckets.map(
          ({ bucket, prefix }) => `arn:${stack.partition}:s3:::${bucket}/${prefix}*`,
        ),
      }),
    );
  if (targets.streams.length > 0)
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kinesis:PutRecord'],
        resources: targets.streams.map((stream) =>
          stream.startsWith('arn:')
            ? stream
            : Arn.format(
                {
                  service: 'kinesis',
                  resource: 'stream',
                  resourceName: stream,
                  arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
                },
                stack,
              ),
        ),
      }),
    );
}
