import type { Context, Hono } from 'hono';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { readListSort } from '../domain/list-sort.js';
import type { LogEntry } from '../domain/logs.js';
import { planLogQuery } from '../domain/query/log-query.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { type LogReads, logListName } from '../store/log-reads.js';
import { recordParams, requestLedger } from './request.js';
import { logPage } from './schemas.js';

export interface LogRoutesDeps {
  lookup: LedgerLookup;
  logs: LogReads;
}

/** The Log of docs/api.md §3.3, in the contract's field order. */
export const logView = (log: LogEntry) => ({
  id: log.id,
  type: log.type,
  data: log.data,
  date: log.date,
  hash: log.hash,
  idempotencyKey: log.idempotencyKey,
  ...(log.schemaVersion !== undefined ? { schemaVersion: log.schemaVersion } : {}),
});

/** The ledger's log (docs/api.md §3.3): newest first, with cursors; `npm run verify-logs` walks it. */
export function logRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LogRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/logs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListLogs',
        summary: 'List logs',
        description: 'Newest first; with HASH_LOGS=SYNC each hash chains the previous one.',
        tags: ['ledger: logs'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
          query('sort', '`id:desc` or `date:desc` (the one order logs page in).'),
        ],
        responses: { 200: { description: 'A page of logs.', schema: logPage } },
        head: {
          operationId: 'v2CountLogs',
          summary: 'Count logs',
          responses: {
            204: {
              description: 'The count, in the `Count` header.',
              headers: { Count: { description: 'Number of logs.', schema: { type: 'integer' } } },
            },
          },
        },
      },
    ),
    async (c) => {
      const { lookup, logs } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const query = readListQuery(c.req.query(), logListName(ledger.name), ['query', 'sort']);
      // A cursor carries the listing's query: with one, the request's own is not read.
      const params = query.cursor ? (query.cursor.f ?? {}) : c.req.query();
      // Newest first is the one order logs page in: `sort` may ask for it, and is refused otherwise.
      readListSort(params.sort, 'logs');
      const plan = planLogQuery(params.query);
      if (c.req.method === 'HEAD') {
        c.header('Count', String(await logs.count(ledger, plan)));
        return c.body(null, 204);
      }
      const page = await logs.list(ledger, query, plan, recordParams(params, ['query']));
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(logView) } });
    },
  );
}
