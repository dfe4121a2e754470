import type { Hono } from 'hono';
import { ValidationError } from '../../../errors/index.js';
import { readJsonBody } from '../../../http/json-body.js';
import { jsonResponse } from '../../../http/json-response.js';
import type { HonoTypes } from '../../../http/types.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../../openapi/describe.js';
import { readListQuery } from '../../../pagination/cursor.js';
import { formatInstant } from '../../../time/instant.js';
import { nowText } from '../../commands/clock.js';
import {
  addAccountToPool,
  createPool,
  poolAccounts,
  poolBalances,
  poolNotFound,
} from '../../commands/pools.js';
import { newRecordId, requireUuid } from '../../domain/ids.js';
import { parseCreatedAt } from '../../domain/input.js';
import { withoutAccount, withQuery } from '../../domain/pool.js';
import { poolBalanceV1View, poolV1View } from '../../domain/v1/v1-records.js';
import { POOL_KIND } from '../../store/kinds.js';
import { poolInputSchema, poolQueryInputSchema } from '../record-requests.js';
import type { StoresOf } from '../stores-of.js';
import { poolAccountV1InputSchema } from './v1-requests.js';
import { poolBalancesAtV1, poolBalancesLatestV1, poolV1Data, poolV1Page } from './v1-schemas.js';

const poolIdOf = (raw: string) => requireUuid(raw, 'poolId');

/** v1 pools (docs/api.md §6.1): the v3 pools, their accounts under `accounts`. */
export function poolV1Routes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v1CreatePoolRoute(app, storesOf);
  v1ListPoolsRoute(app, storesOf);
  v1GetPoolRoute(app, storesOf);
  v1DeletePoolRoute(app, storesOf);
  poolMembershipV1Routes(app, storesOf);
  poolBalanceV1Routes(app, storesOf);
}

function v1CreatePoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/pools',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1CreatePool',
        summary: 'Create a pool (v1)',
        description:
          'With `query`, a dynamic pool; otherwise a static pool of `accountIDs` (internal accounts). Emits `payments.saved_pool`.',
        tags: ['payments v1'],
        body: poolInputSchema,
        responses: { 200: { description: 'The pool.', schema: poolV1Data } },
      },
    ),
    async (c) => {
      const input = await readJsonBody(c, poolInputSchema);
      const stores = storesOf(c);
      const pool = await createPool(stores, newRecordId(), nowText(stores), input);
      return jsonResponse(c, { data: poolV1View(pool, await poolAccounts(stores, pool)) });
    },
  );
}

function v1ListPoolsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/pools',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListPools',
        summary: 'List pools (v1)',
        tags: ['payments v1'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of pools, oldest first.', schema: poolV1Page } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const page = await stores.pools.list(readListQuery(c.req.query(), POOL_KIND.list));
      const data = await Promise.all(
        page.data.map(async (p) => poolV1View(p, await poolAccounts(stores, p))),
      );
      return jsonResponse(c, { cursor: { ...page, data } });
    },
  );
}

function v1GetPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/pools/:poolId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetPool',
        summary: 'Get a pool (v1)',
        tags: ['payments v1'],
        responses: { 200: { description: 'The pool.', schema: poolV1Data } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      const stores = storesOf(c);
      const pool = await stores.pools.get(id);
      if (!pool) throw poolNotFound(id);
      return jsonResponse(c, { data: poolV1View(pool, await poolAccounts(stores, pool)) });
    },
  );
}

function v1DeletePoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/pools/:poolId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1DeletePool',
        summary: 'Delete a pool (v1)',
        description: 'Its accounts are untouched. Emits `payments.deleted_pool`.',
        tags: ['payments v1'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      if (!(await storesOf(c).pools.remove(id))) throw poolNotFound(id);
      return c.body(null, 204);
    },
  );
}

function poolMembershipV1Routes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v1AddAccountToPoolRoute(app, storesOf);
  v1RemoveAccountFromPoolRoute(app, storesOf);
  v1UpdatePoolQueryRoute(app, storesOf);
}

function v1AddAccountToPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/pools/:poolId/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1AddAccountToPool',
        summary: 'Add an account to a static pool (v1)',
        tags: ['payments v1'],
        body: poolAccountV1InputSchema,
        responses: { 204: { description: 'Added (or already there).' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      const { accountID } = await readJsonBody(c, poolAccountV1InputSchema);
      await addAccountToPool(storesOf(c), id, accountID);
      return c.body(null, 204);
    },
  );
}

function v1RemoveAccountFromPoolRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/pools/:poolId/accounts/:accountId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1RemoveAccountFromPool',
        summary: 'Remove an account from a static pool (v1)',
        tags: ['payments v1'],
        responses: { 204: { description: 'Removed (or was not there).' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      await storesOf(c).pools.save(id, (current) => {
        if (!current) throw poolNotFound(id);
        return withoutAccount(current, c.req.param('accountId'));
      });
      return c.body(null, 204);
    },
  );
}

function v1UpdatePoolQueryRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.patch(
    '/pools/:poolId/query',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1UpdatePoolQuery',
        summary: "Change a dynamic pool's query (v1)",
        tags: ['payments v1'],
        body: poolQueryInputSchema,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      const { query: q } = await readJsonBody(c, poolQueryInputSchema);
      await storesOf(c).pools.save(id, (current) => {
        if (!current) throw poolNotFound(id);
        return withQuery(current, q);
      });
      return c.body(null, 204);
    },
  );
}

function poolBalanceV1Routes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v1GetPoolBalancesRoute(app, storesOf);
  v1GetPoolBalancesLatestRoute(app, storesOf);
}

function v1GetPoolBalancesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/pools/:poolId/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetPoolBalances',
        summary: "A pool's balances at a time (v1)",
        description: "Each asset's total over the pool's accounts at `at` (not in the future).",
        tags: ['payments v1'],
        parameters: [query('at', 'The time (RFC 3339); without it, the latest.', DATE_TIME)],
        responses: { 200: { description: 'Balances by asset.', schema: poolBalancesAtV1 } },
      },
    ),
    async (c) => {
      const id = poolIdOf(c.req.param('poolId'));
      const raw = c.req.query('at');
      const stores = storesOf(c);
      const at = raw === undefined || raw === '' ? undefined : parseCreatedAt(raw, 'at');
      if (at && at.ms > stores.now())
        throw new ValidationError("at: query param 'at' cannot be in the future");
      const balances = await poolBalances(stores, id, at ? formatInstant(at) : undefined);
      return jsonResponse(c, { data: { balances: balances.map(poolBalanceV1View) } });
    },
  );
}

function v1GetPoolBalancesLatestRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/pools/:poolId/balances/latest',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetPoolBalancesLatest',
        summary: "A pool's latest balances (v1)",
        tags: ['payments v1'],
        responses: { 200: { description: 'Balances by asset.', schema: poolBalancesLatestV1 } },
      },
    ),
    async (c) => {
      const balances = await poolBalances(storesOf(c), poolIdOf(c.req.param('poolId')));
      return jsonResponse(c, { data: balances.map(poolBalanceV1View) });
    },
  );
}
