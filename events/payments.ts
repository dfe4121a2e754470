import * as v from 'valibot';
import { MAX_AMOUNT } from '../lib/money/amounts.js';
import { ASSET } from '../lib/money/asset.js';

/** Direction of a payment (docs/api.md §6). */
export const PAYMENT_TYPES = ['PAY-IN', 'PAYOUT', 'TRANSFER', 'OTHER'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/**
 * Where a payment stands: the reference platform's v3 statuses, verbatim (AMOUNT_ADJUSTEMENT keeps its
 * upstream spelling, it is the wire value), so records from its connectors round-trip and the official SDK's
 * closed enum parses every value we emit. No transition rules: connectors report states out of order.
 */
export const PAYMENT_STATUSES = [
  'UNKNOWN',
  'PENDING',
  'SUCCEEDED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REFUNDED',
  'REFUNDED_FAILURE',
  'REFUND_REVERSED',
  'DISPUTE',
  'DISPUTE_WON',
  'DISPUTE_LOST',
  'AMOUNT_ADJUSTEMENT',
  'AUTHORISATION',
  'CAPTURE',
  'CAPTURE_FAILED',
  'OTHER',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The rail a payment travelled over: the reference platform's v3 scheme enum. An enum rather than free text so
 * that reports and filters group reliably (no `visa` / `Visa` / `VISA`); unlisted rails use OTHER.
 */
export const PAYMENT_SCHEMES = [
  'UNKNOWN',
  'CARD_VISA',
  'CARD_MASTERCARD',
  'CARD_AMEX',
  'CARD_DINERS',
  'CARD_DISCOVER',
  'CARD_JCB',
  'CARD_UNION_PAY',
  'CARD_ALIPAY',
  'CARD_CUP',
  'SEPA_DEBIT',
  'SEPA_CREDIT',
  'SEPA',
  'GOOGLE_PAY',
  'APPLE_PAY',
  'DOKU',
  'DRAGON_PAY',
  'MAESTRO',
  'MOL_PAY',
  'A2A',
  'ACH_DEBIT',
  'ACH',
  'RTP',
  'OTHER',
] as const;
export type PaymentScheme = (typeof PAYMENT_SCHEMES)[number];

/**
 * Payload of `payments.saved_payment` (docs/api.md §5): the Payment record of docs/api.md §6, after the change.
 * Amounts are JSON integers of up to 38 digits: `bigint` when the body is read with `lib/json` (exact), or a
 * safe JS integer when a consumer used plain `JSON.parse` on a small amount.
 */
const amount = v.pipe(
  v.union([v.bigint(), v.pipe(v.number(), v.safeInteger())]),
  v.check(
    (value) => BigInt(value) >= 0n && BigInt(value) <= MAX_AMOUNT,
    'must be a non-negative integer of at most 38 digits',
  ),
);

export const savedPaymentPayloadSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/)),
  connectorID: v.pipe(v.string(), v.minLength(1)),
  provider: v.pipe(v.string(), v.minLength(1)),
  reference: v.pipe(v.string(), v.minLength(1)),
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  type: v.picklist(PAYMENT_TYPES),
  status: v.picklist(PAYMENT_STATUSES),
  scheme: v.picklist(PAYMENT_SCHEMES),
  asset: v.pipe(v.string(), v.regex(ASSET)),
  amount,
  initialAmount: amount,
  sourceAccountID: v.optional(v.pipe(v.string(), v.minLength(1))),
  destinationAccountID: v.optional(v.pipe(v.string(), v.minLength(1))),
  metadata: v.record(v.string(), v.string()),
  /** The payment's history, newest first; absent when the provider reported none. */
  adjustments: v.optional(
    v.array(
      v.strictObject({
        id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/)),
        reference: v.pipe(v.string(), v.minLength(1)),
        createdAt: v.pipe(v.string(), v.isoTimestamp()),
        status: v.picklist(PAYMENT_STATUSES),
        amount: v.optional(amount),
        asset: v.optional(v.pipe(v.string(), v.regex(ASSET))),
        metadata: v.record(v.string(), v.string()),
        raw: v.record(v.string(), v.unknown()),
      }),
    ),
  ),
});

export type SavedPaymentPayload = v.InferOutput<typeof savedPaymentPayloadSchema>;
