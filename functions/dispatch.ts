import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { webhookWorkerConfigFromVariables } from '../lib/config/env.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { dispatchBatch, type StreamRecordLike } from '../lib/webhooks/dispatch/dispatch-batch.js';
import { createDispatchDeps, workerClients, workerSettings } from '../lib/webhooks/workers.js';

/**
 * The events table's stream → deliveries. The event source mapping must enable `ReportBatchItemFailures`:
 * the response names the first record that failed, and Lambda retries from it.
 */
// Built once per container: configuration is read and validated at start-up and fails loudly.
const config = webhookWorkerConfigFromVariables();
const deps = createDispatchDeps(workerSettings(config), workerClients(config));

export const handler = withObservability(
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
    dispatchBatch(event.Records as StreamRecordLike[], deps),
);
