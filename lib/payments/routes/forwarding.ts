import type { Hono } from 'hono';
import * as v from 'valibot';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { forwardBankAccount } from '../commands/bank-account-forwarding.js';
import type { RunnerDeps } from '../connectors/runner.js';
import { requireUuid } from '../domain/ids.js';
import { bankAccountV1View } from '../domain/v1/v1-records.js';
import { taskIdData } from './schemas.js';
import type { StoresOf } from './stores-of.js';
import { bankAccountV1Data } from './v1/v1-schemas.js';

const forwardSchema = v.strictObject({
  connectorID: v.pipe(v.string(), v.minLength(1, 'connectorID must not be empty')),
});

const FORWARD_DESCRIPTION =
  'The connector creates the bank account at its provider (the generic connector: `POST /bank-accounts`); the ' +
  "provider's account is saved as an external account of the connector and listed in the bank account's " +
  '`relatedAccounts`. Sent within the request: the task says how it went. Once per connector (409 after).';

/** Forwarding bank accounts to a connector (docs/api.md §6): the provider creates them (v3, and v1's one route). */
export function forwardingRoutes(app: Hono<HonoTypes>, storesOf: StoresOf, deps: RunnerDeps): void {
  v3ForwardBankAccountRoute(app, storesOf, deps);
  v3ForwardPaymentServiceUserBankAccountRoute(app, storesOf, deps);
  v1ForwardBankAccountRoute(app, storesOf, deps);
}

function v3ForwardBankAccountRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/v3/bank-accounts/:bankAccountID/forward',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ForwardBankAccount',
        summary: 'Forward a bank account to a connector',
        description: FORWARD_DESCRIPTION,
        tags: ['bank accounts'],
        body: forwardSchema,
        responses: { 202: { description: 'The forwarding task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('bankAccountID'), 'bankAccountID');
      const { connectorID } = await readJsonBody(c, forwardSchema);
      const task = await forwardBankAccount(storesOf(c), id, connectorID, deps);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3ForwardPaymentServiceUserBankAccountRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/v3/payment-service-users/:paymentServiceUserID/bank-accounts/:bankAccountID/forward',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ForwardPaymentServiceUserBankAccount',
        summary: "Forward a payment service user's bank account to a connector",
        description: `The bank account must be the user's (404 otherwise). ${FORWARD_DESCRIPTION}`,
        tags: ['payment service users'],
        body: forwardSchema,
        responses: { 202: { description: 'The forwarding task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const userId = requireUuid(c.req.param('paymentServiceUserID'), 'paymentServiceUserID');
      const id = requireUuid(c.req.param('bankAccountID'), 'bankAccountID');
      const { connectorID } = await readJsonBody(c, forwardSchema);
      const task = await forwardBankAccount(storesOf(c), id, connectorID, deps, userId);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v1ForwardBankAccountRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/bank-accounts/:bankAccountId/forward',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ForwardBankAccount',
        summary: 'Forward a bank account to a connector (v1)',
        description: `As v3's; answers the bank account (its numbers, as the read by id). ${FORWARD_DESCRIPTION}`,
        tags: ['payments v1'],
        body: forwardSchema,
        responses: { 200: { description: 'The bank account.', schema: bankAccountV1Data } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('bankAccountId'), 'bankAccountId');
      const { connectorID } = await readJsonBody(c, forwardSchema);
      const stores = storesOf(c);
      await forwardBankAccount(stores, id, connectorID, deps);
      const record = await stores.bankAccounts.get(id);
      return jsonResponse(c, { data: bankAccountV1View(record!, true) });
    },
  );
}
