import type { HeadState } from '../domain/change.js';

/** The sequencer item's state as read at the start of a write. */
export interface Head extends HeadState {
  /**
   * Bumped by every HEAD write, and what every write is conditional on: a mapping change moves HEAD without a
   * log entry, so `lastLogId` alone no longer tells whether HEAD moved. Undefined on HEAD items written
   * before versions existed.
   */
  version?: number;
  /** The HEAD version at which the ledger's mapping was last replaced; undefined: the ledger has no mapping. */
  mappingVersion?: number;
  /**
   * A sequenced writer's lease (group commit): while `leaseUntil` (epoch ms) is ahead, requests relay their writes
   * to it instead of committing directly. Liveness only: every commit is still conditional on `version`.
   */
  leaseOwner?: string;
  leaseUntil?: number;
  /**
   * The log ids of the last batch a sequenced writer committed, whose results may not all be written (it may have
   * stopped right after the commit): a writer that starts, or reloads after a failed commit, writes them again
   * from the log items before deciding anything, so no request of that batch is ever decided twice.
   */
  pendingResults?: { firstLogId: number; lastLogId: number };
  /**
   * An atomic bulk too large for one DynamoDB transaction, committed and not yet fully applied (staged-bulk.ts):
   * its log is written, its other items are applied part by part. Nothing decides or reads state while it is set.
   */
  staged?: StagedBulk;
  /** How many staged bulks this ledger ever started: a reader that sees it change knows one ran beside it. */
  stagedBulks?: number;
  /**
   * The last direct commit: when (epoch ms) and by which container. A container whose snapshot shows another's
   * direct commit moments old relays instead of racing it (isHerd): a cold ledger hit by many containers at once
   * would otherwise see each of them try a commit that the others' fail.
   */
  directAtMs?: number;
  directBy?: string;
}

/** A staged bulk as HEAD names it: its first log id (its plan's key), its parts, and the next part to apply. */
export interface StagedBulk {
  firstLogId: number;
  parts: number;
  next: number;
}

export function headFromItem(item: Record<string, unknown>): Head {
  return {
    lastTxId: Number(item.lastTxId),
    lastLogId: Number(item.lastLogId),
    lastHash: String(item.lastHash ?? ''),
    accounts: Number(item.accounts ?? 0),
    ...(item.version !== undefined ? { version: Number(item.version) } : {}),
    ...(item.mappingVersion !== undefined ? { mappingVersion: Number(item.mappingVersion) } : {}),
    ...(typeof item.leaseOwner === 'string'
      ? { leaseOwner: item.leaseOwner, leaseUntil: Number(item.leaseUntil ?? 0) }
      : {}),
    ...(item.pendingResults
      ? {
          pendingResults: {
            firstLogId: Number((item.pendingResults as Record<string, unknown>).firstLogId),
            lastLogId: Number((item.pendingResults as Record<string, unknown>).lastLogId),
          },
        }
      : {}),
    ...(item.staged ? { staged: stagedOf(item.staged as Record<string, unknown>) } : {}),
    ...(item.stagedBulks !== undefined ? { stagedBulks: Number(item.stagedBulks) } : {}),
    ...(typeof item.directBy === 'string'
      ? { directBy: item.directBy, directAtMs: Number(item.directAtMs ?? 0) }
      : {}),
  };
}

const stagedOf = (item: Record<string, unknown>): StagedBulk => ({
  firstLogId: Number(item.firstLogId),
  parts: Number(item.parts),
  next: Number(item.next),
});

/** How recent another container's direct commit must be for a write to relay rather than race it. */
export const HERD_WINDOW_MS = 50;

/** Whether another container committed directly within HERD_WINDOW_MS: the ledger is busy, relay. */
export function isHerd(head: Head, owner: string, nowMs: number): boolean {
  return (
    head.directBy !== undefined &&
    head.directBy !== owner &&
    nowMs - (head.directAtMs ?? 0) < HERD_WINDOW_MS
  );
}

/** Whether a sequenced writer leads the ledger: its lease is live. */
export function isLed(head: Head, nowMs: number): boolean {
  return head.leaseUntil !== undefined && head.leaseUntil > nowMs;
}
