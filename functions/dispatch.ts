import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { dispatchBatch, type StreamRecordLike } from '../lib/webhooks/dispatch/dispatch-batch.js';
import { workerClientsFromEnv, workerSettingsFromEnv } from '../lib/webhooks/settings-from-env.js';
import { createDispatchDeps } from '../lib/webhooks/workers.js';

/**
 * The events table's stream → deliveries. The event source mapping must enable `ReportBatchItemFailures`:
 * the response names the first record that failed, and Lambda retries from it.
 */
const deps = createDispatchDeps(
  workerSettingsFromEnv(process.env),
  workerClientsFromEnv(process.env),
);

export const handler = withObservability(
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
    dispatchBatch(event.Records as StreamRecordLike[], deps),
  process.env,
);
