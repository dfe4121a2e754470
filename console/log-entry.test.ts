import { describe, expect, it } from 'vitest';
import { findCreatingLog, type LogLike } from './log-entry.js';

/**
 * A log built from a pattern: `t` an entry creating the next transaction (ids from `firstTx`), `m` a metadata
 * entry. Reads count, so the bound on requests is checked too.
 */
function log(pattern: string, firstTx = 1n) {
  let tx = firstTx;
  const entries: LogLike[] = [...pattern].map((kind, i) =>
    kind === 't'
      ? { id: BigInt(i + 1), type: 'NEW_TRANSACTION', data: { transaction: { id: tx++ } } }
      : { id: BigInt(i + 1), type: 'SET_METADATA', data: {} },
  );
  const reads: Array<[bigint, bigint]> = [];
  const read = async (from: bigint, to: bigint) => {
    reads.push([from, to]);
    return entries.filter((e) => e.id >= from && e.id <= to).reverse();
  };
  const heads = { newestTransactionId: tx - 1n, newestLogId: BigInt(entries.length) };
  return { entries, reads, read, heads };
}

/** The log id holding transaction `txId`, found by the search. */
async function foundId(l: ReturnType<typeof log>, txId: bigint) {
  return (await findCreatingLog(txId, l.heads, l.read))?.id;
}

describe('the log entry of a transaction', () => {
  it('is found in one read when no metadata entries lie between', async () => {
    const l = log('ttttt');
    expect(await foundId(l, 3n)).toBe(3n);
    expect(l.reads).toEqual([[3n, 3n]]);
  });

  it('is found for every transaction of a log with metadata runs longer than a chunk', async () => {
    // 1,000 transactions; after every 97th, a run of 250 metadata entries (bigger than one read of 100).
    const pattern = Array.from({ length: 1000 }, (_, i) =>
      i % 97 === 96 ? `t${'m'.repeat(250)}` : 't',
    ).join('');
    const l = log(pattern);
    const expected = new Map(
      l.entries
        .filter((e) => e.type !== 'SET_METADATA')
        .map((e) => [(e.data.transaction as { id: bigint }).id, e.id]),
    );
    for (const [tx, id] of expected) {
      l.reads.length = 0;
      expect(await foundId(l, tx)).toBe(id);
      expect(l.reads.length).toBeLessThanOrEqual(32);
    }
  });

  it("a revert's reverse transaction is found through its REVERTED_TRANSACTION entry", async () => {
    const l = log('tt');
    l.entries.push({
      id: 3n,
      type: 'REVERTED_TRANSACTION',
      data: { transaction: { id: 3n }, revertedTransactionID: 2n },
    });
    l.heads.newestTransactionId = 3n;
    l.heads.newestLogId = 3n;
    expect(await foundId(l, 3n)).toBe(3n);
  });

  it('answers nothing for a transaction the log does not hold', async () => {
    const l = log('tmmtt', 1n);
    expect(await foundId(l, 9n)).toBeUndefined();
  });
});
