import type { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../../errors/index.js';
import { readJsonBody } from '../../../http/json-body.js';
import { jsonResponse } from '../../../http/json-response.js';
import type { HonoTypes } from '../../../http/types.js';
import { parseJson } from '../../../json/bigint-json.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../../openapi/describe.js';
import { readListQuery } from '../../../pagination/cursor.js';
import { metadataMap } from '../../../validation/common.js';
import { validate } from '../../../validation/validate.js';
import { accountId, recordAccount } from '../../domain/account.js';
import { isHashedId } from '../../domain/ids.js';
import { isPaymentId, paymentId, recordPayment, withMetadata } from '../../domain/payment.js';
import { accountV1View, balanceV1View, paymentV1View } from '../../domain/v1/v1-records.js';
import { schemeOfV1 } from '../../domain/v1/v1-vocabulary.js';
import { BALANCES_LIST } from '../../store/balance-store.js';
import { ACCOUNT_KIND } from '../../store/kinds.js';
import { PAYMENTS_LIST } from '../../store/payment-store.js';
import { accountNotFound } from '../accounts.js';
import { createdAtSchema, metadataPatch } from '../requests.js';
import type { StoresOf } from '../stores-of.js';
import { accountV1InputSchema, paymentV1InputSchema } from './v1-requests.js';
import {
  accountV1Data,
  accountV1Page,
  balanceV1Page,
  paymentV1Data,
  paymentV1Page,
} from './v1-schemas.js';

const paymentNotFound = (id: string) => new NotFoundError(`payment ${id.slice(0, 64)} not found`);

/** v1 payments (docs/api.md §6.1): the v3 payments in v1's shape. */
export function paymentV1Routes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v1CreatePaymentRoute(app, storesOf);
  v1ListPaymentsRoute(app, storesOf);
  v1GetPaymentRoute(app, storesOf);
  v1UpdatePaymentMetadataRoute(app, storesOf);
}

function v1CreatePaymentRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/payments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1CreatePayment',
        summary: 'Create or update a payment (v1)',
        description:
          'As `POST /v3/payments`, with v1 scheme names. Emits `payments.saved_payment`.',
        tags: ['payments v1'],
        body: paymentV1InputSchema,
        responses: { 200: { description: 'The payment.', schema: paymentV1Data } },
      },
    ),
    async (c) => {
      const { scheme, ...body } = await readJsonBody(c, paymentV1InputSchema, { parse: parseJson });
      const input = { ...body, scheme: schemeOfV1(scheme) };
      const id = paymentId(input.connectorID, input.reference, input.type);
      const { payment } = await storesOf(c).payments.save(id, (current) =>
        recordPayment(current, input),
      );
      return jsonResponse(c, { data: paymentV1View(payment) });
    },
  );
}

function v1ListPaymentsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/payments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListPayments',
        summary: 'List payments (v1)',
        tags: ['payments v1'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of payments.', schema: paymentV1Page } },
      },
    ),
    async (c) => {
      const page = await storesOf(c).payments.list(readListQuery(c.req.query(), PAYMENTS_LIST), {});
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(paymentV1View) } });
    },
  );
}

function v1GetPaymentRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/payments/:paymentId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetPayment',
        summary: 'Get a payment (v1)',
        tags: ['payments v1'],
        responses: { 200: { description: 'The payment.', schema: paymentV1Data } },
      },
    ),
    async (c) => {
      const id = c.req.param('paymentId');
      const payment = isPaymentId(id) ? await storesOf(c).payments.get(id) : undefined;
      if (!payment) throw paymentNotFound(id);
      return jsonResponse(c, { data: paymentV1View(payment) });
    },
  );
}

function v1UpdatePaymentMetadataRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.patch(
    '/payments/:paymentId/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1UpdatePaymentMetadata',
        summary: "Set a payment's metadata (v1)",
        description: 'Merged into the existing metadata.',
        tags: ['payments v1'],
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = c.req.param('paymentId');
      if (!isPaymentId(id)) throw paymentNotFound(id);
      const metadata = metadataPatch(await readJsonBody(c, v.unknown()));
      await storesOf(c).payments.save(id, (current) => {
        if (!current) throw paymentNotFound(id);
        return withMetadata(current, metadata);
      });
      return c.body(null, 204);
    },
  );
}

const BALANCE_FILTERS = ['asset', 'from', 'to'] as const;
const balanceFilterSchema = v.strictObject({
  asset: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  from: v.optional(createdAtSchema),
  to: v.optional(createdAtSchema),
});

/** v1 accounts and their balances (docs/api.md §6.1). */
export function accountV1Routes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v1CreateAccountRoute(app, storesOf);
  v1ListAccountsRoute(app, storesOf);
  v1GetAccountRoute(app, storesOf);
  v1GetAccountBalancesRoute(app, storesOf);
}

function v1CreateAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1CreateAccount',
        summary: 'Create or update an account (v1)',
        description: 'As `POST /v3/accounts`. Emits `payments.saved_account`.',
        tags: ['payments v1'],
        body: accountV1InputSchema,
        responses: { 200: { description: 'The account.', schema: accountV1Data } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, accountV1InputSchema, { parse: parseJson });
      const { accountName, metadata, ...rest } = body;
      const input = {
        ...rest,
        ...(accountName !== undefined ? { name: accountName } : {}),
        ...(metadata ? { metadata } : {}),
        raw: { ...body } as Record<string, unknown>,
      };
      const id = accountId(input.connectorID, input.reference);
      const account = await storesOf(c).accounts.save(id, (current) =>
        recordAccount(current, input),
      );
      return jsonResponse(c, { data: accountV1View(account) });
    },
  );
}

function v1ListAccountsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListAccounts',
        summary: 'List accounts (v1)',
        tags: ['payments v1'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of accounts.', schema: accountV1Page } },
      },
    ),
    async (c) => {
      const page = await storesOf(c).accounts.list(readListQuery(c.req.query(), ACCOUNT_KIND.list));
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(accountV1View) } });
    },
  );
}

function v1GetAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/accounts/:accountId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetAccount',
        summary: 'Get an account (v1)',
        tags: ['payments v1'],
        responses: { 200: { description: 'The account.', schema: accountV1Data } },
      },
    ),
    async (c) => {
      const id = c.req.param('accountId');
      const account = isHashedId(id) ? await storesOf(c).accounts.get(id) : undefined;
      if (!account) throw accountNotFound(id);
      return jsonResponse(c, { data: accountV1View(account) });
    },
  );
}

function v1GetAccountBalancesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/accounts/:accountId/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetAccountBalances',
        summary: "An account's balances (v1)",
        description:
          'Periods of constant balance, newest first (as `GET /v3/accounts/{id}/balances`).',
        tags: ['payments v1'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('asset', 'Only balances in this asset.'),
          query('from', 'Only periods still current at or after this time.', DATE_TIME),
          query('to', 'Only periods begun at or before this time.', DATE_TIME),
        ],
        responses: { 200: { description: 'A page of balances.', schema: balanceV1Page } },
      },
    ),
    async (c) => {
      const id = c.req.param('accountId');
      const stores = storesOf(c);
      const list = readListQuery(c.req.query(), BALANCES_LIST, BALANCE_FILTERS);
      const params = list.cursor ? (list.cursor.f ?? {}) : c.req.query();
      const filter = validate(
        balanceFilterSchema,
        Object.fromEntries(BALANCE_FILTERS.flatMap((f) => (params[f] ? [[f, params[f]]] : []))),
        'query',
      );
      if (!isHashedId(id) || !(await stores.accounts.get(id))) throw accountNotFound(id);
      const page = await stores.balances.history(id, filter, list);
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(balanceV1View) } });
    },
  );
}
