import * as v from 'valibot';
import { ledgerAmountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { metadataMap } from '../../validation/common.js';
import type { CreatePendingInput, PostPendingInput } from '../commands/pending.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { MAX_HOLD_POSTINGS, MAX_TIMEOUT_SECONDS } from '../domain/pending-bounds.js';
import { withExpect } from './write-requests.js';

/**
 * The pending transfers' request and answer shapes (docs/api.md §3.6), as functions: the routes' `describe()` lines
 * (dropped from Lambda bundles) and the pending handlers, loaded at a ledger's first pending write, make them; no
 * cold start builds them. The requests produce the commands' inputs (commands/pending.ts).
 */

const address = () =>
  v.pipe(
    v.string('must be a string'),
    v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
    v.regex(
      ACCOUNT_ADDRESS,
      'must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
    ),
  );

/** The body of POST /v2/<ledger>/pending. */
const createPendingBody = () =>
  v.strictObject({
    postings: v.pipe(
      v.array(
        v.strictObject({
          source: address(),
          destination: address(),
          amount: ledgerAmountSchema,
          asset: v.pipe(
            v.string('must be a string'),
            v.regex(ASSET, 'must be an asset such as USD, USD/2 or EUR_COL/12'),
          ),
        }),
        'must be an array of postings',
      ),
      v.minLength(1, 'must have at least one posting'),
      v.maxLength(MAX_HOLD_POSTINGS, `must have at most ${MAX_HOLD_POSTINGS} postings`),
    ),
    metadata: v.optional(metadataMap),
    /** When the rest releases by itself (RFC 3339); or `timeout`, seconds from the decision. */
    expiresAt: v.optional(v.string('must be an RFC 3339 date-time string')),
    timeout: v.optional(
      v.pipe(
        // Integers arrive as bigint (exact JSON): seconds are small, a number holds them.
        v.union([v.bigint(), v.number()], 'must be a number of seconds'),
        v.transform(Number),
        v.integer('must be a whole number of seconds'),
        v.minValue(1, 'must be at least 1 second'),
        v.maxValue(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS} seconds`),
      ),
    ),
    force: v.optional(v.boolean('must be a boolean')),
  });

/** The body of POST /v2/<ledger>/pending/<id>/post. */
const postPendingBody = () =>
  v.strictObject({
    /** Per posting of the hold, what to post now (default: all that remains of each). */
    amounts: v.optional(
      v.pipe(
        v.array(ledgerAmountSchema, 'must be an array of amounts'),
        v.maxLength(MAX_HOLD_POSTINGS, `must have at most ${MAX_HOLD_POSTINGS} amounts`),
      ),
    ),
    /** Release what remains after this post. */
    final: v.optional(v.boolean('must be a boolean')),
    /** The metadata of the transaction the post creates. */
    metadata: v.optional(metadataMap),
  });

/** The body of POST /v2/<ledger>/pending, with `expect`. */
export const createPendingSchema = () =>
  withExpect(createPendingBody()) satisfies v.GenericSchema<unknown, CreatePendingInput>;

/** The body of POST /v2/<ledger>/pending/<id>/post, with `expect`. */
export const postPendingSchema = () =>
  withExpect(postPendingBody()) satisfies v.GenericSchema<unknown, PostPendingInput>;

const exact = () =>
  v.pipe(
    v.number(),
    v.integer(),
    v.description(
      'Exact integer: a JSON number, or a decimal string when the request has `Formance-Bigint-As-String: true`.',
    ),
  );
const instant = () => v.pipe(v.string(), v.isoTimestamp());
const id = () => v.pipe(v.number(), v.integer(), v.minValue(1));

/** A pending transfer (hold) as answered: each posting with what was posted, released and what remains. */
export const pendingAnswer = () =>
  v.strictObject({
    id: id(),
    postings: v.array(
      v.strictObject({
        source: v.string(),
        destination: v.string(),
        amount: exact(),
        asset: v.string(),
        posted: exact(),
        voided: exact(),
        remaining: exact(),
      }),
    ),
    metadata: v.record(v.string(), v.string()),
    insertedAt: instant(),
    expiresAt: v.optional(instant()),
    status: v.picklist(['PENDING', 'POSTED', 'VOIDED', 'EXPIRED']),
    transactions: v.array(id()),
  });

/** `{<asset>: {posted, pendingIn, pendingOut, available}}`: an account's balances with its holds. */
export const accountBalancesAnswer = () =>
  v.record(
    v.string(),
    v.strictObject({
      posted: exact(),
      pendingIn: exact(),
      pendingOut: exact(),
      available: exact(),
    }),
  );
