import type { LogEntry } from '../../lib/ledger/domain/logs.js';
import type { PlatformClient } from './client.js';

/** A Log as the API sends it (ids as big integers from the exact JSON parser), as the hash saw it. */
export function logEntryFromApi(raw: Record<string, unknown>): LogEntry {
  return {
    id: Number(raw.id),
    type: raw.type as LogEntry['type'],
    data: raw.data as Record<string, unknown>,
    date: String(raw.date),
    idempotencyKey: String(raw.idempotencyKey ?? ''),
    hash: String(raw.hash ?? ''),
  };
}

interface LogPage {
  cursor: { data: Array<Record<string, unknown>> };
}

/** The id of the newest log entry (0 for an empty log): how far a walk goes, and its progress total. */
export async function newestLogId(client: PlatformClient, ledger: string): Promise<number> {
  const { cursor } = await client.json<LogPage>('GET', `/api/ledger/v2/${ledger}/logs`, {
    query: { pageSize: '1' },
  });
  return cursor.data[0] ? Number(cursor.data[0].id) : 0;
}

/**
 * A ledger's log up to `lastId`, oldest first, one page at a time (constant memory however long the log). The API
 * lists logs newest first; each request asks for one window of ids, `{"$gte": from} and {"$lt": from + pageSize}`,
 * which the log's key range serves directly (lib/ledger/domain/query/log-query.ts), and the page is reversed.
 * A window that comes back short means entries are missing: the walker sees the gap in the ids.
 */
export async function* logPagesOldestFirst(
  client: PlatformClient,
  ledger: string,
  lastId: number,
  pageSize: number,
): AsyncGenerator<LogEntry[]> {
  for (let from = 1; from <= lastId; from += pageSize) {
    const below = Math.min(from + pageSize, lastId + 1);
    const { cursor } = await client.json<LogPage>('GET', `/api/ledger/v2/${ledger}/logs`, {
      query: {
        pageSize: String(below - from),
        query: JSON.stringify({ $and: [{ $gte: { id: from } }, { $lt: { id: below } }] }),
      },
    });
    yield cursor.data.map(logEntryFromApi).reverse();
  }
}
