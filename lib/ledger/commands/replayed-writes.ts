import * as v from 'valibot';
import { ledgerAmountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { metadataMap } from '../../validation/common.js';
import { keyedRecord } from '../../validation/record.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { MAX_HOLD_POSTINGS } from '../domain/pending-bounds.js';
import { MAX_POSTINGS } from '../domain/postings.js';
import { MAX_REFERENCE_LENGTH } from '../domain/transaction.js';
import type { CreateTransactionInput } from './create-transaction.js';
import type { CreatePendingInput, PostPendingInput } from './pending.js';

/**
 * The writes a log import rebuilds from the entries' data (import-logs.ts, pending-import.ts), checked by the rules
 * a request's body is (routes/write-requests.ts, routes/pending-schemas.ts: the same bounds from the domain, the same
 * messages), before they are replayed: an edited export is refused as the request would have been. Only the fields
 * an entry can give: no script, expectation or timeout is logged.
 */

const address = v.pipe(
  v.string('must be a string'),
  v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
  v.regex(
    ACCOUNT_ADDRESS,
    'must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
  ),
);

const posting = v.strictObject({
  source: address,
  destination: address,
  amount: ledgerAmountSchema,
  asset: v.pipe(
    v.string('must be a string'),
    v.regex(ASSET, 'must be an asset such as USD, USD/2 or EUR_COL/12'),
  ),
});

/** A NEW_TRANSACTION entry's transaction, as the create it replays. */
export const replayedTransaction = v.strictObject({
  postings: v.pipe(
    v.array(posting, 'must be an array of postings'),
    v.maxLength(MAX_POSTINGS, `must have at most ${MAX_POSTINGS} postings`),
  ),
  metadata: metadataMap,
  reference: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.minLength(1, 'must not be empty'),
      v.maxLength(MAX_REFERENCE_LENGTH, `must be at most ${MAX_REFERENCE_LENGTH} characters`),
    ),
  ),
  timestamp: v.string('must be an RFC 3339 date-time string'),
  accountMetadata: keyedRecord(address, metadataMap, 'must map account addresses to metadata'),
}) satisfies v.GenericSchema<unknown, CreateTransactionInput>;

/** A CREATED_PENDING entry's hold, as the creation it replays. */
export const replayedHold = v.strictObject({
  postings: v.pipe(
    v.array(posting, 'must be an array of postings'),
    v.minLength(1, 'must have at least one posting'),
    v.maxLength(MAX_HOLD_POSTINGS, `must have at most ${MAX_HOLD_POSTINGS} postings`),
  ),
  metadata: metadataMap,
  expiresAt: v.optional(v.string('must be an RFC 3339 date-time string')),
  force: v.boolean('must be a boolean'),
}) satisfies v.GenericSchema<unknown, CreatePendingInput>;

/** A post's NEW_TRANSACTION entry, as the post it replays. */
export const replayedPost = v.strictObject({
  amounts: v.pipe(
    v.array(ledgerAmountSchema, 'must be an array of amounts'),
    v.maxLength(MAX_HOLD_POSTINGS, `must have at most ${MAX_HOLD_POSTINGS} amounts`),
  ),
  final: v.boolean('must be a boolean'),
  metadata: metadataMap,
}) satisfies v.GenericSchema<unknown, PostPendingInput>;
