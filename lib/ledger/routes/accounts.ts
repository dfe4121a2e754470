import type { Context, Hono } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import { accountView, balancesView, readAccountExpand, type AccountExpand } from '../domain/account.js';
import { addressFilter, parseAggregateFilter, parseAccountListFilter, segmentFilter, type AccountFilter, type SegmentFilter } from '../domain/account-filter.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { refusePointInTime } from './request.js';
import { accountListName, balanceFilterFromText, type AccountRead, type AccountReads } from '../store/account-reads.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerStats } from '../store/stats.js';

export interface AccountRoutesDeps {
  lookup: LedgerLookup;
  accounts: AccountReads;
  stats: LedgerStats;
}

/** Accounts and balances (API.md §3.3), read side: get, list, count, aggregated balances. */
export function accountRoutes(app: Hono<AppEnv>, { lookup, accounts, stats }: AccountRoutesDeps): void {
  // Hono answers HEAD with the GET route (dropping the body), so this one handler serves both.
  app.get('/v2/:ledger/accounts', async (c) => {
    const ledger = await lookup.resolve(c.req.param('ledger'));
    if (c.req.method === 'HEAD') {
      onlyParams(c, ['query']);
      const filter = parseAccountListFilter(c.req.query('query'), ledger.features);
      // Unfiltered, the HEAD item keeps the count; filtered, the index counts without returning items.
      const count = filter ? await accounts.count(ledger, filter) : (await stats.read(ledger)).accounts;
      return c.body(null, 204, { Count: String(count) });
    }
    refusePointInTime(c);
    const query = readListQuery(c.req.query(), accountListName(ledger.name), ['query', 'expand']);
    const carried = query.cursor?.f;
    const filter: AccountFilter | undefined = query.cursor
      ? carried?.address !== undefined
        ? addressFilter(carried.address, ledger.features, 'cursor')
        : carried?.metadataKey !== undefined && carried.metadataValue !== undefined
          ? { metadata: { key: carried.metadataKey, value: carried.metadataValue } }
          : carried?.segments !== undefined
            ? cursorSegments(carried.segments, ledger.features)
          : carried?.balance !== undefined
            ? balanceFilterFromText(carried.balance)
            : undefined
      : parseAccountListFilter(c.req.query('query'), ledger.features);
    const expand = readAccountExpand(query.cursor ? carried?.expand : expandParam(c), ledger.features);
    const page = await accounts.list(ledger, query, filter, expand.volumes || expand.effectiveVolumes);
    return jsonResponse(c, { cursor: { ...page, data: page.data.map((a) => expandedView(a, expand)) } });
  });

  app.get('/v2/:ledger/accounts/:address', async (c) => {
    const ledger = await lookup.resolve(c.req.param('ledger'));
    onlyParams(c, ['expand']);
    const expand = readAccountExpand(expandParam(c), ledger.features);
    const address = c.req.param('address');
    // An address that cannot exist is simply not found: no read needed.
    const valid = address.length <= MAX_ADDRESS_LENGTH && ACCOUNT_ADDRESS.test(address);
    const found = valid ? await accounts.get(ledger, address, expand.volumes || expand.effectiveVolumes) : undefined;
    if (!found) throw new NotFoundError(`account "${address.slice(0, 64)}" not found`);
    return jsonResponse(c, { data: expandedView(found, expand) });
  });

  app.get('/v2/:ledger/aggregate/balances', async (c) => {
    const ledger = await lookup.resolve(c.req.param('ledger'));
    onlyParams(c, ['query']);
    const filter = parseAggregateFilter(c.req.query('query'), ledger.features);
    return jsonResponse(c, { data: balancesView(await accounts.balances(ledger, filter)) });
  });
}

function expandedView(read: AccountRead, expand: AccountExpand) {
  return accountView(read.account, expand.volumes ? read.volumes : undefined, expand.effectiveVolumes ? read.volumes : undefined);
}

/** `expand` may be repeated or comma-separated; both mean the union. */
function expandParam(c: Context): string | undefined {
  const values = c.req.queries('expand');
  return values ? values.join(',') : undefined;
}

/** Refuses parameters a route does not serve (`pit`, ...) rather than silently ignoring them. */
function onlyParams(c: Context, allowed: readonly string[]): void {
  refusePointInTime(c);
  for (const name of Object.keys(c.req.query())) {
    if (!allowed.includes(name)) throw new ValidationError(`${name.slice(0, 32)}: query parameter not supported here (supported: ${allowed.join(', ')})`);
  }
}

function cursorSegments(pattern: string, features: Parameters<typeof segmentFilter>[1]): SegmentFilter {
  const filter = segmentFilter(pattern, features);
  if (!filter) throw new ValidationError('cursor: not a cursor of this list');
  return filter;
}
