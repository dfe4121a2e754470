import { describe, expect, it } from 'vitest';
import { verifyChain } from './log-chain.js';
import { type LogEntry, logHash } from './logs.js';

/** A correctly chained log of `n` entries, as the writer would produce it. */
function chain(n: number): LogEntry[] {
  const entries: LogEntry[] = [];
  let previous = '';
  for (let id = 1; id <= n; id++) {
    const entry = {
      id,
      type: 'NEW_TRANSACTION' as const,
      data: {
        transaction: {
          id,
          postings: [
            {
              source: 'world',
              destination: `u:${id}`,
              amount: 10n ** 37n + BigInt(id),
              asset: 'USD/2',
            },
          ],
        },
      },
      date: `2026-01-02T03:04:0${id % 10}Z`,
      idempotencyKey: id === 2 ? 'ik-2' : '',
    };
    previous = logHash(previous, entry);
    entries.push({ ...entry, hash: previous });
  }
  return entries;
}

describe('verifyChain', () => {
  it('verifies a correct chain, and an empty log', () => {
    expect(verifyChain(chain(4))).toEqual({ ok: true, checked: 4 });
    expect(verifyChain([])).toEqual({ ok: true, checked: 0 });
  });

  it('finds an edited entry at that entry', () => {
    const entries = chain(4);
    const data = structuredClone(entries[2]!.data) as {
      transaction: { postings: Array<{ amount: bigint }> };
    };
    data.transaction.postings[0]!.amount += 1n;
    entries[2] = { ...entries[2]!, data };
    const { hash: stored, ...edited } = entries[2]!;
    expect(verifyChain(entries)).toEqual({
      ok: false,
      brokenAt: 3,
      reason: `hash mismatch: stored ${stored}, recomputed ${logHash(entries[1]!.hash, edited)}`,
    });
  });

  it('finds an edited date, type or idempotency key, and a replaced hash', () => {
    for (const change of [
      { date: '2027-01-01T00:00:00Z' },
      { type: 'SET_METADATA' as const },
      { idempotencyKey: 'other' },
      { hash: chain(4)[0]!.hash },
    ]) {
      const entries = chain(4);
      entries[1] = { ...entries[1]!, ...change };
      expect(verifyChain(entries), JSON.stringify(change)).toMatchObject({
        ok: false,
        brokenAt: 2,
      });
    }
  });

  it('finds a re-hashed entry at the next one: its successor chains from the old hash', () => {
    const entries = chain(4);
    const { hash: _old, ...rest } = entries[1]!;
    const edited = { ...rest, date: '2027-01-01T00:00:00Z' };
    entries[1] = { ...edited, hash: logHash(entries[0]!.hash, edited) };
    expect(verifyChain(entries)).toMatchObject({ ok: false, brokenAt: 3 });
  });

  it('finds missing, duplicated and out-of-order entries by their ids', () => {
    const entries = chain(4);
    expect(verifyChain([entries[0]!, entries[2]!, entries[3]!])).toEqual({
      ok: false,
      brokenAt: 2,
      reason: 'expected log 2 here, found log 3 (missing or out of order)',
    });
    expect(verifyChain([entries[0]!, entries[0]!])).toMatchObject({ ok: false, brokenAt: 2 });
    expect(verifyChain([...entries].reverse())).toEqual({
      ok: false,
      brokenAt: 1,
      reason: 'expected log 1 here, found log 4 (missing or out of order)',
    });
    expect(verifyChain(entries.slice(1))).toMatchObject({ ok: false, brokenAt: 1 });
  });

  it('reports a log without hashes (HASH_LOGS DISABLED) as not verifiable, and a hash dropped mid-chain', () => {
    const plain = chain(3).map((e) => ({ ...e, hash: '' }));
    expect(verifyChain(plain)).toEqual({
      ok: false,
      brokenAt: 1,
      reason:
        'no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable',
    });
    const entries = chain(3);
    entries[2] = { ...entries[2]!, hash: '' };
    expect(verifyChain(entries)).toEqual({
      ok: false,
      brokenAt: 3,
      reason: 'no hash, although earlier entries are hashed',
    });
  });
});
