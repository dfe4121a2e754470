import { outboxRow } from '../../events/outbox.js';
import type { Payment } from '../domain/payment.js';

/**
 * The events-table row of a `payments.saved_payment`, plus the payment's id and version. The event derives
 * from (payment id, version): a retried attempt writes the same row, and one version of a payment can never
 * produce two events.
 */
export function savedPaymentEventRow(
  payment: Payment,
  version: number,
  date: string,
  nowMs: number,
): Record<string, unknown> {
  return outboxRow({
    type: 'payments.saved_payment',
    seed: `payments/${payment.id}/${version}`,
    idempotencyKey: `${payment.id}/${version}`,
    date,
    payload: payment,
    nowMs,
    attributes: { paymentId: payment.id, paymentVersion: version },
  });
}
