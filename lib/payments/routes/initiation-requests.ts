import * as v from 'valibot';
import { amountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { boundedText, metadataMap, nonEmptyText } from '../../validation/common.js';
import { MAX_ACCOUNT_ID_LENGTH, MAX_REFERENCE_LENGTH } from '../domain/input.js';
import { INITIATION_TYPES, type InitiationInput } from '../domain/payment-initiation.js';
import { connectorIdSchema, createdAtSchema } from './requests.js';

/** Request bodies of payment initiations (docs/api.md §6), with the reference's bounds. */

const positiveAmount = v.pipe(
  amountSchema,
  v.check((a: bigint) => a > 0n, 'must be greater than 0'),
);
const asset = v.pipe(
  v.string('must be a string'),
  v.regex(ASSET, 'must be an asset such as USD or USD/2'),
);
const reference = v.pipe(
  nonEmptyText(MAX_REFERENCE_LENGTH),
  v.minLength(3, 'must be at least 3 characters'),
);
const description = v.optional(boundedText(10_000), '');
const accountId = nonEmptyText(MAX_ACCOUNT_ID_LENGTH);

/** POST /v3/payment-initiations. `metadata: null` and `sourceAccountID: null` are read as absent (the SDK sends them). */
export const initiationInputSchema = v.strictObject({
  reference,
  connectorID: connectorIdSchema,
  scheduledAt: v.optional(createdAtSchema),
  description,
  type: v.picklist(INITIATION_TYPES, `must be one of ${INITIATION_TYPES.join(', ')}`),
  amount: positiveAmount,
  asset,
  sourceAccountID: v.nullish(accountId),
  destinationAccountID: accountId,
  metadata: v.nullish(metadataMap),
});

export function toInitiationInput(
  body: v.InferOutput<typeof initiationInputSchema>,
): InitiationInput {
  const { sourceAccountID, metadata, scheduledAt, ...rest } = body;
  return {
    ...rest,
    ...(sourceAccountID ? { sourceAccountID } : {}),
    ...(scheduledAt ? { scheduledAt } : {}),
    metadata: metadata ?? {},
  };
}

/** POST /v3/payment-initiations/<id>/reverse. */
export const reversalInputSchema = v.strictObject({
  reference,
  description,
  amount: positiveAmount,
  asset,
  metadata: v.nullish(metadataMap),
});
