import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { connectionFromEnv, createDocumentClient } from '../dynamo/client.js';
import { ConfigurationError } from '../errors/index.js';
import { createLogger, type Logger, logLevelFromEnv } from '../observability/logger.js';
import { sqsClientFromEnv } from '../sqs/client.js';

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
 * What both webhook workers (dispatch, deliver) need, from a function's environment: `WEBHOOKS_TABLE` and
 * `DELIVERIES_QUEUE_URL` (required, checked at start-up), `DYNAMODB_ENDPOINT` / `SQS_ENDPOINT` (local emulators),
 * `AWS_REGION`, `LOG_LEVEL`.
 */
export function workerDepsFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerDeps {
  const table = env.WEBHOOKS_TABLE;
  const queueUrl = env.DELIVERIES_QUEUE_URL;
  if (!table) throw new ConfigurationError('WEBHOOKS_TABLE is required');
  if (!queueUrl) throw new ConfigurationError('DELIVERIES_QUEUE_URL is required');
  return {
    doc: createDocumentClient(connectionFromEnv(env)),
    sqs: sqsClientFromEnv(env),
    table,
    queueUrl,
    logger: createLogger(logLevelFromEnv(env)),
  };
}
