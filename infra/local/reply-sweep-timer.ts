import type { SQSClient } from '@aws-sdk/client-sqs';
import { sweepReplyQueues } from '../../lib/ledger/worker/reply-queue-sweep.js';
import type { Logger } from '../../lib/observability/logger.js';
import { startScheduleTimer } from './schedule-timer.js';

export interface ReplySweepTimerOptions {
  /** The platform's SQS client (the emulator's, or the endpoint it was given); the timer never closes it. */
  sqs: SQSClient;
  ingressQueueUrl: string;
  /** How often a sweep runs: the stack's schedule is hourly. */
  intervalMs: number;
  logger: Logger;
}

/**
 * The local stand-in for the stack's scheduled reply queues' sweeper (functions/ledger-reply-sweep.ts): the same
 * sweep, on a timer that does not keep the process alive. Only a platform running for more than a day, or one on an
 * SQS endpoint that outlives it (`sqsEndpoint`), has reply queues that old: the emulator's queues live in memory.
 * Returns a stop function that waits for a sweep in progress.
 */
export function startReplySweepTimer(options: ReplySweepTimerOptions): () => Promise<void> {
  return startScheduleTimer({
    intervalMs: options.intervalMs,
    logger: options.logger,
    failure: 'reply queue sweep failed',
    run: async () => {
      const tick = await sweepReplyQueues({
        sqs: options.sqs,
        ingressQueueUrl: options.ingressQueueUrl,
        logger: options.logger,
      });
      if (tick.deleted > 0 || tick.failed > 0)
        options.logger.log('info', 'reply queue sweep', { ...tick });
    },
  });
}
