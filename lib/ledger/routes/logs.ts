import type { Hono } from 'hono';
import { jsonResponse } from '../../http/json-response.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import type { LogEntry } from '../domain/logs.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { logListName, type LogReads } from '../store/log-reads.js';

export interface LogRoutesDeps {
  lookup: LedgerLookup;
  logs: LogReads;
}

/** The Log of API.md §3.3, in the contract's field order. */
export const logView = (log: LogEntry) => ({ id: log.id, type: log.type, data: log.data, date: log.date, hash: log.hash, idempotencyKey: log.idempotencyKey });

/** The ledger's log (API.md §3.3): newest first, with cursors; `npm run verify-logs` walks it. */
export function logRoutes(app: Hono<AppEnv>, { lookup, logs }: LogRoutesDeps): void {
  app.get('/v2/:ledger/logs', async (c) => {
    const ledger = await lookup.resolve(c.req.param('ledger'));
    const page = await logs.list(ledger, readListQuery(c.req.query(), logListName(ledger.name)));
    return jsonResponse(c, { cursor: { ...page, data: page.data.map(logView) } });
  });
}
