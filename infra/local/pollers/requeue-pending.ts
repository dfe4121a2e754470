import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { encodeDeliveryMessage } from '../../../lib/webhooks/domain/delivery.js';
import type { DeliveryStore } from '../../../lib/webhooks/store/delivery-store.js';

/**
 * The local queue (fauxqs) lives in memory, so a restart loses the messages of deliveries still `pending` — a
 * scheduled retry, or a first attempt not made yet — while DynamoDB keeps the deliveries. At start, before the
 * pollers run, one message is sent again for each (found through the `pending` index): `deliver` sends a
 * message that arrives before `nextAttemptAt` on with the remaining delay, so nothing is sent early, and its
 * claim condition makes a rare duplicate message harmless. In the cloud SQS keeps the messages: never needed.
 */
export async function requeuePendingDeliveries(
  deliveries: DeliveryStore,
  sqs: SQSClient,
  queueUrl: string,
): Promise<number> {
  let sent = 0;
  for await (const ids of deliveries.pendingIds()) {
    for (let i = 0; i < ids.length; i += 10) {
      const batch = ids.slice(i, i + 10);
      const { Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((id) => ({ Id: id, MessageBody: encodeDeliveryMessage(id) })),
        }),
      );
      if (Failed.length > 0)
        throw new Error(
          `re-enqueueing pending deliveries failed: ${Failed[0]!.Code ?? ''} ${Failed[0]!.Message ?? ''}`.trim(),
        );
      sent += batch.length;
    }
  }
  return sent;
}
