import { type LogEntry, logHash } from './logs.js';

export type ChainVerdict =
  | { ok: true; checked: number }
  | { ok: false; brokenAt: number; reason: string };

/**
 * Checks a ledger's whole log, in ascending id order (HASH_LOGS=SYNC, see `logHash`): ids run 1, 2, 3...
 * without a gap, and each entry's hash is recomputed from the previous entry's hash and the entry itself.
 * Any edit of an entry breaks its own hash; a deleted or inserted entry breaks the id sequence. Stops at
 * the first break: everything after it chains from a value that is already wrong.
 *
 * A ledger created with HASH_LOGS=DISABLED stores empty hashes: there is nothing to check, so it is reported
 * as not verifiable (at its first entry) rather than as verified.
 */
export function verifyChain(entries: readonly LogEntry[]): ChainVerdict {
  let previousHash = '';
  for (const [index, entry] of entries.entries()) {
    const expectedId = index + 1;
    if (entry.id !== expectedId) {
      return {
        ok: false,
        brokenAt: expectedId,
        reason: `expected log ${expectedId} here, found log ${entry.id} (missing or out of order)`,
      };
    }
    if (entry.hash === '') {
      return {
        ok: false,
        brokenAt: entry.id,
        reason:
          index === 0
            ? 'no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable'
            : 'no hash, although earlier entries are hashed',
      };
    }
    const { hash, ...rest } = entry;
    const expected = logHash(previousHash, rest);
    if (hash !== expected) {
      return {
        ok: false,
        brokenAt: entry.id,
        reason: `hash mismatch: stored ${hash}, recomputed ${expected}`,
      };
    }
    previousHash = hash;
  }
  return { ok: true, checked: entries.length };
}
