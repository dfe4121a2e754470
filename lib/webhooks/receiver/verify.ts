// Receiver-side check of our webhook signatures (Standard Webhooks v1). This file depends on nothing but
// `node:crypto` on purpose: receivers copy it into their own code base as-is.
//
//   const ok = verifyWithTolerance(
//     req.headers['webhook-signature'], req.headers['webhook-id'], req.headers['webhook-timestamp'],
//     process.env.WEBHOOK_SECRET, rawBody);          // rawBody: the bytes as received, NOT re-serialised JSON
//
// Contract: `false` means "not from us, or not fresh" (answer 401); a thrown Error means the caller passed
// something that can never verify — a non-integer timestamp, a parsed body, a malformed secret — a bug to fix.
import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_VERSION = 'v1';
const DIGEST_BYTES = 32; // SHA-256
const DEFAULT_TOLERANCE_SECONDS = 300; // the value both Standard Webhooks reference libraries and Stripe use

function readTimestamp(timestamp: unknown): number {
  if (typeof timestamp === 'string' && /^\d{1,15}$/.test(timestamp)) return Number(timestamp);
  if (typeof timestamp === 'number' && Number.isSafeInteger(timestamp) && timestamp >= 0)
    return timestamp;
  throw new Error(
    `webhook timestamp must be an integer number of Unix seconds (digits only), got ${describe(timestamp)}`,
  );
}

function readBody(rawBody: unknown): string | Uint8Array {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody; // Buffer is a Uint8Array
  throw new Error(
    `webhook body cannot be read: pass the raw request body as a string, Buffer or Uint8Array ` +
      `(not parsed JSON), got ${describe(rawBody)}`,
  );
}

function readKey(secret: unknown): Buffer {
  if (typeof secret !== 'string')
    throw new Error('webhook secret must be a string like "whsec_<base64>"');
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new Error('webhook secret must be "whsec_" followed by standard base64');
  }
  return Buffer.from(encoded, 'base64');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

/**
 * True when one of the `v1,<base64>` entries in `signatureHeader` is the HMAC of `<id>.<timestamp>.<body>`
 * under `secret`. Several entries are normal during a secret rotation; any one matching is enough.
 * Does NOT check freshness — use `verifyWithTolerance` on a live endpoint.
 */
export function verify(
  signatureHeader: unknown,
  id: unknown,
  timestamp: unknown,
  secret: unknown,
  rawBody: unknown,
): boolean {
  const seconds = readTimestamp(timestamp);
  const body = readBody(rawBody);
  const key = readKey(secret);
  // A missing header or id is an unauthenticated request, not a programming error.
  if (
    typeof signatureHeader !== 'string' ||
    typeof id !== 'string' ||
    id === '' ||
    id.includes('.')
  )
    return false;

  const expected = createHmac('sha256', key).update(`${id}.${seconds}.`).update(body).digest();
  let matched = false;
  for (const entry of signatureHeader.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== SIGNATURE_VERSION) continue; // e.g. v1a (ed25519): not ours
    const candidate = Buffer.from(entry.slice(comma + 1), 'base64');
    // The length is public (always 32 for a real signature); only the bytes need a constant-time compare.
    // No early exit, so the time taken does not reveal which entry matched.
    if (candidate.length === DIGEST_BYTES && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

export interface ToleranceOptions {
  /** How far the timestamp may be from now, either way. Default 300 s. */
  toleranceSeconds?: number;
  /** The current time in epoch milliseconds (or a Date). Default: the system clock. */
  now?: number | Date;
}

/**
 * `verify`, plus replay protection: a timestamp more than `toleranceSeconds` before or after now returns
 * false (not a throw — a stale or replayed delivery is an unauthenticated request, like a bad signature).
 * Exactly `toleranceSeconds` away is still accepted.
 */
export function verifyWithTolerance(
  signatureHeader: unknown,
  id: unknown,
  timestamp: unknown,
  secret: unknown,
  rawBody: unknown,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: ToleranceOptions = {},
): boolean {
  const seconds = readTimestamp(timestamp);
  const nowSeconds = Math.floor((typeof now === 'number' ? now : now.getTime()) / 1000);
  // Check the signature first so its errors (bad body, bad secret) surface whatever the clock says.
  const authentic = verify(signatureHeader, id, seconds, secret, rawBody);
  return authentic && Math.abs(nowSeconds - seconds) <= toleranceSeconds;
}
