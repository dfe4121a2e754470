import { type Transaction, transactionView, type VolumesView } from '../domain/transaction.js';
import { unwrittenTransactionItems } from '../store/batch-settle.js';
import type { Head } from '../store/head.js';
import { type LedgerRef, ledgerKeys } from '../store/keys.js';
import type { LedgerTable } from '../store/ledger-table.js';
import type { StoredLogEntry } from '../store/log-pages.js';
import { encodeResult, type IntentResult } from './intent.js';

/** Results are kept long enough for any requester still waiting, and for a late duplicate message. */
const RESULT_TTL_SECONDS = 3600;

/** Result items (1 write unit each), polled by the requests that relayed them. */
export async function putResults(
  table: LedgerTable,
  ledger: LedgerRef,
  results: ReadonlyMap<string, IntentResult>,
  nowMs: number,
): Promise<void> {
  const expiresAt = Math.floor(nowMs / 1000) + RESULT_TTL_SECONDS;
  await table.putItems(
    [...results].map(([reqId, result]) => ({
      ...ledgerKeys.result(ledger, reqId),
      result: encodeResult(result),
      expiresAt,
    })),
    { ifAbsent: false },
  );
}

/** The answers of a batch's relayed requests, rebuilt from its log entries (each names its request). */
export function resultsOfEntries(entries: readonly StoredLogEntry[]): Map<string, IntentResult> {
  const results = new Map<string, IntentResult>();
  for (const { log, extras, req } of entries) {
    if (!req) continue;
    // A transaction's log data is its view without volumes: with the post-commit volumes, the answer.
    const data = log.data as { transaction?: Transaction };
    const post = extras.post as VolumesView | undefined;
    const result = data.transaction && post ? transactionView(data.transaction, { post }) : null;
    results.set(req, {
      status: 'committed',
      outcomes: [{ kind: 'committed', result, logId: log.id }],
    });
  }
  return results;
}

/**
 * Settles the batch HEAD names as possibly unsettled (a sequenced writer stopped between its commit and its
 * after-commit writes): its new transactions' items (unless present) and its results, rebuilt from its log page,
 * then HEAD told. Idempotent; safe beside the writer itself.
 */
export async function settleBatch(
  table: LedgerTable,
  ledger: LedgerRef,
  head: Head,
  nowMs: number,
): Promise<void> {
  const pending = head.pendingResults;
  if (!pending) return;
  const entries = await table.readLogRange(pending.firstLogId, pending.lastLogId);
  await table.putItems(await unwrittenTransactionItems(table, ledger, entries), { ifAbsent: true });
  await putResults(table, ledger, resultsOfEntries(entries), nowMs);
  await table.clearPending(head.version);
}
