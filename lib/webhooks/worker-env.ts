import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookWorkerConfig } from '../config/env.js';
import { createDocumentClient } from '../dynamo/client.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createSqsClient } from '../sqs/client.js';
import type { DeliverDeps } from './deliver/deliver-batch.js';

export interface WorkerDeps {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  /** The webhooks table (configs, deliveries, attempts). */
  table: string;
  /** The deliveries queue. */
  queueUrl: string;
  logger: Logger;
}

/**
 * What both webhook workers (dispatch, deliver) need, from their configuration (`webhookWorkerConfigFromEnv`):
 * the webhooks table, the deliveries queue, the clients' endpoints, the log level.
 */
export function workerDeps(config: WebhookWorkerConfig): WorkerDeps {
  return {
    doc: createDocumentClient(config.dynamo),
    sqs: createSqsClient(config.sqs),
    table: config.tables.webhooks,
    queueUrl: config.queues.deliveries,
    logger: createLogger(config.logLevel),
  };
}

/**
 * The deliver worker's: loopback targets only when the stage allows them (`STAGE=local`: the local platform's
 * receivers run on 127.0.0.1); private and metadata addresses never are.
 */
export function deliverDeps(config: WebhookWorkerConfig): DeliverDeps {
  return { ...workerDeps(config), allowLoopback: config.webhooks.allowLoopback };
}
