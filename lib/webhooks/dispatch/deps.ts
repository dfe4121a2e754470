import { connectionFromEnv, createDocumentClient } from '../../dynamo/client.js';
import { createLogger, logLevelFromEnv } from '../../observability/logger.js';
import type { DispatchDeps } from './dispatch-batch.js';
import { sqsClientFromEnv } from '../../sqs/client.js';

/** The dispatcher's dependencies from a function's environment: `WEBHOOKS_TABLE`, `DELIVERIES_QUEUE_URL`. */
export function dispatchDepsFromEnv(env: NodeJS.ProcessEnv = process.env): DispatchDeps {
  const table = env.WEBHOOKS_TABLE;
  const queueUrl = env.DELIVERIES_QUEUE_URL;
  if (!table) throw new Error('WEBHOOKS_TABLE is not set');
  if (!queueUrl) throw new Error('DELIVERIES_QUEUE_URL is not set');
  return {
    doc: createDocumentClient(connectionFromEnv(env)),
    sqs: sqsClientFromEnv(env),
    table,
    queueUrl,
    logger: createLogger(logLevelFromEnv(env)),
  };
}
