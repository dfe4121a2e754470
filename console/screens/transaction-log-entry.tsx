import { apiList } from '../api.js';
import { Show, Time, useLoad } from '../components.js';
import { CHUNK_ENTRIES, findCreatingLog, type LogLike } from '../log-entry.js';
import { href } from '../router.js';

interface Log extends LogLike {
  date: string;
  hash: string;
  idempotencyKey: string;
}

/** The newest item's id of a list (newest first), or -1 when it is empty. */
async function newestId(path: string, signal: AbortSignal): Promise<bigint> {
  const page = await apiList<{ id: bigint }>(path, { pageSize: '1' }, undefined, signal);
  return page.data[0]?.id ?? -1n;
}

async function loadEntry(ledger: string, txId: bigint, signal: AbortSignal) {
  const base = `/api/ledger/v2/${encodeURIComponent(ledger)}`;
  // The transaction first: a commit between the two reads only widens the window searched.
  const newestTransactionId = await newestId(`${base}/transactions`, signal);
  const newestLogId = await newestId(`${base}/logs`, signal);
  const read = async (from: bigint, to: bigint) => {
    const query = JSON.stringify({
      $and: [{ $gte: { id: Number(from) } }, { $lte: { id: Number(to) } }],
    });
    const page = await apiList<Log>(
      `${base}/logs`,
      { pageSize: String(CHUNK_ENTRIES), query },
      undefined,
      signal,
    );
    return page.data;
  };
  return { entry: await findCreatingLog(txId, { newestTransactionId, newestLogId }, read) };
}

/** The log entry that created a transaction: its id (linking to the log), type, date, hash and idempotency key. */
export function TransactionLogEntry({ ledger, id }: { ledger: string; id: bigint }) {
  const [loaded] = useLoad((signal) => loadEntry(ledger, id, signal), [ledger, String(id)]);
  return (
    <Show loaded={loaded}>
      {({ entry }) =>
        entry ? (
          <dl class="facts" data-log-entry={String(entry.id)}>
            <div>
              <dt>Entry</dt>
              <dd>
                <a href={href(['ledgers', ledger, 'logs'])}>#{String(entry.id)}</a> {entry.type}
              </dd>
            </div>
            <div>
              <dt>Date</dt>
              <dd>
                <Time value={entry.date} />
              </dd>
            </div>
            <div>
              <dt>Hash</dt>
              <dd class="hash">{entry.hash || <span class="muted">not hashed</span>}</dd>
            </div>
            <div>
              <dt>Idempotency key</dt>
              <dd>{entry.idempotencyKey || <span class="muted">—</span>}</dd>
            </div>
          </dl>
        ) : (
          <p class="muted" data-log-entry="none">
            The log holds no entry that created this transaction.
          </p>
        )
      }
    </Show>
  );
}
