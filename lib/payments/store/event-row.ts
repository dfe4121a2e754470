import { outboxRow } from '../../events/outbox.js';
import type { Payment } from '../domain/payment.js';

/**
 * The events-table row of a `payments.saved_payment`, plus the payment's id and version, in the payment's
 * environment. The event derives from (environment, payment id, version): a retried attempt writes the same row,
 * one version of a payment can never produce two events, and the same payment key in two environments (the same
 * payment id) gives two distinct events.
 */
export function savedPaymentEventRow(
  environment: string,
  payment: Payment,
  version: number,
  date: string,
  nowMs: number,
): Record<string, unknown> {
  return outboxRow({
    type: 'payments.saved_payment',
    seed: `payments/${environment}/${payment.id}/${version}`,
    idempotencyKey: `${payment.id}/${version}`,
    date,
    payload: payment,
    environment,
    nowMs,
    attributes: { paymentId: payment.id, paymentVersion: version },
  });
}
