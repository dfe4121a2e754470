/**
 * The console's in-browser chain check (console/chain.ts: WebCrypto, newest first) against the platform's own
 * (`logHash`, `verifyChain`: node:crypto, oldest first). Node has WebCrypto, so the browser code runs here as is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainEntry, DescendingChainCheck, logHash as webLogHash } from '../../console/chain.js';
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { verifyChain } from '../../lib/ledger/domain/log-chain.js';
import { type LogEntry, logHash } from '../../lib/ledger/domain/logs.js';

/** A correctly chained log, with the amounts, ids and strings that could trip a second implementation. */
function chain(amounts: bigint[], notes: string[]): LogEntry[] {
  const entries: LogEntry[] = [];
  let previous = '';
  amounts.forEach((amount, i) => {
    const id = i + 1;
    const entry = {
      id,
      type: (id % 3 === 0 ? 'SET_METADATA' : 'NEW_TRANSACTION') as LogEntry['type'],
      data:
        id % 3 === 0
          ? { targetType: 'ACCOUNT', targetId: `users:${id}`, metadata: { note: notes[i] ?? '' } }
          : {
              transaction: {
                id,
                postings: [{ source: 'world', destination: `u:${id}`, amount, asset: 'USD/2' }],
                metadata: { note: notes[i] ?? '', b: 'x', a: 'y' },
                reverted: false,
              },
            },
      date: `2026-11-22T10:04:05.${String(id).padStart(6, '0')}Z`,
      idempotencyKey: id % 2 === 0 ? `ik-${id}` : '',
    };
    previous = logHash(previous, entry);
    entries.push({ ...entry, hash: previous });
  });
  return entries;
}

/** What the browser has: the API's JSON text, parsed losslessly (ids and amounts as bigint). */
const overTheWire = (entries: LogEntry[]) =>
  (parseJson(stringifyJson(entries)) as Array<Record<string, unknown>>).map(chainEntry);

/** The console's verdict: the log fed newest first, as the API lists it. */
async function consoleVerdict(entries: LogEntry[]) {
  const check = new DescendingChainCheck();
  for (const entry of overTheWire(entries).reverse()) await check.add(entry);
  const { checked: _checked, ...verdict } = await check.finish();
  return verdict;
}

const amounts = fc.array(fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }), {
  minLength: 1,
  maxLength: 12,
});
const notes = fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 12 });

describe('console chain check', () => {
  it('hashes an entry exactly as the platform does, through the wire and back', async () => {
    await fc.assert(
      fc.asyncProperty(amounts, notes, async (a, n) => {
        const entries = chain(a, n);
        const received = overTheWire(entries);
        let previous = '';
        for (const [i, entry] of received.entries()) {
          expect(await webLogHash(previous, entry)).toBe(entries[i]!.hash);
          previous = entry.hash;
        }
      }),
      { numRuns: 50 },
    );
  });

  it('gives the verdict verifyChain gives, whatever was edited, removed or blanked', async () => {
    const mutation = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('amount' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('hash' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('blank' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('date' as const), at: fc.nat() }),
      fc.constant({ kind: 'unhashed' as const }),
    );
    await fc.assert(
      fc.asyncProperty(amounts, notes, fc.array(mutation, { maxLength: 3 }), async (a, n, ms) => {
        let entries = chain(a, n);
        for (const m of ms) {
          if (m.kind === 'none' || entries.length === 0) continue;
          if (m.kind === 'unhashed') {
            entries = entries.map((e) => ({ ...e, hash: '' }));
            continue;
          }
          const at = m.at % entries.length;
          const entry = structuredClone(entries[at]!);
          if (m.kind === 'remove') {
            entries = entries.filter((_, i) => i !== at);
            continue;
          }
          if (m.kind === 'amount') entry.data = { ...entry.data, edited: 1n };
          if (m.kind === 'hash') entry.hash = `${entry.hash.slice(1)}A`;
          if (m.kind === 'blank') entry.hash = '';
          if (m.kind === 'date') entry.date = '2027-01-01T00:00:00Z';
          entries = entries.with(at, entry);
        }
        const { checked: _checked, ...platformVerdict } = {
          checked: undefined,
          ...verifyChain(entries),
        };
        expect(await consoleVerdict(entries)).toEqual(platformVerdict);
      }),
      { numRuns: 300 },
    );
  });

  it('reports the exact reasons of a gap, an edit and a ledger without hashes', async () => {
    const entries = chain([1n, 2n, 3n, 4n], []);
    expect(await consoleVerdict(entries)).toEqual({ ok: true });
    expect(await consoleVerdict([])).toEqual({ ok: true });
    expect(await consoleVerdict(entries.filter((e) => e.id !== 3))).toEqual({
      ok: false,
      brokenAt: 3,
      reason: 'expected log 3 here, found log 4 (missing or out of order)',
    });
    const edited = entries.with(1, { ...entries[1]!, idempotencyKey: 'other' });
    const { hash: _stored, ...rest } = edited[1]!;
    expect(await consoleVerdict(edited)).toEqual({
      ok: false,
      brokenAt: 2,
      reason: `hash mismatch: stored ${entries[1]!.hash}, recomputed ${logHash(entries[0]!.hash, rest)}`,
    });
    expect(await consoleVerdict(entries.map((e) => ({ ...e, hash: '' })))).toEqual({
      ok: false,
      brokenAt: 1,
      reason:
        'no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable',
    });
  });

  it('counts every entry it read', async () => {
    const check = new DescendingChainCheck();
    for (const entry of overTheWire(chain([5n, 6n, 7n], [])).reverse()) await check.add(entry);
    expect(await check.finish()).toEqual({ ok: true, checked: 3 });
  });
});
