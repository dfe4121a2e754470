// THE ONE SPOT of lib/webhooks that reads environment variables (issue #18 item 3 moves it into
// lib/config/env.ts). Every function here takes the environment as a parameter, with no default: only the
// functions/*.ts entries pass `process.env`; the app gets it through its runtime (`runtime.env`).
import { connectionFromEnv, createDocumentClient } from '../dynamo/client.js';
import { ConfigurationError } from '../errors/index.js';
import { createLogger, logLevelFromEnv } from '../observability/logger.js';
import { sqsClientFromEnv } from '../sqs/client.js';
import type { WebhookWorkerClients, WebhookWorkerSettings } from './workers.js';

/**
 * What both webhook workers (dispatch, deliver) are set with: `WEBHOOKS_TABLE` and `DELIVERIES_QUEUE_URL`
 * (required, checked at start-up), and `STAGE` (`local` lets deliveries reach loopback receivers, as the local
 * platform's run on 127.0.0.1; private and metadata addresses never are).
 */
export function workerSettingsFromEnv(env: NodeJS.ProcessEnv): WebhookWorkerSettings {
  const table = env.WEBHOOKS_TABLE;
  const queueUrl = env.DELIVERIES_QUEUE_URL;
  if (!table) throw new ConfigurationError('WEBHOOKS_TABLE is required');
  if (!queueUrl) throw new ConfigurationError('DELIVERIES_QUEUE_URL is required');
  return { table, queueUrl, allowLoopback: env.STAGE === 'local' };
}

/** The workers' clients: `DYNAMODB_ENDPOINT` / `SQS_ENDPOINT` (local emulators), `AWS_REGION`, `LOG_LEVEL`. */
export function workerClientsFromEnv(env: NodeJS.ProcessEnv): WebhookWorkerClients {
  return {
    doc: createDocumentClient(connectionFromEnv(env)),
    sqs: sqsClientFromEnv(env),
    logger: createLogger(logLevelFromEnv(env)),
  };
}

/** How long a replaced secret keeps verifying when `WEBHOOK_SECRET_OVERLAP_SECONDS` is not set. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600;

/** `WEBHOOK_SECRET_OVERLAP_SECONDS`: how long a replaced secret keeps verifying (default 24 h). */
export function secretOverlapSecondsFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.WEBHOOK_SECRET_OVERLAP_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_SECRET_OVERLAP_SECONDS;
  if (!/^\d{1,9}$/.test(raw))
    throw new ConfigurationError(
      `WEBHOOK_SECRET_OVERLAP_SECONDS must be a whole number of seconds (got "${raw}")`,
    );
  return Number(raw);
}
