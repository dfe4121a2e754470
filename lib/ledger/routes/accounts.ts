import type { Context, Hono } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import {
  type AccountExpand,
  accountView,
  balancesView,
  readAccountExpand,
} from '../domain/account.js';
import type { LedgerRecord } from '../domain/change.js';
import { readListSort } from '../domain/list-sort.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { readPointInTime, requireVolumesAt } from '../domain/point-in-time.js';
import { planAccountQuery } from '../domain/query/account-query.js';
import { type AccountRead, type AccountReads, accountListName } from '../store/account-reads.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerStats } from '../store/stats.js';
import { recordParams, refuseInsertionDate, requestLedger } from './request.js';
import { accountData, accountPage, balancesSchema } from './schemas.js';

export interface AccountRoutesDeps {
  lookup: LedgerLookup;
  accounts: AccountReads;
  stats: LedgerStats;
}

/** Accounts and balances (docs/api.md §3.3), read side: get, list, count, aggregated balances; each at a point in time (`pit`). */
export function accountRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => AccountRoutesDeps,
): void {
  v2ListAccountsRoute(app, depsOf);
  v2GetAccountRoute(app, depsOf);
  v2GetBalancesAggregatedRoute(app, depsOf);
}

function v2ListAccountsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => AccountRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListAccounts',
        summary: 'List accounts',
        description: 'Sorted by address.',
        tags: ['ledger: accounts'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('expand', '`volumes`, `effectiveVolumes` (comma-separated).'),
          query('pit', 'Point in time (RFC 3339): the state as it was then.', DATE_TIME),
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
          query('sort', '`address:asc` (the one order accounts page in).'),
        ],
        responses: { 200: { description: 'A page of accounts.', schema: accountPage } },
        head: {
          operationId: 'v2CountAccounts',
          summary: 'Count accounts',
          responses: {
            204: {
              description: 'The count, in the `Count` header.',
              headers: {
                Count: { description: 'Number of accounts.', schema: { type: 'integer' } },
              },
            },
          },
        },
      },
    ),
    async (c) => {
      const { lookup, accounts, stats } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      refuseInsertionDate(c);
      if (c.req.method === 'HEAD') return countAccounts(c, ledger, accounts, stats);
      const query = readListQuery(c.req.query(), accountListName(ledger.name), [
        'query',
        'expand',
        'pit',
        'sort',
      ]);
      // By address ascending is the one order accounts page in: `sort` may ask for it, and is refused otherwise.
      readListSort(query.cursor ? undefined : c.req.query('sort'), 'accounts');
      // A cursor carries the listing's parameters (the query as given): with one, the request's own are not read.
      const carried = query.cursor?.f;
      const params = query.cursor
        ? { expand: carried?.expand, pit: carried?.pit, query: carried?.query }
        : { expand: expandParam(c), pit: c.req.query('pit'), query: c.req.query('query') };
      const view = readView(params, ledger);
      const { access, keep, needsVolumes } = planAccountQuery(
        params.query,
        ledger.features,
        view.pit,
      );
      const listing = {
        ...view,
        carried: recordParams(params, ['expand', 'pit', 'query']),
        ...(keep ? { keep } : {}),
        ...(needsVolumes ? { needsVolumes } : {}),
      };
      const page = await accounts.list(ledger, query, access, listing);
      return jsonResponse(c, {
        cursor: { ...page, data: page.data.map((a) => expandedView(a, view.expand)) },
      });
    },
  );
}

/** `HEAD`: what the same list holds, in the `Count` header. */
async function countAccounts(
  c: Context<HonoTypes>,
  ledger: LedgerRecord,
  accounts: AccountReads,
  stats: LedgerStats,
) {
  onlyParams(c, ['query', 'pit']);
  const pit = readPointInTime(c.req.query('pit'));
  const { access, keep, needsVolumes } = planAccountQuery(
    c.req.query('query'),
    ledger.features,
    pit,
  );
  // Unfiltered, the HEAD item keeps the count; served by an index alone, the index counts without returning
  // items; at a point in time or with a condition judged in memory, the listing's pages are counted.
  const count =
    pit !== undefined || keep
      ? await accounts.countListed(ledger, access, {
          ...(pit !== undefined ? { pit } : {}),
          ...(keep ? { keep } : {}),
          ...(needsVolumes ? { needsVolumes } : {}),
        })
      : access
        ? await accounts.count(ledger, access)
        : (await stats.read(ledger)).accounts;
  return c.body(null, 204, { Count: String(count) });
}

function v2GetAccountRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => AccountRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/accounts/:address',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetAccount',
        summary: 'Get an account',
        tags: ['ledger: accounts'],
        parameters: [
          query('expand', '`volumes`, `effectiveVolumes` (comma-separated).'),
          query('pit', 'Point in time (RFC 3339): the state as it was then.', DATE_TIME),
        ],
        responses: { 200: { description: 'The account.', schema: accountData } },
      },
    ),
    async (c) => {
      const { lookup, accounts } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      refuseInsertionDate(c);
      onlyParams(c, ['expand', 'pit']);
      const view = readView({ expand: expandParam(c), pit: c.req.query('pit') }, ledger);
      const address = c.req.param('address');
      // An address that cannot exist is simply not found: no read needed.
      const valid = address.length <= MAX_ADDRESS_LENGTH && ACCOUNT_ADDRESS.test(address);
      const found = valid ? await accounts.get(ledger, address, view) : undefined;
      if (!found) throw new NotFoundError(`account "${address.slice(0, 64)}" not found`);
      return jsonResponse(c, { data: expandedView(found, view.expand) });
    },
  );
}

function v2GetBalancesAggregatedRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => AccountRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/aggregate/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetBalancesAggregated',
        summary: 'Aggregated balances',
        description: 'Per asset, the sum of the balances of the accounts the filter matches.',
        tags: ['ledger: accounts'],
        parameters: [
          query('pit', 'Point in time (RFC 3339): the state as it was then.', DATE_TIME),
          query('useInsertionDate', 'Read `pit` by insertion date.', BOOLEAN),
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
        ],
        responses: { 200: { description: 'Balances by asset.', schema: balancesSchema } },
      },
    ),
    async (c) => {
      const { lookup, accounts } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      onlyParams(c, ['query', 'pit', 'useInsertionDate', 'use_insertion_date']);
      const pit = readPointInTime(c.req.query('pit'));
      // The list's query language, planned as the list plans it (an index, then a condition judged per account).
      const plan = planAccountQuery(c.req.query('query'), ledger.features, pit);
      // The reference reads both spellings; without `pit` the current balances, whatever the clock.
      const insertion =
        booleanFlag(c.req.query('useInsertionDate'), 'useInsertionDate') ||
        booleanFlag(c.req.query('use_insertion_date'), 'use_insertion_date');
      const clock = insertion ? 'insertion' : 'effective';
      if (pit !== undefined) requireVolumesAt(clock, ledger.features);
      return jsonResponse(c, {
        data: balancesView(
          await accounts.balances(ledger, plan, pit !== undefined ? { pit, clock } : undefined),
        ),
      });
    },
  );
}

/** Expansions and point in time of an account read; `volumes` at a point in time are by insertion time. */
function readView(
  params: { expand: string | undefined; pit: string | undefined },
  ledger: LedgerRecord,
): { expand: AccountExpand; pit?: string } {
  const expand = readAccountExpand(params.expand, ledger.features);
  const pit = readPointInTime(params.pit);
  if (pit !== undefined && expand.volumes) requireVolumesAt('insertion', ledger.features);
  return { expand, ...(pit !== undefined ? { pit } : {}) };
}

function expandedView(read: AccountRead, expand: AccountExpand) {
  return accountView(
    read.account,
    expand.volumes ? read.volumes : undefined,
    expand.effectiveVolumes ? read.effectiveVolumes : undefined,
  );
}

/** `expand` may be repeated or comma-separated; both mean the union. */
function expandParam(c: Context): string | undefined {
  const values = c.req.queries('expand');
  return values ? values.join(',') : undefined;
}

/** Refuses parameters a route does not serve rather than silently ignoring them. */
function onlyParams(c: Context, allowed: readonly string[]): void {
  for (const name of Object.keys(c.req.query())) {
    if (!allowed.includes(name))
      throw new ValidationError(
        `${name.slice(0, 32)}: query parameter not supported here (supported: ${allowed.join(', ')})`,
      );
  }
}
