import * as v from 'valibot';
import { ValidationError } from '../../errors/index.js';
import { amountSchema } from '../../ledger/domain/amounts.js';
import { ASSET } from '../../ledger/domain/names.js';
import { formatInstant, parseInstant, sortableInstant, type Instant } from '../../ledger/domain/time.js';
import { metadataMap, nonEmptyText } from '../../validation/common.js';
import { PAYMENT_SCHEMES, PAYMENT_STATUSES, PAYMENT_TYPES, type PaymentInput } from './payment.js';

/** Bounds that keep every key built from these values far below DynamoDB's key limits (2048 / 1024 bytes). */
export const MAX_REFERENCE_LENGTH = 1000;
export const MAX_CONNECTOR_ID_LENGTH = 256;
export const MAX_ACCOUNT_ID_LENGTH = 256;

const RFC3339_PARTS = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(10000, 0, 1);

/**
 * An RFC 3339 date-time, checked against the calendar (no 2026-02-30, no 24:00) and kept within 1970-9999 so
 * its sortable form has a fixed width. Returns the instant (microsecond precision; finer digits are dropped).
 */
export function parseCreatedAt(value: string, field = 'createdAt'): Instant {
  const instant = parseInstant(value, field);
  const [, y, mo, d, h, mi, s, oh, om] = RFC3339_PARTS.exec(value)!.map(Number) as number[];
  const daysInMonth = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth || h! > 23 || mi! > 59 || s! > 59 || (oh || 0) > 23 || (om || 0) > 59) {
    throw new ValidationError(`${field}: not a valid calendar date-time`);
  }
  if (instant.ms < EARLIEST || instant.ms >= LATEST) throw new ValidationError(`${field}: must be between 1970 and 9999`);
  return instant;
}

/** The fixed-width form used in sort keys: text order is time order. */
export const sortableCreatedAt = (createdAt: string): string => sortableInstant(parseCreatedAt(createdAt));

const createdAtSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(64, 'must be an RFC 3339 date-time'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return formatInstant(parseCreatedAt(dataset.value));
    } catch (err) {
      addIssue({ message: err instanceof ValidationError ? err.message.replace(/^createdAt: /, '') : 'must be an RFC 3339 date-time' });
      return NEVER;
    }
  }),
);

/**
 * v2 metadata. The shared `metadataMap` lets an array through as a record of its indexes (`["a"]` → `{"0": "a"}`),
 * so arrays are refused first.
 */
const stringMap = v.pipe(
  v.custom<unknown>((value) => !Array.isArray(value), 'must be an object of string values'),
  metadataMap,
);

const enumOf = <T extends readonly string[]>(values: T) => v.picklist(values, `must be one of ${values.join(', ')}`);

export const paymentTypeSchema = enumOf(PAYMENT_TYPES);
export const paymentStatusSchema = enumOf(PAYMENT_STATUSES);
export const connectorIdSchema = nonEmptyText(MAX_CONNECTOR_ID_LENGTH);
const accountIdSchema = nonEmptyText(MAX_ACCOUNT_ID_LENGTH);

/** POST /v3/payments (API.md §6). Unknown fields are refused; `metadata: null` is read as absent (the SDK may send it). */
export const paymentInputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  connectorID: connectorIdSchema,
  type: paymentTypeSchema,
  status: v.optional(paymentStatusSchema),
  amount: amountSchema,
  initialAmount: v.optional(amountSchema),
  asset: v.pipe(v.string('must be a string'), v.regex(ASSET, 'must be an asset such as USD or USD/2')),
  scheme: enumOf(PAYMENT_SCHEMES),
  createdAt: createdAtSchema,
  sourceAccountID: v.optional(accountIdSchema),
  destinationAccountID: v.optional(accountIdSchema),
  metadata: v.nullish(stringMap),
});

export function toPaymentInput(body: v.InferOutput<typeof paymentInputSchema>): PaymentInput {
  const { metadata, ...rest } = body;
  return { ...rest, ...(metadata != null ? { metadata } : {}) };
}

/** PATCH /v3/payments/<id>/metadata: a flat string map. */
export const metadataBodySchema = stringMap;

/** The list's filters, all optional; each one (and each combination) is served by its own key range. */
export const paymentFilterSchema = v.strictObject({
  status: v.optional(paymentStatusSchema),
  type: v.optional(paymentTypeSchema),
  connectorID: v.optional(connectorIdSchema),
});
export type PaymentFilter = v.InferOutput<typeof paymentFilterSchema>;
