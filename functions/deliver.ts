// The deliver Lambda: fed by the deliveries queue (with ReportBatchItemFailures), one signed POST per message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { webhookWorkerConfigFromEnv } from '../lib/config/env.js';
import { deliverBatch } from '../lib/webhooks/deliver/deliver-batch.js';
import { deliverDeps } from '../lib/webhooks/worker-env.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const deps = deliverDeps(webhookWorkerConfigFromEnv());

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  deliverBatch(
    event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
    deps,
  );
