import * as v from 'valibot';
import { ValidationError } from '../../errors/index.js';
import { amountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { formatInstant } from '../../time/instant.js';
import { metadataMap, nonEmptyText } from '../../validation/common.js';
import { validate } from '../../validation/validate.js';
import { MAX_ADJUSTMENTS } from '../domain/adjustment.js';
import {
  MAX_ACCOUNT_ID_LENGTH,
  MAX_CONNECTOR_ID_LENGTH,
  MAX_REFERENCE_LENGTH,
  type PaymentFilter,
  parseCreatedAt,
} from '../domain/input.js';
import {
  PAYMENT_SCHEMES,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
  type PaymentInput,
} from '../domain/payment.js';

/**
 * The payments service's request schemas for payments, and the field schemas its other requests share
 * (docs/architecture.md, "The rules, checked": request schemas live in the routes). Each produces the typed value
 * the domain takes; unknown fields are refused.
 */

export const createdAtSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(64, 'must be an RFC 3339 date-time'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return formatInstant(parseCreatedAt(dataset.value));
    } catch (err) {
      addIssue({
        message:
          err instanceof ValidationError
            ? err.message.replace(/^createdAt: /, '')
            : 'must be an RFC 3339 date-time',
      });
      return NEVER;
    }
  }),
);

/** v2 metadata: a flat map of string to string (arrays refused). */
const stringMap = metadataMap;

const enumOf = <T extends readonly string[]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`);

export const paymentTypeSchema = enumOf(PAYMENT_TYPES);
export const paymentStatusSchema = enumOf(PAYMENT_STATUSES);
export const connectorIdSchema = nonEmptyText(MAX_CONNECTOR_ID_LENGTH);
const accountIdSchema = nonEmptyText(MAX_ACCOUNT_ID_LENGTH);

/** One adjustment of a payment's create request. */
const adjustmentInputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  createdAt: createdAtSchema,
  status: paymentStatusSchema,
  amount: v.optional(amountSchema),
  asset: v.optional(
    v.pipe(v.string('must be a string'), v.regex(ASSET, 'must be an asset such as USD or USD/2')),
  ),
  metadata: v.optional(stringMap),
});

/** POST /v3/payments (docs/api.md §6). Unknown fields are refused; `metadata: null` is read as absent (the SDK may send it). */
export const paymentInputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  connectorID: connectorIdSchema,
  type: paymentTypeSchema,
  status: v.optional(paymentStatusSchema),
  amount: amountSchema,
  initialAmount: v.optional(amountSchema),
  asset: v.pipe(
    v.string('must be a string'),
    v.regex(ASSET, 'must be an asset such as USD or USD/2'),
  ),
  scheme: enumOf(PAYMENT_SCHEMES),
  createdAt: createdAtSchema,
  sourceAccountID: v.optional(accountIdSchema),
  destinationAccountID: v.optional(accountIdSchema),
  metadata: v.nullish(stringMap),
  /**
   * The payment's history as the provider reported it (the reference's adjustments). Without `status`, the
   * payment takes the status of the newest adjustment.
   */
  adjustments: v.optional(
    v.pipe(
      v.array(adjustmentInputSchema, 'must be an array'),
      v.maxLength(MAX_ADJUSTMENTS, `must have at most ${MAX_ADJUSTMENTS} entries`),
    ),
  ),
});

export function toPaymentInput(body: v.InferOutput<typeof paymentInputSchema>): PaymentInput {
  const { metadata, adjustments, ...rest } = body;
  return {
    ...rest,
    ...(metadata != null ? { metadata } : {}),
    ...(adjustments && adjustments.length > 0
      ? {
          adjustments: adjustments.map((a) => ({
            ...a,
            ...(a.metadata ? { metadata: a.metadata } : {}),
            raw: { ...a } as Record<string, unknown>,
          })),
        }
      : {}),
  };
}

/**
 * PATCH /v3/payments/<id>/metadata takes two bodies. The reference service reads a flat string map
 * (`{"k": "v"}`); the official SDK (OpenAPI `V3UpdatePaymentMetadataRequest`) sends it wrapped,
 * `{"metadata": {"k": "v"}}` or `{"metadata": null}`. A body whose only key is `metadata` holding an object
 * (a null is already removed by the body reader, leaving `{}`) is the wrapped form; no flat map can look like that,
 * since metadata values are strings. Errors name the field as sent (`body.metadata.k`).
 */
export function metadataPatch(body: unknown): Record<string, string> {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const inner = (body as Record<string, unknown>).metadata;
    if (
      keys.length === 1 &&
      keys[0] === 'metadata' &&
      inner !== null &&
      typeof inner === 'object' &&
      !Array.isArray(inner)
    ) {
      return validate(stringMap, inner, 'body.metadata');
    }
  }
  return validate(stringMap, body, 'body');
}

/** GET /v3/payments filters (`PaymentFilter`). */
export const paymentFilterSchema = v.strictObject({
  status: v.optional(paymentStatusSchema),
  type: v.optional(paymentTypeSchema),
  connectorID: v.optional(connectorIdSchema),
}) satisfies v.GenericSchema<unknown, PaymentFilter>;
