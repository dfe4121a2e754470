import type { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { validate } from '../../validation/validate.js';
import { accountId, recordAccount } from '../domain/account.js';
import { isHashedId } from '../domain/ids.js';
import { BALANCES_LIST } from '../store/balance-store.js';
import { ACCOUNT_KIND } from '../store/kinds.js';
import { accountInputSchema } from './record-requests.js';
import { createdAtSchema } from './requests.js';
import { accountData, accountPage, balancePage } from './schemas.js';
import type { StoresOf } from './stores-of.js';

/** `from` and `to` are the reference's names, `fromTimestamp` and `toTimestamp` the SDK's: both are read. */
const BALANCE_FILTERS = ['asset', 'from', 'to', 'fromTimestamp', 'toTimestamp'] as const;
const balanceFilterSchema = v.strictObject({
  asset: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  from: v.optional(createdAtSchema),
  to: v.optional(createdAtSchema),
});

/** Accounts and their balances (docs/api.md §6), in the token's environment. */
export function accountRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3CreateAccountRoute(app, storesOf);
  v3ListAccountsRoute(app, storesOf);
  v3GetAccountRoute(app, storesOf);
  v3GetAccountBalancesRoute(app, storesOf);
}

function v3CreateAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreateAccount',
        summary: 'Create or update an account',
        description:
          'The same `(connectorID, reference)` updates the existing account. Emits `payments.saved_account`.',
        tags: ['accounts'],
        body: accountInputSchema,
        responses: { 201: { description: 'The account.', schema: accountData } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, accountInputSchema, { parse: parseJson });
      const { accountName, metadata, ...rest } = body;
      const input = {
        ...rest,
        name: accountName,
        ...(metadata ? { metadata } : {}),
        raw: { ...body } as Record<string, unknown>,
      };
      const id = accountId(input.connectorID, input.reference);
      const account = await storesOf(c).accounts.save(id, (current) =>
        recordAccount(current, input),
      );
      return jsonResponse(c, { data: account }, 201);
    },
  );
}

function v3ListAccountsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListAccounts',
        summary: 'List accounts',
        tags: ['accounts'],
        parameters: PAGE_PARAMETERS,
        responses: {
          200: { description: 'A page of accounts, oldest first.', schema: accountPage },
        },
      },
    ),
    async (c) => {
      const page = await storesOf(c).accounts.list(readListQuery(c.req.query(), ACCOUNT_KIND.list));
      return jsonResponse(c, { cursor: page });
    },
  );
}

function v3GetAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/accounts/:accountID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetAccount',
        summary: 'Get an account',
        tags: ['accounts'],
        responses: { 200: { description: 'The account.', schema: accountData } },
      },
    ),
    async (c) => {
      const id = c.req.param('accountID');
      const account = isHashedId(id) ? await storesOf(c).accounts.get(id) : undefined;
      if (!account) throw accountNotFound(id);
      return jsonResponse(c, { data: account });
    },
  );
}

function v3GetAccountBalancesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/accounts/:accountID/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetAccountBalances',
        summary: "List an account's balances",
        description:
          'Periods of constant balance, newest first: `createdAt` is when the provider first reported the amount, `lastUpdatedAt` the last reading that confirmed it.',
        tags: ['accounts'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('asset', 'Only balances in this asset.'),
          query('from', 'Only periods still current at or after this time.', DATE_TIME),
          query('to', 'Only periods begun at or before this time.', DATE_TIME),
          query('fromTimestamp', "The SDK's name for `from`.", DATE_TIME),
          query('toTimestamp', "The SDK's name for `to`.", DATE_TIME),
        ],
        responses: { 200: { description: 'A page of balances.', schema: balancePage } },
      },
    ),
    async (c) => {
      const id = c.req.param('accountID');
      const stores = storesOf(c);
      const list = readListQuery(c.req.query(), BALANCES_LIST, BALANCE_FILTERS);
      const params = list.cursor ? (list.cursor.f ?? {}) : c.req.query();
      const given = (a: string, b: string) => params[a] ?? params[b];
      const filter = validate(
        balanceFilterSchema,
        Object.fromEntries(
          Object.entries({
            asset: params.asset,
            from: given('from', 'fromTimestamp'),
            to: given('to', 'toTimestamp'),
          }).filter(([, value]) => value !== undefined),
        ),
        'query',
      );
      if (!isHashedId(id) || !(await stores.accounts.get(id))) throw accountNotFound(id);
      return jsonResponse(c, { cursor: await stores.balances.history(id, filter, list) });
    },
  );
}

export const accountNotFound = (id: string) =>
  new NotFoundError(`account ${id.slice(0, 64)} not found`);
