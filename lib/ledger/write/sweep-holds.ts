import { PendingResolvedError } from '../../errors/index.js';
import { instantFromMs, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import { isEnabled } from '../domain/features.js';
import type { PendingTransfer } from '../domain/pending.js';
import type { LedgerCommands } from './ledger-commands.js';

/** Due holds one sweep of a ledger releases, at most (the next sweep takes the rest). */
export const SWEEP_LIMIT = 100;

export interface SweepParts {
  commands: Pick<LedgerCommands, 'execute'>;
  /** The ledger's unresolved holds due at `sortableNow` (the due index, store/pending-reads.ts). */
  due(ledger: LedgerRecord, sortableNow: string, limit: number): Promise<PendingTransfer[]>;
  now(): number;
}

/**
 * Releases a ledger's expired holds (reason EXPIRED): each is a write like any other — group-committed, logged,
 * hashed, evented — decided by the same sequencer as the posts, so a hold posted or voided since the index was read
 * is refused (PENDING_RESOLVED) and written nothing, never raced. A late sweep only delays a release: a post at or
 * after a hold's expiry is refused whatever the sweeper did. Answers the ids it released.
 */
export async function sweepExpiredHolds(
  parts: SweepParts,
  ledger: LedgerRecord,
  limit = SWEEP_LIMIT,
): Promise<number[]> {
  if (!isEnabled(ledger.features, 'PENDING_TRANSFERS')) return [];
  const due = await parts.due(ledger, sortableInstant(instantFromMs(parts.now())), limit);
  const released: number[] = [];
  for (const hold of due) {
    try {
      await parts.commands.execute(ledger, {
        kind: 'void-pending',
        hold: {
          id: hold.id,
          postings: hold.postings.map(({ source, destination, amount, asset }) => ({
            source,
            destination,
            amount,
            asset,
          })),
        },
        reason: 'EXPIRED',
        options: { dryRun: false },
      });
      released.push(hold.id);
    } catch (err) {
      if (!(err instanceof PendingResolvedError)) throw err;
    }
  }
  return released;
}
