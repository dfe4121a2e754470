import { type LogEntry, logHash } from './logs.js';

export type ChainVerdict =
  | { ok: true; checked: number }
  | { ok: false; brokenAt: number; reason: string };

/** The first broken link of a log: where, why, and what the chain expected there against what was found. */
export interface ChainBreak {
  brokenAt: number;
  reason: string;
  expected: string;
  found: string;
}

/**
 * Follows a ledger's log entry by entry, in ascending id order (HASH_LOGS=SYNC, see `logHash`): ids run 1, 2, 3...
 * without a gap, and each entry's hash is recomputed from the previous entry's hash and the entry itself. Any edit
 * of an entry breaks its own hash; a deleted or inserted entry breaks the id sequence. It holds only the previous
 * hash, so a log of any length is walked in constant memory (`platform logs verify` streams pages through it).
 *
 * A ledger created with HASH_LOGS=DISABLED stores empty hashes: there is nothing to check, so it is reported as
 * not verifiable (at its first entry) rather than as verified.
 */
export class LogChainWalk {
  private previousHash = '';
  private count = 0;

  /** Entries checked and found chained so far. */
  get checked(): number {
    return this.count;
  }

  /** Checks the next entry: the break it makes, or undefined when it chains (then the walk moves past it). */
  next(entry: LogEntry): ChainBreak | undefined {
    const expectedId = this.count + 1;
    if (entry.id !== expectedId) {
      return {
        brokenAt: expectedId,
        reason: `expected log ${expectedId} here, found log ${entry.id} (missing or out of order)`,
        expected: `log ${expectedId}`,
        found: `log ${entry.id}`,
      };
    }
    if (entry.hash === '') {
      return {
        brokenAt: entry.id,
        reason:
          this.count === 0
            ? 'no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable'
            : 'no hash, although earlier entries are hashed',
        expected: 'a hash',
        found: 'none',
      };
    }
    const { hash, ...rest } = entry;
    const expected = logHash(this.previousHash, rest);
    if (hash !== expected) {
      return {
        brokenAt: entry.id,
        reason: `hash mismatch: stored ${hash}, recomputed ${expected}`,
        expected,
        found: hash,
      };
    }
    this.previousHash = hash;
    this.count++;
    return undefined;
  }
}

/** Checks a whole log held in memory (see `LogChainWalk`); stops at the first break. */
export function verifyChain(entries: readonly LogEntry[]): ChainVerdict {
  const walk = new LogChainWalk();
  for (const entry of entries) {
    const broken = walk.next(entry);
    if (broken) return { ok: false, brokenAt: broken.brokenAt, reason: broken.reason };
  }
  return { ok: true, checked: walk.checked };
}
