import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import { LedgerStats } from './stats.js';
import { readTransactions } from './transaction-lookup.js';
import type { StoredTransaction } from './transaction-pages.js';

/** Ids read per round: one round of reads narrows the range sixteenfold. */
const PROBES = 15;

/**
 * The last transaction id inserted at or before `at` (strictly before when not `inclusive`), 0 when none: what
 * the ledger held then, by insertion time. Ids are given in commit order and `insertedAt` grows with them (both
 * come from the writer that commits through HEAD), so the ids inserted by then are exactly 1..cut, and the cut
 * is found by searching ids: each round reads 15 evenly spaced transactions (read together), about
 * log16(transactions) rounds — 5 for a million. Writers' clocks agree to milliseconds (docs/decisions/ledger-write-path.md,
 * "Clock skew"); a cut within that of a write may fall on either side of it.
 */
export async function insertionCut(
  doc: DynamoDBDocumentClient,
  tableFor: (bucket: string) => string,
  ledger: LedgerRecord,
  at: string,
  inclusive = true,
): Promise<number> {
  const { transactions: last } = await new LedgerStats(doc, tableFor).read(ledger);
  const table = tableFor(ledger.bucket);
  const inserted = (stored: StoredTransaction | undefined) => {
    // Ids are gapless up to HEAD's lastTxId; an item not there yet can only be among the newest: not by then.
    if (!stored) return false;
    const when = sortableInstant(parseInstant(stored.tx.insertedAt, 'insertedAt'));
    return inclusive ? when <= at : when < at;
  };
  // Invariant: every id <= lo was inserted by `at` (0: none), every id >= hi after it (last + 1: none).
  let lo = 0;
  let hi = last + 1;
  while (hi - lo > 1) {
    const probes = spread(lo, hi);
    const found = await readTransactions(doc, table, ledger, probes);
    const firstAfter = probes.findIndex((id) => !inserted(found.get(id)));
    if (firstAfter === -1) lo = probes[probes.length - 1]!;
    else {
      hi = probes[firstAfter]!;
      if (firstAfter > 0) lo = probes[firstAfter - 1]!;
    }
  }
  return lo;
}

/** Up to PROBES ids strictly between lo and hi, evenly spaced, the last one always hi - 1 (a recent cut ends at once). */
function spread(lo: number, hi: number): number[] {
  const inside = hi - lo - 1;
  if (inside <= PROBES) return Array.from({ length: inside }, (_, i) => lo + 1 + i);
  const ids = Array.from(
    { length: PROBES - 1 },
    (_, i) => lo + Math.round(((i + 1) * (hi - lo)) / PROBES),
  );
  return [...new Set([...ids, hi - 1])].sort((a, b) => a - b);
}
