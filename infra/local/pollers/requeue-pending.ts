import type { DeliveryQueue } from '../../../lib/webhooks/store/delivery-queue.js';
import type { PendingOfEnvironment } from '../../../lib/webhooks/store/pending-everywhere.js';

/**
 * The local queue (fauxqs) lives in memory, so a restart loses the messages of deliveries still `pending` — a
 * scheduled retry, or a first attempt not made yet — while DynamoDB keeps the deliveries. At start, before the
 * pollers run, one message is sent again for each, in every environment (`pendingDeliveriesOfEveryEnvironment`),
 * naming the delivery's environment: `deliver` sends a message that arrives before `nextAttemptAt` on with the
 * remaining delay, so nothing is sent early, and its claim condition makes a rare duplicate message harmless. In
 * the cloud SQS keeps the messages: never needed.
 */
export async function requeuePendingDeliveries(
  pending: AsyncIterable<PendingOfEnvironment>,
  queue: DeliveryQueue,
): Promise<number> {
  let sent = 0;
  for await (const { environment, ids } of pending) {
    await queue.sendAll(environment, ids);
    sent += ids.length;
  }
  return sent;
}
