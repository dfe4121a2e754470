import { createHash } from 'node:crypto';

/**
 * A delivery: one event for one config, created by dispatch (events stream → deliveries) and worked by deliver
 * (queue → signed POST), with its attempts. Its items are in `store/delivery-store.ts`, the queue message that
 * points at it in `store/delivery-queue.ts`.
 */

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface Delivery {
  /** Deterministic per (event, config): a redelivered stream record finds the delivery it already created. */
  id: string;
  configId: string;
  eventId: string;
  eventType: string;
  /** The event envelope as exact JSON text: the body POSTed to the endpoint, byte for byte, on every attempt. */
  body: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** Epoch ms of the next scheduled attempt while pending. */
  nextAttemptAt?: number;
  /** How many times the delivery was replayed (0 until the first replay). */
  replayGeneration: number;
  /**
   * Attempts made before the latest replay (absent until one): a replay starts the retry schedule afresh, so its
   * first failure is retried after 5 s, not after the wait that followed the delivery's own attempt of that number.
   */
  replayedAfterAttempts?: number;
  /** The latest recorded attempt: its number, when it was sent, what it got back (status code, or why nothing). */
  lastAttempt?: number;
  lastAttemptAt?: string;
  lastStatusCode?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * What an attempt meant for its delivery, in the reference platform's words: `retryable_failure` when another
 * attempt was scheduled, `permanent_failure` when it ended the delivery `failed` (410 Gone, or the schedule's
 * last attempt).
 */
export type AttemptOutcome = 'succeeded' | 'retryable_failure' | 'permanent_failure';

/** One record per attempt, kept for the attempts API. */
export interface DeliveryAttempt {
  deliveryId: string;
  /** 1-based. */
  attempt: number;
  at: string;
  statusCode?: number;
  durationMs: number;
  error?: string;
  /** First 4 KiB of the response body. */
  responsePreview?: string;
  /** The endpoint it was sent to (the config's endpoint at the time). Absent on attempts recorded before. */
  endpoint?: string;
  /** Absent on attempts recorded before it existed: the API derives it from the status code. */
  outcome?: AttemptOutcome;
  /** The delivery's replay generation when the attempt was made. */
  replayGeneration?: number;
}

/** 32 hex characters (no `.`, as `service-webhook-id` requires). */
export function deliveryId(eventId: string, configId: string): string {
  return createHash('sha256').update(`${eventId}/${configId}`).digest('hex').slice(0, 32);
}

const DELIVERY_ID = /^[0-9a-f]{32}$/;

/** Whether `value` can be a delivery id (what `deliveryId` makes): anything else is never read. */
export const isDeliveryId = (value: string): boolean => DELIVERY_ID.test(value);

/** The event a delivery carries: `body` is its envelope, POSTed byte for byte. */
export interface DeliveredEvent {
  id: string;
  type: string;
  body: string;
}

/** A new delivery of `event` to config `configId`: pending, due at once, no attempt yet. */
export function newDelivery(
  event: DeliveredEvent,
  configId: string,
  nowMs: number,
  createdAt: string,
): Delivery {
  return {
    id: deliveryId(event.id, configId),
    configId,
    eventId: event.id,
    eventType: event.type,
    body: event.body,
    status: 'pending',
    attempts: 0,
    replayGeneration: 0,
    nextAttemptAt: nowMs,
    createdAt,
    updatedAt: createdAt,
  };
}

/**
 * Whether `deliver` has not started on the delivery yet (pending, no attempt claimed): until then a message may
 * be sent for it again; afterwards `deliver` owns it (retries, replay) and no other message is sent.
 */
export const awaitsFirstAttempt = (delivery: Delivery): boolean =>
  delivery.status === 'pending' && delivery.attempts === 0;
