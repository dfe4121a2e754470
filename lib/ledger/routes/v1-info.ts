import type { Context, Hono } from 'hono';
import { environmentOf } from '../../http/environment.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { PLATFORM_VERSION } from '../../openapi/version.js';
import { type Cursor, decodeCursor, MAX_PAGE_SIZE } from '../../pagination/cursor.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerRegistry } from '../store/registry.js';
import type { LedgerStats } from '../store/stats.js';
import { ledgerInfoSchema, serverInfoSchema, statsSchema } from './schemas.js';
import { resolveV1Ledger, v1Handler } from './v1-ledger.js';

/** Ledger names `/_info` lists at most: the registry is read a page of MAX_PAGE_SIZE at a time, this many pages. */
export const V1_INFO_MAX_LEDGERS = 10 * MAX_PAGE_SIZE;

/**
 * `GET /_info` (the SDK's v1 getInfo): the server, its version and `config.storage` with the names of the
 * token's environment's ledgers, which the v1 ConfigInfo requires. Registered before the v2 info routes, which
 * answer `/v2/_info`.
 */
export function v1InfoRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { registry: LedgerRegistry },
): void {
  app.get(
    '/_info',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getInfo',
        summary: 'Server info (v1)',
        description: 'With the names of the ledgers.',
        tags: ['ledger v1'],
        deprecated: true,
        responses: {
          200: { description: 'The server, its version and ledgers.', schema: serverInfoSchema },
        },
      },
    ),
    async (c) => {
      const { registry } = depsOf(c);
      const ledgers: string[] = [];
      let cursor: Cursor | undefined;
      do {
        const page = await registry.list(
          environmentOf(c),
          { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
          undefined,
        );
        ledgers.push(...page.data.map((l) => l.name));
        cursor =
          page.next && ledgers.length < V1_INFO_MAX_LEDGERS
            ? decodeCursor(page.next, 'ledger.ledgers')
            : undefined;
      } while (cursor);
      return jsonResponse(c, {
        data: {
          server: 'ledger',
          version: PLATFORM_VERSION,
          experimentalFeatures: [],
          config: { storage: { driver: 'dynamodb', ledgers } },
        },
      });
    },
  );
}

/** `GET /<ledger>/_info` and `GET /<ledger>/stats` (the SDK's getLedgerInfo, readStats). */
export function v1LedgerRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { lookup: LedgerLookup; stats: LedgerStats },
): void {
  getLedgerInfoRoute(app, depsOf);
  readStatsRoute(app, depsOf);
}

function getLedgerInfoRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { lookup: LedgerLookup; stats: LedgerStats },
): void {
  app.get(
    '/:ledger/_info',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getLedgerInfo',
        summary: 'Ledger info (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        responses: { 200: { description: 'Name and storage.', schema: ledgerInfoSchema } },
      },
    ),
    v1Handler(async (c) => {
      const { lookup } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      // Tables are created by the stack, not migrated: no migrations to report.
      return jsonResponse(c, { data: { name: ledger.name, storage: { migrations: [] } } });
    }),
  );
}

function readStatsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => { lookup: LedgerLookup; stats: LedgerStats },
): void {
  app.get(
    '/:ledger/stats',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'readStats',
        summary: 'Ledger statistics (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        responses: {
          200: { description: 'Counts of accounts and transactions.', schema: statsSchema },
        },
      },
    ),
    v1Handler(async (c) => {
      const { lookup, stats } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      return jsonResponse(c, { data: await stats.read(ledger) });
    }),
  );
}
