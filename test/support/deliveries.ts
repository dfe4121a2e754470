import { randomUUID } from 'node:crypto';
import { type Delivery, deliveryId } from '../../lib/webhooks/domain/delivery.js';

/** A delivery of `configId` as the dispatcher records it: pending, never tried, due at once, with an empty body. */
export function pendingDelivery(configId: string, createdAt: string): Delivery {
  const eventId = randomUUID();
  return {
    id: deliveryId(eventId, configId),
    configId,
    eventId,
    eventType: 'ledger.committed_transactions',
    body: '{}',
    status: 'pending',
    attempts: 0,
    replayGeneration: 0,
    nextAttemptAt: 0,
    createdAt,
    updatedAt: createdAt,
  };
}
