import { createHash } from 'node:crypto';
import { EVENT_APP, EVENT_VERSION, type EventEnvelope } from '../../../events/catalog.js';
import { stringifyJson } from '../../json/bigint-json.js';
import type { Payment } from '../domain/payment.js';
import { eventKey } from './keys.js';

/** Event rows expire like the ledger's: the stream has carried them on long before. */
export const EVENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The events-table row of a `payments.saved_payment`, in the same shape the ledger writes
 * (`EVENT#<id>` / `EVENT`, type, date, body = the envelope as exact JSON, expiresAt), plus the payment's id and
 * version. The id is derived from (payment id, version): a retried attempt writes the same row, and one version
 * of a payment can never produce two events.
 */
export function savedPaymentEventRow(payment: Payment, version: number, date: string, nowMs: number): Record<string, unknown> {
  const id = createHash('sha256').update(`payments/${payment.id}/${version}`).digest('hex').slice(0, 32);
  const envelope: Omit<EventEnvelope, 'payload'> & { payload: Payment } = {
    id,
    idempotency_key: `${payment.id}/${version}`,
    date,
    app: EVENT_APP['payments.saved_payment'],
    version: EVENT_VERSION,
    type: 'payments.saved_payment',
    payload: payment,
  };
  return {
    ...eventKey(id),
    type: envelope.type,
    paymentId: payment.id,
    paymentVersion: version,
    date,
    body: stringifyJson(envelope),
    expiresAt: Math.floor(nowMs / 1000) + EVENT_TTL_SECONDS,
  };
}
