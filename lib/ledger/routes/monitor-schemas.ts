import * as v from 'valibot';
import { ASSET } from '../../money/asset.js';
import { signedAmountSchema } from '../../money/signed-amount.js';
import { metadataMap } from '../../validation/common.js';
import type { CreateMonitorInput } from '../domain/monitors.js';

/**
 * The monitors' request and answer shapes (docs/api.md §3.6), as functions: the routes' `describe()` lines (dropped
 * from Lambda bundles) and the handlers, loaded at the first monitors request, make them; no cold start builds
 * them. Stored monitors are read back without them (`domain/monitors.ts`, `monitorsFromStored`).
 */

/** An address or pattern as limits take it: address segments, `*` any run of characters. */
const PATTERN = /^[a-zA-Z0-9_*-]+(:[a-zA-Z0-9_*-]+)*$/;

/** Which balance a monitor watches: posted (`balance`, the default) or `available` (posted − held out). */
const field = () =>
  v.optional(v.picklist(['balance', 'available'], 'must be balance or available'));

const monitorFields = () => ({
  account: v.pipe(
    v.string('must be a string'),
    v.maxLength(256, 'must be at most 256 characters'),
    v.regex(PATTERN, 'must be an address or pattern (segments of a-z A-Z 0-9 _ - and *)'),
  ),
  asset: v.pipe(v.string('must be a string'), v.regex(ASSET, 'must be an asset such as USD/2')),
  condition: v.variant(
    'type',
    [
      v.strictObject({ type: v.literal('below'), amount: signedAmountSchema, field: field() }),
      v.strictObject({ type: v.literal('above'), amount: signedAmountSchema, field: field() }),
      v.strictObject({ type: v.literal('negative'), field: field() }),
      v.strictObject({ type: v.literal('changes'), field: field() }),
    ],
    'must be {type: below|above, amount, field?} or {type: negative|changes, field?}',
  ),
});

/** The body of POST /v2/<ledger>/monitors. */
export const createMonitorSchema = () =>
  v.strictObject({
    ...monitorFields(),
    metadata: v.optional(metadataMap),
  }) satisfies v.GenericSchema<unknown, CreateMonitorInput>;

/** A monitor as the API shows it. */
export const monitorSchema = () =>
  v.strictObject({
    id: v.pipe(v.string(), v.uuid('must be a UUID')),
    ...monitorFields(),
    metadata: metadataMap,
    createdAt: v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 date-time')),
  });
