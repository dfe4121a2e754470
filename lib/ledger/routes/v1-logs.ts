import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { decodeCursor, encodeCursor, readListQuery } from '../../pagination/cursor.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { LogEntry, LogType } from '../domain/logs.js';
import { ledgerKeys } from '../store/keys.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { type LogReads, logListName } from '../store/log-reads.js';
import { v1LogPage } from './schemas.js';
import { resolveV1Ledger, v1Handler } from './v1-ledger.js';
import { canonicalParams } from './v1-query.js';

/**
 * v1 has two log types (the SDK's LogType is a closed enum of NEW_TRANSACTION and SET_METADATA): a revert is
 * listed as the new transaction it is, a metadata deletion as a metadata change. The data is v2's unchanged, so
 * nothing is lost: a revert's data also holds `revertedTransaction`, a deletion's holds `key` instead of `metadata`.
 */
const V1_TYPE: Record<LogType, 'NEW_TRANSACTION' | 'SET_METADATA'> = {
  NEW_TRANSACTION: 'NEW_TRANSACTION',
  REVERTED_TRANSACTION: 'NEW_TRANSACTION',
  SET_METADATA: 'SET_METADATA',
  DELETE_METADATA: 'SET_METADATA',
  // Pending transfers exist only in ledgers that opted in (PENDING_TRANSFERS), never created through v1: a hold's
  // own entries read as the metadata-like records they are (no money moves), and a post is a new transaction.
  CREATED_PENDING: 'SET_METADATA',
  VOIDED_PENDING: 'SET_METADATA',
};

export const v1LogView = (log: LogEntry) => ({
  id: log.id,
  type: V1_TYPE[log.type],
  data: log.data,
  date: log.date,
  hash: log.hash,
});

const FILTERS = ['after', 'startTime', 'endTime'];

/**
 * GET /<ledger>/logs (the SDK's listLogs): newest first; `after` (ids below it), `startTime` (inclusive) and
 * `endTime` (exclusive) on the log's date, combinable. The log is read by id: a page reads pageSize entries and
 * keeps those in the time range, so it may hold fewer while `hasMore` is true; cursors carry the range.
 */
export function v1LogRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { lookup: LedgerLookup; logs: LogReads },
): void {
  app.get(
    '/:ledger/logs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listLogs',
        summary: 'List logs (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          ...PAGE_PARAMETERS,
          query('after', 'Only logs with a lower id.'),
          query('startTime', 'From this date (RFC 3339).', DATE_TIME),
          query('endTime', 'Before this date (RFC 3339).', DATE_TIME),
        ],
        responses: { 200: { description: 'A page of v1 logs.', schema: v1LogPage } },
      },
    ),
    v1Handler(async (c) => {
      const { lookup, logs } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      const list = logListName(ledger.name);
      const params = canonicalParams(c.req.query());
      let query = readListQuery(params, list, FILTERS);
      const filters = query.cursor
        ? (query.cursor.f ?? {})
        : Object.fromEntries(FILTERS.filter((n) => params[n]).map((n) => [n, params[n]!]));
      const from =
        filters.startTime !== undefined
          ? sortableInstant(parseInstant(filters.startTime, 'startTime'))
          : undefined;
      const to =
        filters.endTime !== undefined
          ? sortableInstant(parseInstant(filters.endTime, 'endTime'))
          : undefined;
      if (!query.cursor && filters.after !== undefined) {
        if (!/^\d{1,15}$/.test(filters.after))
          throw new ValidationError('after: must be a log id (a non-negative integer)');
        query = {
          pageSize: query.pageSize,
          cursor: {
            l: list,
            p: query.pageSize,
            k: ledgerKeys.log(ledger, Number(filters.after)),
            d: 'n',
          },
        };
      }
      const page = await logs.list(ledger, query);
      const inRange = (log: LogEntry) => {
        const at = sortableInstant(parseInstant(log.date, 'date'));
        return (from === undefined || at >= from) && (to === undefined || at < to);
      };
      // The log's own cursors know the position only: the range travels with them.
      const carry = (raw: string | undefined) =>
        raw === undefined ? undefined : encodeCursor({ ...decodeCursor(raw, list), f: filters });
      const next = carry(page.next);
      const previous = carry(page.previous);
      return jsonResponse(c, {
        cursor: {
          pageSize: page.pageSize,
          hasMore: page.hasMore,
          ...(previous ? { previous } : {}),
          ...(next ? { next } : {}),
          data: page.data.filter(inRange).map(v1LogView),
        },
      });
    }),
  );
}
