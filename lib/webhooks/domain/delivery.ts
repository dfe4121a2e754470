import { createHash } from 'node:crypto';

/**
 * The contract between dispatch (events stream → deliveries) and deliver (SQS → signed POST): the delivery
 * record in the webhooks table and the SQS message that points at it.
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

/** The SQS message body of a delivery: a pointer, never the payload (SQS messages are at most 256 KiB). */
export interface DeliveryMessage {
  deliveryId: string;
}

export const encodeDeliveryMessage = (id: string): string =>
  JSON.stringify({ deliveryId: id } satisfies DeliveryMessage);

export function decodeDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (
      parsed &&
      typeof parsed === 'object' &&
      typeof (parsed as DeliveryMessage).deliveryId === 'string' &&
      /^[0-9a-f]{32}$/.test((parsed as DeliveryMessage).deliveryId)
    ) {
      return { deliveryId: (parsed as DeliveryMessage).deliveryId };
    }
  } catch {
    // fall through: not a delivery message
  }
  return undefined;
}
