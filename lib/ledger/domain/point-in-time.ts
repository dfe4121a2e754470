import { ValidationError } from '../../errors/index.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { type FeatureSet, requireEffectiveVolumes, requireFeature } from './features.js';
import type { Transaction } from './transaction.js';

/**
 * Point-in-time reads (`pit`), as the reference platform serves them (docs/decisions/ledger.md, "Point-in-time reads").
 * It reads two clocks at once: which transactions and accounts exist, and effective volumes, by effective time
 * (`timestamp`, `firstUsage`); metadata, `reverted` and an account's `volumes` by when things were written
 * (revision dates, `revertedAt`, `insertedAt`). A point in time is kept as a sortable instant, so comparing two
 * is comparing text.
 */

/** `pit` (or another date parameter) as a sortable instant; absent or empty is no point in time, as the reference. */
export function readPointInTime(raw: string | undefined, field = 'pit'): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  return sortableInstant(parseInstant(raw, field));
}

/** Whether a stored date (RFC 3339 text, as written by the ledger) is at or before a point in time. */
export function atOrBefore(date: string, pit: string): boolean {
  return sortableInstant(parseInstant(date, 'date')) <= pit;
}

/**
 * `order` of the transaction list: by id (the default) or `effective` (by timestamp). The reference reads only
 * the value `effective` and ignores any other; the SDK's enum holds that one value, so anything else is a 400
 * here rather than a silently different order.
 */
export type TransactionOrder = 'id' | 'effective';

export function readTransactionOrder(raw: string | undefined): TransactionOrder {
  if (raw === undefined || raw === '') return 'id';
  if (raw === 'effective') return 'effective';
  throw new ValidationError('order: must be "effective" (the default order is by id)');
}

/**
 * What a target's metadata revisions say about a point in time: the metadata of the newest revision dated at
 * or before it, or else the oldest revision (all are dated after it), with what it held before that change
 * when the revision kept it (revisions written before `before` was stored do not).
 */
export interface MetadataHistoryAt {
  atOrBefore?: Record<string, string>;
  earliestAfter?: { before?: Record<string, string> };
}

/**
 * Metadata at a point in time from its history. No revision at all: the metadata never changed, so it is the
 * current one. Every revision after the point: what the oldest one replaced — unknown for revisions written
 * before that was stored, shown as `{}` (what the reference shows when no revision is at or before it).
 */
export function metadataAt(
  current: Record<string, string>,
  history: MetadataHistoryAt,
): Record<string, string> {
  if (history.atOrBefore) return history.atOrBefore;
  if (!history.earliestAfter) return current;
  return history.earliestAfter.before ?? {};
}

/**
 * An account's metadata at a point in time. Before the account was written (its first move may be back-dated,
 * so it can be listed before then) it had none: the reference's first revision is dated at insertion.
 */
export function accountMetadataAt(
  account: { insertionDate: string; metadata: Record<string, string> },
  pit: string,
  history: MetadataHistoryAt,
): Record<string, string> {
  if (!atOrBefore(account.insertionDate, pit)) return {};
  return metadataAt(account.metadata, history);
}

/** Whether a target changed after a point in time: if not, its current metadata is its metadata then. */
export const changedAfter = (updatedAt: string, pit: string) => !atOrBefore(updatedAt, pit);

/** A transaction as it stood at a point in time: its metadata then, and reverted only by a revert written by then. */
export function transactionAt(
  tx: Transaction,
  pit: string,
  metadata: Record<string, string>,
): Transaction {
  const { revertedAt, ...rest } = tx;
  const reverted = revertedAt !== undefined && atOrBefore(revertedAt, pit);
  return { ...rest, metadata, reverted, ...(reverted ? { revertedAt } : {}) };
}

/** Whether a transaction is listed at a point in time: by its effective time, as the reference. */
export const effectiveBy = (tx: Transaction, pit: string) => atOrBefore(tx.timestamp, pit);

/**
 * Features a point-in-time read of volumes needs, as the reference: by insertion time (an account's `volumes`,
 * aggregated balances with `useInsertionDate`) the moves (MOVES_HISTORY); by effective time the effective
 * volumes (which here also need MOVES_HISTORY's late-move records).
 */
export function requireVolumesAt(clock: 'effective' | 'insertion', features: FeatureSet): void {
  if (clock === 'insertion') requireFeature(features, 'MOVES_HISTORY');
  else requireEffectiveVolumes(features);
}
