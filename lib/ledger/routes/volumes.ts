import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { requireFeature } from '../domain/features.js';
import { planVolumeQuery, readGroupBy } from '../domain/query/volume-query.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { VolumeReads, Window } from '../store/volume-reads.js';
import { recordParams, requestLedger } from './request.js';
import { volumePage } from './schemas.js';

/**
 * GET /v2/<ledger>/volumes (docs/api.md §3.3): volumes per account and asset, optionally over a time window on
 * effective time, or on insertion time with `insertionDate=true` (without a window the current volumes, as the
 * reference).
 */
export function volumeRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { lookup: LedgerLookup; volumes: VolumeReads },
): void {
  app.get(
    '/v2/:ledger/volumes',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetVolumesWithBalances',
        summary: 'Volumes and balances',
        description: 'Per account and asset, over a time window.',
        tags: ['ledger: accounts'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('startTime', 'Window start (RFC 3339).', DATE_TIME),
          query('endTime', 'Window end (RFC 3339).', DATE_TIME),
          query('insertionDate', 'Read the window by insertion date.', BOOLEAN),
          query('groupBy', 'Group accounts by their first N address segments.', {
            type: 'integer',
            minimum: 1,
          }),
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
        ],
        responses: { 200: { description: 'A page of volumes.', schema: volumePage } },
      },
    ),
    async (c) => {
      const { lookup, volumes } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const query = readListQuery(c.req.query(), `ledger.volumes.${ledger.name}`, [
        'startTime',
        'endTime',
        'query',
        'insertionDate',
        'groupBy',
      ]);
      const params = query.cursor ? (query.cursor.f ?? {}) : c.req.query();
      const insertion = booleanFlag(params.insertionDate, 'insertionDate');
      const groupBy = readGroupBy(params.groupBy);
      const window: Window = { clock: insertion ? 'insertion' : 'effective' };
      if (params.startTime)
        window.from = sortableInstant(parseInstant(params.startTime, 'startTime'));
      if (params.endTime) window.to = sortableInstant(parseInstant(params.endTime, 'endTime'));
      const windowed = window.from !== undefined || window.to !== undefined;
      if (windowed) requireFeature(ledger.features, 'MOVES_HISTORY');
      if (window.from && window.to && window.from > window.to)
        throw new ValidationError('startTime: must not be after endTime');
      const { access, keep } = planVolumeQuery(params.query, ledger.features);
      const recorded = recordParams(params, [
        'startTime',
        'endTime',
        'query',
        'insertionDate',
        'groupBy',
      ]);
      const page = await volumes.list(
        ledger,
        query,
        access,
        windowed ? window : undefined,
        recorded,
        { ...(keep ? { keep } : {}), ...(groupBy !== undefined ? { groupBy } : {}) },
      );
      return jsonResponse(c, { cursor: page });
    },
  );
}
