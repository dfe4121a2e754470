/**
 * Finding the log entry that created a transaction, with the list filters the API already has (logs filter on
 * `id`, not on the transaction they hold).
 *
 * Every entry that creates a transaction (NEW_TRANSACTION, or REVERTED_TRANSACTION for the reverse one) creates
 * exactly one, in id order, and other entries (metadata) create none. So the gap between a transaction's log id
 * and its own id never shrinks as ids grow: the entry of transaction T lies between id T and
 * T + (newest log id − newest transaction id). That window is searched by halving: a chunk of ids whose
 * transactions are all after T lies above the entry, all before T below it.
 */

export interface LogLike {
  id: bigint;
  type: string;
  data: Record<string, unknown>;
}

/** Newest first, ids `from`..`to` inclusive, at most `CHUNK_ENTRIES` of them. */
export type ReadLogRange<L> = (from: bigint, to: bigint) => Promise<L[]>;

export interface LedgerHeads {
  /** The newest transaction's id, read before `newestLogId` (a commit between the two only widens the window). */
  newestTransactionId: bigint;
  newestLogId: bigint;
}

/** Entries one request reads: the API's page size. */
export const CHUNK_ENTRIES = 100n;
/** Requests one search makes at most: enough to halve a window of 2^30 entries down to one chunk. */
const MAX_READS = 32;

/** The id of the transaction an entry created, if it created one. */
export function createdTransactionId(log: LogLike): bigint | undefined {
  if (log.type !== 'NEW_TRANSACTION' && log.type !== 'REVERTED_TRANSACTION') return undefined;
  const id = (log.data.transaction as { id?: unknown } | undefined)?.id;
  return typeof id === 'bigint' ? id : typeof id === 'number' ? BigInt(id) : undefined;
}

/** The entry that created transaction `txId`, or `undefined` when the log does not hold it (an imported ledger). */
export async function findCreatingLog<L extends LogLike>(
  txId: bigint,
  heads: LedgerHeads,
  read: ReadLogRange<L>,
): Promise<L | undefined> {
  let low = txId;
  let high = txId + heads.newestLogId - heads.newestTransactionId;
  // After a chunk of metadata entries only, in the middle: the chunks below it are read next, down to the first
  // that creates transactions, which says on which side of the run the entry lies. `emptyTop` is the run's top.
  let ceiling: bigint | undefined;
  let emptyTop: bigint | undefined;
  for (let reads = 0; reads < MAX_READS && low <= high; reads++) {
    const [from, to] = chunk(low, high, ceiling);
    const entries = await read(from, to);
    const found = entries.find((log) => createdTransactionId(log) === txId);
    if (found) return found;
    const created = entries.flatMap((log) => {
      const id = createdTransactionId(log);
      return id === undefined ? [] : [{ log: log.id, tx: id }];
    });
    const later = created.filter((c) => c.tx > txId).map((c) => c.log);
    const earlier = created.filter((c) => c.tx < txId).map((c) => c.log);
    if (later.length > 0 && earlier.length > 0) return undefined;
    if (later.length > 0) high = ordered(later)[0]! - 1n;
    else if (earlier.length > 0 || from === low)
      low = (emptyTop ?? (earlier.length > 0 ? ordered(earlier).at(-1)! : to)) + 1n;
    else if (to === high) high = from - 1n;
    else {
      emptyTop ??= to;
      ceiling = from - 1n;
      continue;
    }
    ceiling = undefined;
    emptyTop = undefined;
  }
  return undefined;
}

/** The ids to read next: below `ceiling` when walking down a run, else the middle of the window. */
function chunk(low: bigint, high: bigint, ceiling: bigint | undefined): [bigint, bigint] {
  if (ceiling !== undefined)
    return [ceiling - CHUNK_ENTRIES + 1n > low ? ceiling - CHUNK_ENTRIES + 1n : low, ceiling];
  const from = high - low < CHUNK_ENTRIES ? low : (low + high) / 2n - CHUNK_ENTRIES / 2n;
  return [from, from + CHUNK_ENTRIES - 1n < high ? from + CHUNK_ENTRIES - 1n : high];
}

/** Ids in increasing order (bigints: `Math.min` does not take them). */
const ordered = (ids: bigint[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
