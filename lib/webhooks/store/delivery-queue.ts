import type { BatchResultErrorEntry, SQSClient } from '@aws-sdk/client-sqs';
import { type Attempt, retryWithBackoff } from '../../dynamo/retry.js';
import { DEFAULT_ENVIRONMENT, isEnvironmentId } from '../../environments/environment-id.js';
import { isDeliveryId } from '../domain/delivery.js';
import { sqsHop } from './sqs-delay.js';

/**
 * The message body of a delivery: a pointer, never the payload (SQS messages are at most 256 KiB). It names the
 * delivery's environment with its id: `deliver` reads and writes in that environment only.
 */
export interface DeliveryMessage {
  environment: string;
  deliveryId: string;
}

export const encodeDeliveryMessage = (environment: string, id: string): string =>
  JSON.stringify({ environment, deliveryId: id } satisfies DeliveryMessage);

/**
 * The pointer a message holds, or undefined when it is not a delivery message. A message without `environment`
 * was queued by a version before environments, when every delivery was in what is now the default environment:
 * it is read as one of `default` (and, its delivery not found there, dropped with a warning as any missing
 * delivery is). A message naming something that is not an environment id is not a delivery message.
 */
export function decodeDeliveryMessage(body: string): DeliveryMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { deliveryId, environment = DEFAULT_ENVIRONMENT } = parsed as Record<string, unknown>;
  if (typeof deliveryId !== 'string' || !isDeliveryId(deliveryId)) return undefined;
  if (!isEnvironmentId(environment)) return undefined;
  return { environment, deliveryId };
}

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;
/** Entries a SendMessageBatch reports as failed (not the sender's fault) are sent again this many times. */
const SEND_ATTEMPTS = 3;

/**
 * The deliveries queue, and the only code that sends to it: dispatch queues new deliveries (`sendAll`), deliver
 * queues its retries (`sendDueAt`), replays queue one more attempt (`send`), and the local platform re-queues
 * what a restart lost (`sendAll`). Each message points at a delivery record; `deliver` consumes them.
 */
export class DeliveryQueue {
  /** `sqs` may be built at the first send (`lazySqsClient`): the webhooks API enqueues only on a replay. */
  constructor(
    private readonly options: { sqs: SQSClient | (() => Promise<SQSClient>); queueUrl: string },
  ) {}

  /**
   * The client and the SDK's SQS module. Imported, not loaded with this file: the webhooks API, which sends only
   * on a replay, then loads it at its first replay (lib/sqs/lazy-client.ts says why). In dispatch and deliver,
   * whose clients are built at start-up, the module is already loaded.
   */
  private async sqs(): Promise<[SQSClient, typeof import('@aws-sdk/client-sqs')]> {
    const { sqs } = this.options;
    return await Promise.all([
      typeof sqs === 'function' ? sqs() : sqs,
      import('@aws-sdk/client-sqs'),
    ]);
  }

  /** One message for a delivery of `environment` due now. */
  async send(environment: string, id: string): Promise<void> {
    const [client, { SendMessageCommand }] = await this.sqs();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: encodeDeliveryMessage(environment, id),
      }),
    );
  }

  /**
   * One message for an attempt due at `dueAtMs` (epoch ms, seen at `nowMs`): held back until then, or for SQS's
   * longest delay, after which `deliver` finds it early and sends it on (`sqs-delay.ts`).
   */
  async sendDueAt(environment: string, id: string, dueAtMs: number, nowMs: number): Promise<void> {
    const [client, { SendMessageCommand }] = await this.sqs();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: encodeDeliveryMessage(environment, id),
        DelaySeconds: sqsHop(dueAtMs, nowMs).delaySeconds,
      }),
    );
  }

  /**
   * One message per delivery of `environment`, due now, in batches of 10. Entries SQS reports as failed are sent
   * again, up to 3 times in all; throws when they keep failing, or at once when SQS blames the sender.
   */
  async sendAll(environment: string, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += SQS_BATCH)
      await this.sendBatch(environment, ids.slice(i, i + SQS_BATCH));
  }

  /** Sends a batch, resending the entries SQS failed (with backoff) unless it blames the sender. */
  private async sendBatch(environment: string, ids: string[]): Promise<void> {
    let pending = ids;
    let lastFailure: BatchResultErrorEntry | undefined;
    const failedWith = (f: BatchResultErrorEntry) =>
      new Error(
        `SendMessageBatch failed for delivery ${f.Id}: ${f.Code ?? ''} ${f.Message ?? ''}`.trim(),
      );
    const [client, { SendMessageBatchCommand }] = await this.sqs();
    await retryWithBackoff(
      async (): Promise<Attempt<undefined>> => {
        const { Failed = [] } = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.options.queueUrl,
            Entries: pending.map((id) => ({
              Id: id,
              MessageBody: encodeDeliveryMessage(environment, id),
            })),
          }),
        );
        if (Failed.length === 0) return { done: true, value: undefined };
        const senderFault = Failed.find((f) => f.SenderFault);
        if (senderFault) throw failedWith(senderFault);
        const failed = new Set(Failed.map((f) => f.Id));
        pending = pending.filter((id) => failed.has(id));
        lastFailure = Failed[0];
        return { done: false };
      },
      { maxAttempts: SEND_ATTEMPTS },
      () => {
        throw failedWith(lastFailure!);
      },
    );
  }
}
