import type { CommitRetry } from './commit.js';
import type { CommitWrite } from './decide-batch.js';
import type { Head } from './head.js';
import type { ItemKey } from './keys.js';
import type { StoredLogEntry } from './log-pages.js';

type Item = Record<string, unknown>;

/**
 * One ledger's table as the write engine sees it: the port every read and write of the group commit goes
 * through. `dynamo-ledger-table.ts` is DynamoDB's; `memory-ledger-table.ts` keeps the same items in memory with the
 * same conditions, for the protocol's unit tests and simulations. Items are DynamoDB-shaped (the store's layout);
 * what they mean is the store's and the domain's, never the port's.
 */
export interface LedgerTable {
  /** Consistent reads of items by key, in the keys' order (undefined: absent). */
  getItems(keys: readonly ItemKey[]): Promise<Array<Item | undefined>>;
  /**
   * For each key, the key of the item with the greatest sort key at or below it in its partition (consistent;
   * undefined when there is none): how a transaction's page is found (transaction-pages.ts).
   */
  floorKeys(keys: readonly ItemKey[]): Promise<Array<ItemKey | undefined>>;
  /**
   * One snapshot of up to 100 items, all as of one instant (a direct write decides over it), in the keys' order;
   * `conflict` when a transaction was writing one of them (read again after a pause).
   */
  readSnapshot(keys: readonly ItemKey[]): Promise<Array<Item | undefined> | 'conflict'>;
  /**
   * HEAD read by taking the writer's lease on it and moving its version (so a decision made before fails its
   * commit); throws when the ledger has no HEAD.
   */
  takeHead(owner: string, leaseUntilMs: number): Promise<Head>;
  /**
   * The one atomic write of a commit: HEAD moved from `initial` to `next` (conditional on `initial`'s version)
   * and the writes. Undefined once committed, or why it must be decided again; a decision's own failed condition
   * (a reference taken) throws its error.
   */
  commit(
    initial: Head,
    next: Head,
    writes: readonly CommitWrite[],
    options?: { clientRequestToken?: string },
  ): Promise<CommitRetry | undefined>;
  /** Items put after a commit: unconditionally, or each only if absent (a late repair never undoes a change). */
  putItems(items: readonly Item[], options: { ifAbsent: boolean }): Promise<void>;
  /** HEAD told that the batch it names is settled, without a new version; nothing once HEAD moved past it. */
  clearPending(version: number | undefined): Promise<void>;
  /** The log entries with ids from `first` to `last`, in order. */
  readLogRange(first: number, last: number): Promise<StoredLogEntry[]>;
}
