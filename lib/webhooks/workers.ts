import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../observability/logger.js';
import type { DeliverDeps } from './deliver/deliver-batch.js';
import type { DispatchDeps } from './dispatch/dispatch-batch.js';

/** What the webhook workers are set with (read once at start-up: `settings-from-env.ts`). */
export interface WebhookWorkerSettings {
  /** The webhooks table (configs, subscriptions, deliveries, attempts). */
  table: string;
  /** The deliveries queue. */
  queueUrl: string;
  /** Local mode only: deliveries may reach 127.0.0.1 / ::1 (never private or metadata addresses). */
  allowLoopback: boolean;
}

/** The clients the workers talk through: one set per container (Lambda) or per process (local platform). */
export interface WebhookWorkerClients {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  logger: Logger;
}

/**
 * The webhook workers composed from their settings and clients: used by the Lambda entries (functions/dispatch.ts,
 * functions/deliver.ts) and the local platform alike.
 */
export function createDispatchDeps(
  { table, queueUrl }: WebhookWorkerSettings,
  { doc, sqs, logger }: WebhookWorkerClients,
): DispatchDeps {
  return { doc, sqs, table, queueUrl, logger };
}

export function createDeliverDeps(
  { table, queueUrl, allowLoopback }: WebhookWorkerSettings,
  { doc, sqs, logger }: WebhookWorkerClients,
): DeliverDeps {
  return { doc, sqs, table, queueUrl, logger, allowLoopback };
}
