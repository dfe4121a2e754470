// The reply queues' sweeper: started every hour by an EventBridge schedule, it deletes the reply queues of group
// commit (one per ledger container, lib/ledger/write/replies.ts) created more than a day ago
// (lib/ledger/worker/reply-queue-sweep.ts).
import { ledgerWriterConfigFromVariables } from '../lib/config/env.js';
import { sweepReplyQueues } from '../lib/ledger/worker/reply-queue-sweep.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createLogger } from '../lib/observability/logger.js';
import { createSqsClient } from '../lib/sqs/client.js';

// Built once per container: configuration is read and validated at start-up and fails loudly (the ingress queue's
// URL is required: the reply queues are named after it).
const config = ledgerWriterConfigFromVariables();
const logger = createLogger(config.logLevel, undefined, config.logFormat);
const sqs = createSqsClient(config.sqs);

/**
 * Scheduled (EventBridge): one sweep. A sweep repeated or overlapping another is harmless (a queue already deleted is
 * skipped). A queue that could not be read or deleted fails the invocation once the others are swept, so the
 * function's error alarm sees it; it stays for the next hour's sweep.
 */
export const handler = withObservability(async () => {
  const tick = await sweepReplyQueues({
    sqs,
    ingressQueueUrl: config.queues['ledger-ingress'],
    logger,
  });
  logger.log('info', 'reply queue sweep', { ...tick });
  if (tick.failed > 0) throw new Error(`the reply queue sweep failed for ${tick.failed} queue(s)`);
  return tick;
});
