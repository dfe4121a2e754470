import { useEffect, useState } from 'preact/hooks';
import { apiList } from '../api.js';
import { type ChainVerdict, chainEntry, DescendingChainCheck } from '../chain.js';
import { ErrorBox, Time } from '../components.js';
import type { Route } from '../router.js';
import { LedgerList } from './ledger-list.js';

interface Log {
  id: bigint;
  type: string;
  data: Record<string, unknown>;
  date: string;
  hash: string;
  idempotencyKey: string;
}

/** Entries per request while walking the chain: small, since one entry can carry 100 postings. */
const CHAIN_PAGE_SIZE = '100';

type Verification =
  | { state: 'walking'; checked: number }
  | { state: 'done'; verdict: ChainVerdict }
  | { state: 'error'; message: string };

/** The ledger's log, a page at a time, and its whole hash chain recomputed here in the browser. */
export function Logs({ ledger, route }: { ledger: string; route: Route }) {
  const path = `/api/ledger/v2/${encodeURIComponent(ledger)}/logs`;
  const verification = useChainVerification(path);
  const brokenAt =
    verification.state === 'done' && !verification.verdict.ok
      ? verification.verdict.brokenAt
      : undefined;
  return (
    <LedgerList<Log>
      ledger={ledger}
      route={route}
      tab="logs"
      empty="No log entries in this ledger yet."
      above={<ChainStatus verification={verification} />}
    >
      {(rows) => (
        <table>
          <thead>
            <tr>
              <th class="number">Id</th>
              <th>Type</th>
              <th>What</th>
              <th>Date</th>
              <th>Hash</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((log) => (
              <tr
                key={String(log.id)}
                data-log={String(log.id)}
                class={Number(log.id) === brokenAt ? 'broken' : undefined}
              >
                <td class="number">{String(log.id)}</td>
                <td>
                  <code>{log.type}</code>
                </td>
                <td>{summary(log)}</td>
                <td>
                  <Time value={log.date} />
                </td>
                <td class="hash" title={log.hash}>
                  {log.hash ? `${log.hash.slice(0, 12)}…` : <span class="muted">none</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LedgerList>
  );
}

function ChainStatus({ verification }: { verification: Verification }) {
  if (verification.state === 'error')
    return <ErrorBox message={`chain not verified: ${verification.message}`} />;
  if (verification.state === 'walking')
    return (
      <p class="chain walking" data-chain="walking">
        Verifying the hash chain… {verification.checked} entries read
      </p>
    );
  const { verdict } = verification;
  if (verdict.ok)
    return (
      <p class="chain ok" data-chain="ok">
        ✓ Chain verified: {verdict.checked} {verdict.checked === 1 ? 'entry' : 'entries'}, every
        hash recomputed in this browser
      </p>
    );
  return (
    <p class="chain broken" data-chain="broken" role="alert">
      ✗ Chain broken at log {verdict.brokenAt}: {verdict.reason}
    </p>
  );
}

/** Walks the whole log, newest first, page by page, feeding each entry to the chain check. */
function useChainVerification(path: string): Verification {
  const [verification, setVerification] = useState<Verification>({
    state: 'walking',
    checked: 0,
  });
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    setVerification({ state: 'walking', checked: 0 });
    (async () => {
      const check = new DescendingChainCheck();
      let cursor: string | undefined;
      do {
        const page = await apiList<Record<string, unknown>>(
          path,
          { pageSize: CHAIN_PAGE_SIZE },
          cursor,
          signal,
        );
        for (const raw of page.data) await check.add(chainEntry(raw));
        if (!signal.aborted) setVerification({ state: 'walking', checked: check.checked });
        cursor = page.hasMore ? page.next : undefined;
      } while (cursor && !signal.aborted);
      return check.finish();
    })().then(
      (verdict) => signal.aborted || setVerification({ state: 'done', verdict }),
      (err: unknown) =>
        signal.aborted ||
        setVerification({
          state: 'error',
          message: !globalThis.crypto?.subtle
            ? 'this page is not served over HTTPS (or localhost), so the browser offers no SHA-256'
            : err instanceof Error
              ? err.message
              : String(err),
        }),
    );
    return () => controller.abort();
  }, [path]);
  return verification;
}

/** One line on what a log entry did. */
function summary(log: Log): string {
  const data = log.data as {
    transaction?: { id?: unknown; postings?: unknown[] };
    targetType?: string;
    targetId?: unknown;
    metadata?: Record<string, unknown>;
    key?: string;
    revertedTransaction?: { id?: unknown };
  };
  switch (log.type) {
    case 'NEW_TRANSACTION': {
      const postings = data.transaction?.postings?.length ?? 0;
      return `transaction ${String(data.transaction?.id)} (${postings} ${postings === 1 ? 'posting' : 'postings'})`;
    }
    case 'REVERTED_TRANSACTION':
      return `transaction ${String(data.revertedTransaction?.id)} reverted by ${String(data.transaction?.id)}`;
    case 'SET_METADATA':
      return `metadata on ${String(data.targetType).toLowerCase()} ${String(data.targetId)}: ${Object.keys(data.metadata ?? {}).join(', ')}`;
    case 'DELETE_METADATA':
      return `metadata "${data.key}" deleted from ${String(data.targetType).toLowerCase()} ${String(data.targetId)}`;
    default:
      return '';
  }
}
