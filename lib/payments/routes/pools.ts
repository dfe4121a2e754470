import type { Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant } from '../../time/instant.js';
import { nowText } from '../commands/clock.js';
import {
  addAccountToPool,
  createPool,
  poolAccounts,
  poolBalances,
  poolNotFound,
} from '../commands/pools.js';
import { newRecordId, requireUuid } from '../domain/ids.js';
import { parseCreatedAt } from '../domain/input.js';
import { poolView, withoutAccount, withQuery } from '../domain/pool.js';
import { POOL_KIND } from '../store/kinds.js';
import { poolInputSchema, poolQueryInputSchema } from './record-requests.js';
import { createdId, poolBalances as poolBalancesSchema, poolData, poolPage } from './schemas.js';
import type { StoresOf } from './stores-of.js';

const poolIdOf = (raw: string) => requireUuid(raw, 'poolID');

/** Pools (docs/api.md §6): sets of internal accounts whose balances are read together. */
export function poolRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3CreatePoolRoute(app, storesOf);
  v3ListPoolsRoute(app, storesOf);
  v3GetPoolRoute(app, storesOf);
  v3DeletePoolRoute(app, storesOf);
  membershipRoutes(app, storesOf);
  balanceRoutes(app, storesOf);
}

function v3CreatePoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/pools',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreatePool',
        summary: 'Create a pool',
        description:
          'With `query`, a dynamic pool (the accounts the query selects); otherwise a static pool of `accountIDs` (internal accounts). Emits `payments.saved_pool`.',
        tags: ['pools'],
        body: poolInputSchema,
        responses: { 201: { description: 'The id of the new pool.', schema: createdId } },
      },
    ),
    async (c) => {
      const input = await readJsonBody(c, poolInputSchema);
      const stores = storesOf(c);
      const id = newRecordId();
      await createPool(stores, id, nowText(stores), input);
      return jsonResponse(c, { data: id }, 201);
    },
  );
}

function v3ListPoolsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/pools',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPools',
        summary: 'List pools',
        tags: ['pools'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of pools, oldest first.', schema: poolPage } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const page = await stores.pools.list(readListQuery(c.req.query(), POOL_KIND.list));
      const data = await Promise.all(
        page.data.map(async (p) => poolView(p, await poolAccounts(stores, p))),
      );
      return jsonResponse(c, { cursor: { ...page, data } });
    },
  );
}

function v3GetPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/pools/:poolID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPool',
        summary: 'Get a pool',
        tags: ['pools'],
        responses: { 200: { description: 'The pool.', schema: poolData } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolID'));
      const stores = storesOf(c);
      const pool = await stores.pools.get(id);
      if (!pool) throw poolNotFound(id);
      return jsonResponse(c, { data: poolView(pool, await poolAccounts(stores, pool)) });
    },
  );
}

function v3DeletePoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/v3/pools/:poolID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3DeletePool',
        summary: 'Delete a pool',
        description: 'Its accounts are untouched. Emits `payments.deleted_pool`.',
        tags: ['pools'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolID'));
      if (!(await storesOf(c).pools.remove(id))) throw poolNotFound(id);
      return c.body(null, 204);
    },
  );
}

function membershipRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3AddAccountToPoolRoute(app, storesOf);
  v3RemoveAccountFromPoolRoute(app, storesOf);
  v3UpdatePoolQueryRoute(app, storesOf);
}

function v3AddAccountToPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/pools/:poolID/accounts/:accountID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3AddAccountToPool',
        summary: 'Add an account to a static pool',
        tags: ['pools'],
        responses: { 204: { description: 'Added (or already there).' } },
      },
    ),
    async (c) => {
      await addAccountToPool(
        storesOf(c),
        poolIdOf(c.req.param('poolID')),
        c.req.param('accountID'),
      );
      return c.body(null, 204);
    },
  );
}

function v3RemoveAccountFromPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/v3/pools/:poolID/accounts/:accountID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3RemoveAccountFromPool',
        summary: 'Remove an account from a static pool',
        tags: ['pools'],
        responses: { 204: { description: 'Removed (or was not there).' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolID'));
      await storesOf(c).pools.save(id, (current) => {
        if (!current) throw poolNotFound(id);
        return withoutAccount(current, c.req.param('accountID'));
      });
      return c.body(null, 204);
    },
  );
}

function v3UpdatePoolQueryRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.patch(
    '/v3/pools/:poolID/query',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UpdatePoolQuery',
        summary: "Change a dynamic pool's query",
        tags: ['pools'],
        body: poolQueryInputSchema,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolID'));
      const { query: q } = await readJsonBody(c, poolQueryInputSchema);
      await storesOf(c).pools.save(id, (current) => {
        if (!current) throw poolNotFound(id);
        return withQuery(current, q);
      });
      return c.body(null, 204);
    },
  );
}

function balanceRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3GetPoolBalancesRoute(app, storesOf);
  v3GetPoolBalancesLatestRoute(app, storesOf);
}

function v3GetPoolBalancesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/pools/:poolID/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPoolBalances',
        summary: "A pool's balances at a time",
        description:
          "Each asset's total over the pool's accounts at `at` (not in the future); without `at`, the latest.",
        tags: ['pools'],
        parameters: [query('at', 'The time (RFC 3339).', DATE_TIME)],
        responses: { 200: { description: 'Balances by asset.', schema: poolBalancesSchema } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolID'));
      const raw = c.req.query('at');
      const stores = storesOf(c);
      // The SDK declares `at` optional: without it, the balances are the latest (the reference refuses instead).
      const at = raw === undefined || raw === '' ? undefined : parseCreatedAt(raw, 'at');
      if (at && at.ms > stores.now())
        throw new ValidationError("at: query param 'at' cannot be in the future");
      const data = await poolBalances(stores, id, at ? formatInstant(at) : undefined);
      return jsonResponse(c, { data });
    },
  );
}

function v3GetPoolBalancesLatestRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/pools/:poolID/balances/latest',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPoolBalancesLatest',
        summary: "A pool's latest balances",
        tags: ['pools'],
        responses: { 200: { description: 'Balances by asset.', schema: poolBalancesSchema } },
      },
    ),
    async (c) => {
      const data = await poolBalances(storesOf(c), poolIdOf(c.req.param('poolID')));
      return jsonResponse(c, { data });
    },
  );
}
