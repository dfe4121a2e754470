import * as v from 'valibot';
import { bigInteger, cursorOf, dataOf, dateTime, metadataView } from '../../openapi/schemas.js';
import { PAYMENT_SCHEMES, PAYMENT_STATUSES, PAYMENT_TYPES } from '../domain/payment.js';

/** The payments service's response shapes (docs/api.md §6), for its OpenAPI document and the tests against it. */

export const paymentSchema = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  provider: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  type: v.picklist(PAYMENT_TYPES),
  status: v.picklist(PAYMENT_STATUSES),
  scheme: v.picklist(PAYMENT_SCHEMES),
  asset: v.string(),
  amount: bigInteger,
  initialAmount: bigInteger,
  sourceAccountID: v.optional(v.string()),
  destinationAccountID: v.optional(v.string()),
  metadata: metadataView,
});

export const paymentsSchemas = { Payment: paymentSchema };

export const paymentData = dataOf(paymentSchema);
export const paymentPage = cursorOf(paymentSchema);

export const paymentsDocument = {
  service: 'payments',
  title: 'Payments',
  description:
    'Payments (v3): created or updated by reference, each change emitted as `payments.saved_payment`.',
  schemas: paymentsSchemas,
} as const;
