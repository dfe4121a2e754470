// The deliver Lambda: fed by the deliveries queue (with ReportBatchItemFailures), one signed POST per message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type DeliverDeps, deliverBatch } from '../lib/webhooks/deliver/deliver-batch.js';
import { workerDepsFromEnv } from '../lib/webhooks/settings-from-env.js';

/**
 * Deps from the environment (see `workerDepsFromEnv`). Loopback targets are allowed only when `STAGE=local`
 * (the local platform's receivers run on 127.0.0.1); private and metadata addresses never are.
 */
export function deliverDepsFromEnv(env: NodeJS.ProcessEnv = process.env): DeliverDeps {
  return { ...workerDepsFromEnv(env), allowLoopback: env.STAGE === 'local' };
}

let deps: DeliverDeps | undefined;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  deps ??= deliverDepsFromEnv(process.env);
  return deliverBatch(
    event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
    deps,
  );
};
