import { type Payment, providerOf } from '../payment.js';
import {
  type InitiationInput,
  NOT_SCHEDULED,
  type PaymentInitiation,
  reversibleAmount,
} from '../payment-initiation.js';
import { v1InitiationStatus, v1PaymentStatus, v1ProviderOf } from './v1-vocabulary.js';

/** Payment initiations as v1's transfer initiations: the same records, v1's names and statuses. */

/** A v1 create body, validated (routes/v1/v1-requests.ts). */
export interface TransferInitiationV1Body {
  reference: string;
  scheduledAt?: string;
  description: string;
  sourceAccountID?: string;
  destinationAccountID: string;
  connectorID: string;
  type: InitiationInput['type'];
  amount: bigint;
  asset: string;
  validated: boolean;
  metadata?: Record<string, string> | null;
}

/** The v3 initiation a v1 body asks for; `validated` says whether it is sent at once (v3's `noValidation`). */
export function initiationOfV1(body: TransferInitiationV1Body): InitiationInput {
  return {
    reference: body.reference,
    connectorID: body.connectorID,
    // v1 requires `scheduledAt`; its zero time (and any time not after now) means "no schedule".
    ...(body.scheduledAt !== undefined && body.scheduledAt !== NOT_SCHEDULED
      ? { scheduledAt: body.scheduledAt }
      : {}),
    description: body.description,
    type: body.type,
    amount: body.amount,
    asset: body.asset,
    ...(body.sourceAccountID ? { sourceAccountID: body.sourceAccountID } : {}),
    destinationAccountID: body.destinationAccountID,
    metadata: body.metadata ?? {},
  };
}

function statusOf(pi: PaymentInitiation): string {
  const newest = pi.adjustments[0]!;
  return v1InitiationStatus(newest.status, reversibleAmount(pi) > 0n);
}

/** The initiation as v1 lists it. */
export function transferInitiationV1View(pi: PaymentInitiation): Record<string, unknown> {
  const newest = pi.adjustments[0]!;
  return {
    id: pi.id,
    reference: pi.reference,
    createdAt: pi.createdAt,
    scheduledAt: pi.scheduledAt,
    description: pi.description,
    sourceAccountID: pi.sourceAccountID ?? '',
    destinationAccountID: pi.destinationAccountID ?? '',
    connectorID: pi.connectorID,
    provider: v1ProviderOf(providerOf(pi.connectorID)) ?? providerOf(pi.connectorID),
    type: pi.type,
    amount: pi.amount,
    initialAmount: pi.amount,
    asset: pi.asset,
    status: statusOf(pi),
    error: newest.error ?? '',
    metadata: pi.metadata,
  };
}

/** The initiation as v1 reads one: with its history and the payments it produced (those still recorded). */
export function transferInitiationV1Detail(
  pi: PaymentInitiation,
  payments: ReadonlyMap<string, Payment>,
): Record<string, unknown> {
  return {
    ...transferInitiationV1View(pi),
    relatedPayments: pi.relatedPayments.flatMap((r) => {
      const payment = payments.get(r.paymentID);
      return payment
        ? [
            {
              paymentID: r.paymentID,
              createdAt: r.createdAt,
              status: v1PaymentStatus(payment.status),
            },
          ]
        : [];
    }),
    relatedAdjustments: pi.adjustments.map((a) => ({
      adjustmentID: a.id,
      createdAt: a.createdAt,
      status: v1InitiationStatus(a.status, false),
      error: a.error ?? '',
      metadata: a.metadata,
    })),
  };
}
