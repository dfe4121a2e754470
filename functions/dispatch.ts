import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { webhookWorkerConfigFromEnv } from '../lib/config/env.js';
import { dispatchDeps } from '../lib/webhooks/dispatch/deps.js';
import { dispatchBatch, type StreamRecordLike } from '../lib/webhooks/dispatch/dispatch-batch.js';

/**
 * The events table's stream → deliveries. The event source mapping must enable `ReportBatchItemFailures`:
 * the response names the first record that failed, and Lambda retries from it.
 */
const deps = dispatchDeps(webhookWorkerConfigFromEnv());

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  dispatchBatch(event.Records as StreamRecordLike[], deps);
