import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { type Cursor, decodeCursor, MAX_PAGE_SIZE } from '../../pagination/cursor.js';
import type { SchemaReads } from '../commands/schema-write.js';
import { type AccountVolumes, accountView, addBalances, balancesView } from '../domain/account.js';
import type { LedgerRecord } from '../domain/change.js';
import { isEnabled } from '../domain/features.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { type AccountRead, type AccountReads, accountListName } from '../store/account-reads.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerStats } from '../store/stats.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { readAddress } from './request.js';
import { balancesSchema, v1AccountData, v1AccountPage, v1BalancesPage } from './schemas.js';
import { readV1AccountQuery, type V1AccountQuery } from './v1-account-query.js';
import { resolveV1Ledger, v1Handler } from './v1-ledger.js';
import { v1MetadataRoutes } from './v1-metadata.js';
import { readAddressPattern } from './v1-pattern.js';

export interface V1AccountRoutesDeps {
  lookup: LedgerLookup;
  accounts: AccountReads;
  stats: LedgerStats;
  commands: LedgerCommands;
  schemas: SchemaReads;
}

/** Per-asset balances of an account, assets sorted. */
const balancesOf = (volumes: AccountVolumes | undefined) =>
  balancesView(
    addBalances(
      new Map(),
      Object.entries(volumes ?? {}).map(([asset, v]) => ({ asset, balance: v.balance })),
    ),
  );

/**
 * The v1 account routes (the SDK's getAccountLedger, listAccountsLedger, countAccounts, addMetadataToAccount,
 * getBalances, getBalancesAggregated) over the v2 account reads and the v2 metadata command.
 */
export function v1AccountRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1AccountRoutesDeps,
): void {
  listAccountsLedgerRoute(app, depsOf);
  getAccountLedgerRoute(app, depsOf);
  v1MetadataRoutes(app, depsOf, '/:ledger/accounts/:address', (c) => ({
    type: 'ACCOUNT',
    address: readAddress(c.req.param('address')!),
  }));
  getBalancesRoute(app, depsOf);
  getBalancesAggregatedRoute(app, depsOf);
}

function listAccountsLedgerRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1AccountRoutesDeps,
): void {
  app.get(
    '/:ledger/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listAccounts_ledger',
        summary: 'List accounts (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          ...PAGE_PARAMETERS,
          query('address', 'Address pattern (regular expression of segments).'),
          query('metadata', 'Metadata filter (`metadata[key]=value`).'),
          query('balance', 'Balance to compare with.'),
          query('balanceOperator', '`gte`, `lte`, `gt`, `lt`, `e` or `ne`.'),
        ],
        responses: { 200: { description: 'A page of v1 accounts.', schema: v1AccountPage } },
        head: {
          operationId: 'countAccounts',
          summary: 'Count accounts (v1)',
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
    v1Handler(async (c) => {
      const { accounts, stats } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const listing = readV1AccountQuery(c.req.query(), ledger, ledger.features, 'accounts');
      if (c.req.method === 'HEAD') {
        const count = listing.filtered
          ? await countListing(accounts, ledger, listing)
          : (await stats.read(ledger)).accounts;
        return c.body(null, 204, { Count: String(count) });
      }
      const page = await readPage(accounts, ledger, listing);
      return jsonResponse(c, {
        cursor: { ...page, data: page.data.map((r) => accountView(r.account)) },
      });
    }),
  );
}

function getAccountLedgerRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1AccountRoutesDeps,
): void {
  app.get(
    '/:ledger/accounts/:address',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getAccount_ledger',
        summary: 'Get an account (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        responses: {
          200: { description: 'The account with its volumes and balances.', schema: v1AccountData },
        },
      },
    ),
    v1Handler(async (c) => {
      const { accounts } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const address = c.req.param('address')!;
      const valid = address.length <= MAX_ADDRESS_LENGTH && ACCOUNT_ADDRESS.test(address);
      if (!valid)
        throw new ValidationError(
          'address: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
        );
      const found = await accounts.get(ledger, address, {
        expand: { volumes: true, effectiveVolumes: false },
      });
      const data = found
        ? {
            ...accountView(found.account),
            volumes: found.volumes ?? {},
            balances: balancesOf(found.volumes),
          }
        : { address, metadata: {}, volumes: {}, balances: {} };
      return jsonResponse(c, { data });
    }),
  );
}

function getBalancesRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1AccountRoutesDeps,
): void {
  app.get(
    '/:ledger/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getBalances',
        summary: 'Balances by account (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [...PAGE_PARAMETERS, query('address', 'Address pattern.')],
        responses: {
          200: { description: 'A page of balances by account.', schema: v1BalancesPage },
        },
      },
    ),
    v1Handler(async (c) => {
      const { accounts } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const listing = readV1AccountQuery(c.req.query(), ledger, ledger.features, 'balances');
      const page = await readPage(accounts, ledger, { ...listing, needsVolumes: true });
      return jsonResponse(c, {
        cursor: {
          ...page,
          data: page.data.map((r) => ({ [r.account.address]: balancesOf(r.volumes) })),
        },
      });
    }),
  );
}

function getBalancesAggregatedRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1AccountRoutesDeps,
): void {
  app.get(
    '/:ledger/aggregate/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getBalancesAggregated',
        summary: 'Aggregated balances (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          query('address', 'Address pattern.'),
          query('useInsertionDate', 'Accepted; v1 has no point in time.', BOOLEAN),
        ],
        responses: { 200: { description: 'Balances by asset.', schema: balancesSchema } },
      },
    ),
    v1Handler(async (c) => {
      const { accounts } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const { address, useInsertionDate, use_insertion_date: snake, ...rest } = c.req.query();
      const [unknown] = Object.keys(rest);
      if (unknown !== undefined)
        throw new ValidationError(`${unknown.slice(0, 32)}: unknown query parameter`);
      // Without a point in time (v1 has none) the current balances, whatever the clock.
      booleanFlag(useInsertionDate, 'useInsertionDate');
      booleanFlag(snake, 'use_insertion_date');
      const pattern = address ? readAddressPattern(address, 'address') : undefined;
      if (!pattern)
        return jsonResponse(c, { data: balancesView(await accounts.balances(ledger, {})) });
      if (pattern.kind === 'exact')
        return jsonResponse(c, {
          data: balancesView(
            await accounts.balances(ledger, {
              access: { address: pattern.address, prefix: false },
            }),
          ),
        });
      if (pattern.kind === 'prefix' && isEnabled(ledger.features, 'INDEX_ADDRESS_SEGMENTS')) {
        return jsonResponse(c, {
          data: balancesView(
            await accounts.balances(ledger, {
              access: { address: pattern.prefix, prefix: true },
            }),
          ),
        });
      }
      // A pattern no index serves: every account is read (page by page, as the unfiltered sum does) and matched.
      const listing = readV1AccountQuery(
        { address: address!, pageSize: String(MAX_PAGE_SIZE) },
        ledger,
        ledger.features,
        'balances',
      );
      const sums = new Map<string, bigint>();
      await eachPage(accounts, ledger, { ...listing, needsVolumes: true }, (reads) => {
        for (const r of reads)
          addBalances(
            sums,
            Object.entries(r.volumes ?? {}).map(([asset, v]) => ({ asset, balance: v.balance })),
          );
      });
      return jsonResponse(c, { data: balancesView(sums) });
    }),
  );
}

/** One page of the listing: the driving read, then every filter on what it returned. */
async function readPage(accounts: AccountReads, ledger: LedgerRecord, listing: V1AccountQuery) {
  const page = await accounts.list(ledger, listing.query, listing.filter, {
    expand: { volumes: listing.needsVolumes, effectiveVolumes: false },
    carried: listing.carried,
  });
  return { ...page, data: page.data.filter(listing.matches) };
}

/** Every page of a listing, MAX_PAGE_SIZE accounts a read. */
async function eachPage(
  accounts: AccountReads,
  ledger: LedgerRecord,
  listing: V1AccountQuery,
  visit: (reads: AccountRead[]) => void,
): Promise<void> {
  let cursor: Cursor | undefined = listing.query.cursor;
  do {
    const page = await readPage(accounts, ledger, {
      ...listing,
      query: { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
    });
    visit(page.data);
    cursor = page.next ? decodeCursor(page.next, accountListName(ledger.name)) : undefined;
  } while (cursor);
}

async function countListing(
  accounts: AccountReads,
  ledger: LedgerRecord,
  listing: V1AccountQuery,
): Promise<number> {
  let total = 0;
  await eachPage(accounts, ledger, listing, (reads) => {
    total += reads.length;
  });
  return total;
}
