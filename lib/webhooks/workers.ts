import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookWorkerConfig } from '../config/env.js';
import { createDocumentClient } from '../dynamo/client.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createSqsClient } from '../sqs/client.js';
import type { DeliverDeps } from './deliver/deliver-batch.js';
import type { DispatchDeps } from './dispatch/dispatch-batch.js';
import type { WebhookHeaderSet } from './domain/signing.js';

/** What the webhook workers are set with (read once at start-up: `webhookWorkerConfigFromVariables`, lib/config/env.ts). */
export interface WebhookWorkerSettings {
  /** The webhooks table (configs, subscriptions, deliveries, attempts). */
  table: string;
  /** The deliveries queue. */
  queueUrl: string;
  /** Local mode only: deliveries may reach 127.0.0.1 / ::1 (never private or metadata addresses). */
  allowLoopback: boolean;
  /** WEBHOOK_HEADER_NAMES: the header names deliveries are signed under. */
  headerSets: readonly WebhookHeaderSet[];
  /** The events table: the deliverer's operator events. */
  eventsTable: string;
  /** WEBHOOK_DISABLE_AFTER_FAILING_SECONDS, in ms. */
  disableAfterFailingMs: number;
}

/** The clients the workers talk through: one set per container (Lambda) or per process (local platform). */
export interface WebhookWorkerClients {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  logger: Logger;
}

/** The workers' settings from their configuration. */
export function workerSettings(
  config: Pick<WebhookWorkerConfig, 'tables' | 'queues' | 'webhooks'>,
): WebhookWorkerSettings {
  return {
    table: config.tables.webhooks,
    queueUrl: config.queues.deliveries,
    allowLoopback: config.webhooks.allowLoopback,
    headerSets: config.webhooks.headerSets,
    eventsTable: config.tables.events,
    disableAfterFailingMs: config.webhooks.disableAfterFailingSeconds * 1000,
  };
}

/** One set of clients per container: the configuration's endpoints (the local emulators) and log level. */
export function workerClients(
  config: Pick<WebhookWorkerConfig, 'dynamo' | 'sqs' | 'logLevel' | 'logFormat'>,
): WebhookWorkerClients {
  return {
    doc: createDocumentClient(config.dynamo),
    sqs: createSqsClient(config.sqs),
    logger: createLogger(config.logLevel, undefined, config.logFormat),
  };
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
  settings: WebhookWorkerSettings,
  { doc, sqs, logger }: WebhookWorkerClients,
): DeliverDeps {
  const { table, queueUrl, allowLoopback, headerSets, eventsTable, disableAfterFailingMs } =
    settings;
  return {
    ...{ doc, sqs, table, queueUrl, logger, allowLoopback, headerSets },
    ...{ eventsTable, disableAfterFailingMs },
  };
}
