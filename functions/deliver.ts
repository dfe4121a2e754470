// The deliver Lambda: fed by the deliveries queue (with ReportBatchItemFailures), one signed POST per message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { connectionFromEnv, createDocumentClient } from '../lib/dynamo/client.js';
import { ConfigurationError } from '../lib/errors/index.js';
import { createLogger, logLevelFromEnv } from '../lib/observability/logger.js';
import { deliverBatch, type DeliverDeps } from '../lib/webhooks/deliver/deliver-batch.js';
import { sqsClientFromEnv } from '../lib/sqs/client.js';

/**
 * Deps from the environment: `WEBHOOKS_TABLE`, `DELIVERIES_QUEUE_URL` (required), `DYNAMODB_ENDPOINT` /
 * `SQS_ENDPOINT` (local emulators), `AWS_REGION`, `LOG_LEVEL`. Loopback targets are allowed only when
 * `STAGE=local` (the local platform's receivers run on 127.0.0.1); private and metadata addresses never are.
 */
export function deliverDepsFromEnv(env: NodeJS.ProcessEnv = process.env): DeliverDeps {
  const table = env.WEBHOOKS_TABLE;
  const queueUrl = env.DELIVERIES_QUEUE_URL;
  if (!table) throw new ConfigurationError('WEBHOOKS_TABLE is required');
  if (!queueUrl) throw new ConfigurationError('DELIVERIES_QUEUE_URL is required');
  return {
    doc: createDocumentClient(connectionFromEnv(env)),
    table,
    sqs: sqsClientFromEnv(env),
    queueUrl,
    logger: createLogger(logLevelFromEnv(env)),
    allowLoopback: env.STAGE === 'local',
  };
}

let deps: DeliverDeps | undefined;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  deps ??= deliverDepsFromEnv(process.env);
  return deliverBatch(
    event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
    deps,
  );
};
