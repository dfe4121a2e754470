import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { AttemptOutcome, Delivery, DeliveryAttempt } from './delivery.js';

/**
 * The API views of deliveries and attempts, under the reference platform's names only (the official SDK's webhooks
 * `Delivery` and `DeliveryAttempt`, SDK 7: `configID`, `eventID`, `attemptCount`, `attemptNumber`,
 * `durationMillis`, `responseExcerpt`, `createdAt`). This API's earlier names (`configId`, `attempts`, `at`, …)
 * are answered no more; where one was a request parameter it is still accepted (docs/api.md §4.1).
 */

/**
 * A delivery. `attemptCount` counts every attempt made, across replays (attempt numbers carry on after a replay,
 * see docs/decisions/webhooks.md); `payload` — the exact body POSTed — only on single-delivery answers, as the reference
 * platform does, since it can be large.
 */
export function deliveryView(d: Delivery, { withPayload = false }: { withPayload?: boolean } = {}) {
  return {
    id: d.id,
    configID: d.configId,
    eventID: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attempts,
    replayGeneration: d.replayGeneration,
    ...(d.status === 'pending' && d.nextAttemptAt !== undefined
      ? { nextAttemptAt: formatInstant(instantFromMs(d.nextAttemptAt)) }
      : {}),
    ...(d.lastAttemptAt !== undefined ? { lastAttemptAt: d.lastAttemptAt } : {}),
    ...(d.lastStatusCode !== undefined ? { lastStatusCode: d.lastStatusCode } : {}),
    ...(d.lastError !== undefined ? { lastError: d.lastError } : {}),
    ...(withPayload ? { payload: d.body } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** `<delivery id>-<attempt number, 4 digits>`: stable, and unique because attempt numbers never repeat. */
export const attemptId = (deliveryId: string, attempt: number): string =>
  `${deliveryId}-${String(attempt).padStart(4, '0')}`;

/** Attempts recorded before `outcome` was: a 2xx succeeded; anything else is read as retryable. */
const outcomeOf = (a: DeliveryAttempt): AttemptOutcome =>
  a.outcome ??
  (a.statusCode !== undefined && a.statusCode >= 200 && a.statusCode < 300
    ? 'succeeded'
    : 'retryable_failure');

/**
 * An attempt. `statusCode` is 0 when no response came back (refused address, timeout, connection error: `error`
 * says which), as the reference platform records it; the SDK requires the field.
 */
export function attemptView(a: DeliveryAttempt) {
  return {
    id: attemptId(a.deliveryId, a.attempt),
    deliveryID: a.deliveryId,
    attemptNumber: a.attempt,
    replayGeneration: a.replayGeneration ?? 0,
    endpoint: a.endpoint ?? '',
    outcome: outcomeOf(a),
    statusCode: a.statusCode ?? 0,
    durationMillis: a.durationMs,
    ...(a.error !== undefined ? { error: a.error } : {}),
    ...(a.responsePreview !== undefined ? { responseExcerpt: a.responsePreview } : {}),
    createdAt: a.at,
  };
}
