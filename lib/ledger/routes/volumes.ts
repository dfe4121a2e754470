import type { Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import { parseAccountFilter } from '../domain/account-filter.js';
import { requireFeature } from '../domain/features.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { VolumeReads, Window } from '../store/volume-reads.js';

/** GET /v2/<ledger>/volumes (API.md §3.3): volumes per account and asset, optionally over a time window. */
export function volumeRoutes(app: Hono<AppEnv>, { lookup, volumes }: { lookup: LedgerLookup; volumes: VolumeReads }): void {
  app.get('/v2/:ledger/volumes', async (c) => {
    const ledger = await lookup.resolve(c.req.param('ledger'));
    const query = readListQuery(c.req.query(), `ledger.volumes.${ledger.name}`, ['startTime', 'endTime', 'query', 'insertionDate', 'groupBy']);
    const params = query.cursor ? (query.cursor.f ?? {}) : c.req.query();
    if (booleanFlag(params.insertionDate, 'insertionDate')) throw new ValidationError('insertionDate: windows on insertion date are not supported (effective time only)');
    if (params.groupBy !== undefined) throw new ValidationError('groupBy: grouping by address segments is not supported');
    const window: Window = {};
    if (params.startTime) window.from = sortableInstant(parseInstant(params.startTime, 'startTime'));
    if (params.endTime) window.to = sortableInstant(parseInstant(params.endTime, 'endTime'));
    const windowed = window.from !== undefined || window.to !== undefined;
    if (windowed) requireFeature(ledger.features, 'MOVES_HISTORY');
    if (window.from && window.to && window.from >= window.to) throw new ValidationError('startTime: must be before endTime');
    const filter = parseAccountFilter(params.query, ledger.features);
    const recorded = Object.fromEntries(
      Object.entries({ startTime: params.startTime, endTime: params.endTime, query: params.query }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    const page = await volumes.list(ledger, query, filter, windowed ? window : undefined, recorded);
    return jsonResponse(c, { cursor: page });
  });
}
