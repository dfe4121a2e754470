import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Logger } from '../../../lib/observability/logger.js';

export interface QueueRecord {
  messageId: string;
  body: string;
}

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** The Lambda's batch logic: returns the message ids that failed (partial batch response). */
  handler: (
    records: QueueRecord[],
  ) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;
  logger: Logger;
  /** Long-poll wait per receive, in seconds (stop() cuts a receive short). */
  waitSeconds?: number;
}

export interface QueuePoller {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Feeds an SQS queue to a handler the way Lambda's SQS event source mapping does: batches of up to 10,
 * successful messages deleted, failed ones (reported, or the whole batch when the handler throws or names a
 * message that is not in the batch) left to come back after the queue's visibility timeout. The queue itself
 * (fauxqs, like SQS) counts receives and moves a message to its dead-letter queue after the redrive policy's
 * maxReceiveCount, so the poller neither deletes nor re-sends anything on its own.
 */
export function createQueuePoller(options: QueuePollerOptions): QueuePoller {
  let running = false;
  let loop: Promise<void> | undefined;
  // Ends a receive in flight at stop() instead of waiting out its long poll: a platform (a test's, or npm start's
  // on Ctrl+C) stops without that idle second. Messages a cut receive had taken come back after their visibility
  // timeout, as a failed batch's do.
  let receiving = new AbortController();

  async function pollOnce(): Promise<void> {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: options.waitSeconds ?? 1,
      }),
      { abortSignal: receiving.signal },
    );
    if (Messages.length === 0) return;
    const records = Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '' }));
    let failed: Set<string>;
    try {
      failed = new Set(
        (await options.handler(records)).batchItemFailures.map((f) => f.itemIdentifier),
      );
    } catch (err) {
      // A failed invocation: nothing is deleted, the whole batch comes back after the visibility timeout.
      options.logger.log('error', 'queue batch failed', {
        queueUrl: options.queueUrl,
        error: (err as Error).message,
      });
      return;
    }
    // As Lambda does: an identifier that names no message of the batch fails the whole batch.
    const known = new Set(records.map((r) => r.messageId));
    if ([...failed].some((id) => !known.has(id))) {
      options.logger.log(
        'error',
        'queue batch response names an unknown message; the whole batch is retried',
        { queueUrl: options.queueUrl },
      );
      return;
    }
    const done = Messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length === 0) return;
    await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }

  return {
    start() {
      running = true;
      receiving = new AbortController();
      loop = (async () => {
        while (running) {
          try {
            await pollOnce();
          } catch (err) {
            if (!running) break;
            options.logger.log('error', 'queue poll failed', {
              queueUrl: options.queueUrl,
              error: (err as Error).message,
            });
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      })();
    },
    async stop() {
      running = false;
      receiving.abort();
      await loop;
    },
  };
}
