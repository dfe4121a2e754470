// The deliver Lambda: fed by the deliveries queue (with ReportBatchItemFailures), one signed POST per message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { webhookWorkerConfigFromVariables } from '../lib/config/env.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { deliverBatch } from '../lib/webhooks/deliver/deliver-batch.js';
import { createDeliverDeps, workerClients, workerSettings } from '../lib/webhooks/workers.js';

// Built once per container: configuration is read and validated at start-up and fails loudly. Loopback targets
// are allowed only when `STAGE=local` (the local platform's receivers run on 127.0.0.1); private and metadata
// addresses never are.
const config = webhookWorkerConfigFromVariables();
const deps = createDeliverDeps(workerSettings(config), workerClients(config));

export const handler = withObservability(
  async (event: SQSEvent): Promise<SQSBatchResponse> =>
    deliverBatch(
      event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
      deps,
    ),
);
