import * as v from 'valibot';
import { amountSchema } from '../../../money/amounts.js';
import { ASSET } from '../../../money/asset.js';
import { boundedText, metadataMap, nonEmptyText } from '../../../validation/common.js';
import { ACCOUNT_TYPES } from '../../domain/account.js';
import { MAX_ACCOUNT_ID_LENGTH, MAX_REFERENCE_LENGTH } from '../../domain/input.js';
import { INITIATION_TYPES, NOT_SCHEDULED } from '../../domain/payment-initiation.js';
import { V1_PAYMENT_STATUSES, V1_SCHEMES } from '../../domain/v1/v1-vocabulary.js';
import { initiationInputSchema, reversalInputSchema } from '../initiation-requests.js';
import { bankAccountInputSchema } from '../record-requests.js';
import { connectorIdSchema, createdAtSchema, paymentTypeSchema } from '../requests.js';

/** Request bodies of the v1 API (the SDK's `sdk.payments.v1` requests), checked with v3's bounds. */

const asset = v.pipe(
  v.string('must be a string'),
  v.regex(ASSET, 'must be an asset such as USD or USD/2'),
);
const accountId = nonEmptyText(MAX_ACCOUNT_ID_LENGTH);

/** POST /payments: v1's scheme names and statuses; no adjustments, no metadata (set by PATCH). */
export const paymentV1InputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  connectorID: connectorIdSchema,
  type: paymentTypeSchema,
  status: v.picklist(V1_PAYMENT_STATUSES, `must be one of ${V1_PAYMENT_STATUSES.join(', ')}`),
  scheme: v.picklist(V1_SCHEMES, `must be one of ${V1_SCHEMES.join(', ')}`),
  amount: amountSchema,
  asset,
  createdAt: createdAtSchema,
  sourceAccountID: v.optional(accountId),
  destinationAccountID: v.optional(accountId),
});

/** POST /accounts: as v3, the name optional. */
export const accountV1InputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  connectorID: connectorIdSchema,
  createdAt: createdAtSchema,
  accountName: v.optional(nonEmptyText(1000)),
  type: v.picklist(ACCOUNT_TYPES, `must be one of ${ACCOUNT_TYPES.join(', ')}`),
  defaultAsset: v.optional(asset),
  metadata: v.nullish(metadataMap),
});

/**
 * POST /bank-accounts: v3's fields, the country required as in v1. `connectorID` (forward on creation) is
 * refused: no connector here can create a bank account at its provider.
 */
export const bankAccountV1InputSchema = v.strictObject({
  ...bankAccountInputSchema.entries,
  country: v.pipe(
    v.string('must be a string'),
    v.regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as FR'),
  ),
  metadata: v.nullish(metadataMap),
  connectorID: v.optional(connectorIdSchema),
});

/** `scheduledAt` is required in v1; its zero time means "no schedule". */
const scheduledAt = v.union(
  [v.literal(NOT_SCHEDULED), createdAtSchema],
  'must be an RFC 3339 date-time',
);

/** POST /transfer-initiations. `validated: true` sends it at once. */
export const transferInitiationV1InputSchema = v.strictObject({
  ...initiationInputSchema.entries,
  scheduledAt: v.optional(scheduledAt),
  description: v.optional(boundedText(10_000), ''),
  type: v.picklist(INITIATION_TYPES, `must be one of ${INITIATION_TYPES.join(', ')}`),
  sourceAccountID: v.nullish(v.union([v.literal(''), accountId])),
  provider: v.optional(v.string()),
  validated: v.optional(v.boolean('must be a boolean'), false),
});

/** POST /transfer-initiations/<id>/status: v1's approval (VALIDATED) or rejection. */
export const transferStatusV1InputSchema = v.strictObject({
  status: v.picklist(['VALIDATED', 'REJECTED'], 'must be VALIDATED or REJECTED'),
});

export const reversalV1InputSchema = reversalInputSchema;

/** POST /connectors/<provider>/transfers: a transfer at once between two of the connector's accounts. */
export const connectorTransferV1InputSchema = v.strictObject({
  amount: v.pipe(
    amountSchema,
    v.check((a: bigint) => a > 0n, 'must be greater than 0'),
  ),
  asset,
  destination: accountId,
  source: v.optional(accountId),
});

/** POST /pools/<id>/accounts. */
export const poolAccountV1InputSchema = v.strictObject({ accountID: accountId });
