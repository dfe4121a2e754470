import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../lib/observability/logger.js';
import { createQueuePoller } from './queue-poller.js';

const silent: Logger = { log: () => undefined };

/**
 * A queue that never has a message: each receive waits until its caller aborts it (a real long poll would answer
 * empty after its wait; this one never does, so a stop that waited for it would never return).
 */
function emptyQueue() {
  const signals: AbortSignal[] = [];
  const sqs = {
    send: (_command: unknown, options?: { abortSignal?: AbortSignal }) => {
      const signal = options?.abortSignal;
      if (signal) signals.push(signal);
      return new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () =>
          reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
        );
      });
    },
  } as unknown as SQSClient;
  return { sqs, signals };
}

describe('the local queue poller', () => {
  it('stops without waiting out the long poll in flight, and logs no failure for it', async () => {
    const { sqs, signals } = emptyQueue();
    const lines: string[] = [];
    const poller = createQueuePoller({
      sqs,
      queueUrl: 'http://127.0.0.1:1/queue/q',
      handler: async () => ({ batchItemFailures: [] }),
      logger: { log: (_level, message) => void lines.push(message) },
      waitSeconds: 20,
    });
    poller.start();
    await poller.stop();
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(lines).toEqual([]);
  });

  it('polls again after a restart', async () => {
    const { sqs, signals } = emptyQueue();
    const poller = createQueuePoller({
      sqs,
      queueUrl: 'http://127.0.0.1:1/queue/q',
      handler: async () => ({ batchItemFailures: [] }),
      logger: silent,
    });
    poller.start();
    await poller.stop();
    poller.start();
    await new Promise((r) => setImmediate(r));
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    await poller.stop();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });
});
