// The deliver Lambda: fed by the deliveries queue (with ReportBatchItemFailures), one signed POST per message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { type DeliverDeps, deliverBatch } from '../lib/webhooks/deliver/deliver-batch.js';
import { workerClientsFromEnv, workerSettingsFromEnv } from '../lib/webhooks/settings-from-env.js';
import { createDeliverDeps } from '../lib/webhooks/workers.js';

/**
 * Deps from the environment (`settings-from-env.ts`), built at the first message. Loopback targets are allowed
 * only when `STAGE=local` (the local platform's receivers run on 127.0.0.1); private and metadata addresses never
 * are.
 */
let deps: DeliverDeps | undefined;

export const handler = withObservability(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  deps ??= createDeliverDeps(workerSettingsFromEnv(process.env), workerClientsFromEnv(process.env));
  return deliverBatch(
    event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
    deps,
  );
}, process.env);
