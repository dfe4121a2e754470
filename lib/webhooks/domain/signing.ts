// Standard Webhooks v1 signing (docs/api.md §4.1): HMAC-SHA256 over `<id>.<timestamp>.<raw body>`, header value
// `v1,<base64 digest>`, one entry per secret (space-separated) while a rotation overlap is running.
import { createHmac } from 'node:crypto';
import {
  DEFAULT_WEBHOOK_HEADER_SETS,
  WEBHOOK_HEADER_SETS,
  type WebhookHeaderSet,
} from '../../events/delivery-headers.js';
import { secretKey } from './secret-key.js';

export {
  DEFAULT_WEBHOOK_HEADER_SETS,
  WEBHOOK_HEADER_SETS,
  type WebhookHeaderSet,
} from '../../events/delivery-headers.js';

export type WebhookBody = string | Uint8Array;

export interface SignatureInput {
  /** Delivery id: stable across retries, never contains `.`. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** Exactly the bytes that go on the wire: the receiver verifies these, not a re-serialisation. */
  body: WebhookBody;
  /** Current secret first, then any secret still inside its rotation overlap. */
  secrets: readonly string[];
}

// `.` separates the signed parts, so an id with a `.` could splice into the timestamp (spec §1.1). Spaces and
// control characters would break the header itself; anything else printable is left to whoever mints ids.
const DELIVERY_ID = /^[!-\-/-~]{1,256}$/;

export function assertDeliveryId(id: string): void {
  if (!DELIVERY_ID.test(id)) {
    throw new Error(
      `webhook delivery id must be 1-256 printable ASCII characters, no "." or space: ${JSON.stringify(id)}`,
    );
  }
}

// 1e11 s is the year 5138; anything above is almost surely milliseconds, which every receiver would reject as
// "too new" — better to fail here, loudly, than to send deliveries nobody can accept.
const MAX_TIMESTAMP_SECONDS = 1e11;

export function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp >= MAX_TIMESTAMP_SECONDS) {
    throw new Error(
      `webhook timestamp must be a non-negative integer of Unix seconds (not milliseconds): ${timestamp}`,
    );
  }
}

/** Unix seconds for a millisecond clock reading — the spec's timestamps are seconds, never milliseconds. */
export function unixSeconds(epochMs: number): number {
  return Math.floor(epochMs / 1000);
}

export function signOne(id: string, timestamp: number, body: WebhookBody, secret: string): string {
  const digest = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  return `v1,${digest}`;
}

export function signatureHeader({ id, timestamp, body, secrets }: SignatureInput): string {
  assertDeliveryId(id);
  assertTimestamp(timestamp);
  if (secrets.length === 0) throw new Error('webhook signing needs at least one secret');
  return secrets.map((secret) => signOne(id, timestamp, body, secret)).join(' ');
}

/** The full header set of one delivery attempt, under each of `sets`' names. */
export function deliveryHeaders(
  input: SignatureInput,
  sets: readonly WebhookHeaderSet[] = DEFAULT_WEBHOOK_HEADER_SETS,
): Record<string, string> {
  const signature = signatureHeader(input);
  const timestamp = String(input.timestamp);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const set of sets) {
    const prefix = WEBHOOK_HEADER_SETS[set];
    headers[`${prefix}-id`] = input.id;
    headers[`${prefix}-timestamp`] = timestamp;
    headers[`${prefix}-signature`] = signature;
  }
  return headers;
}
