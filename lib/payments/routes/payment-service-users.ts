import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { nowText } from '../commands/clock.js';
import {
  addBankAccountToUser,
  createPaymentServiceUser,
  deletePaymentServiceUser,
} from '../commands/payment-service-users.js';
import { newRecordId, requireUuid } from '../domain/ids.js';
import { PSU_KIND } from '../store/kinds.js';
import { paymentServiceUserInputSchema } from './record-requests.js';
import {
  createdId,
  paymentServiceUserData,
  paymentServiceUserPage,
  taskIdData,
} from './schemas.js';
import type { StoresOf } from './stores-of.js';

/** Payment service users (docs/api.md §6): the platform user's customers and their bank accounts. */
export function paymentServiceUserRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3CreatePaymentServiceUserRoute(app, storesOf);
  v3ListPaymentServiceUsersRoute(app, storesOf);
  v3GetPaymentServiceUserRoute(app, storesOf);
  v3DeletePaymentServiceUserRoute(app, storesOf);
  v3AddBankAccountToPaymentServiceUserRoute(app, storesOf);
}

function v3CreatePaymentServiceUserRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/payment-service-users',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreatePaymentServiceUser',
        summary: 'Create a payment service user',
        description:
          'The bank accounts named in `bankAccountIDs` must exist and belong to no other user.',
        tags: ['payment service users'],
        body: paymentServiceUserInputSchema,
        responses: { 201: { description: 'The id of the new user.', schema: createdId } },
      },
    ),
    async (c) => {
      const { bankAccountIDs, ...input } = await readJsonBody(c, paymentServiceUserInputSchema);
      const ids = (bankAccountIDs ?? []).map((id, i) =>
        requireUuid(id, `body.bankAccountIDs[${i}]`),
      );
      const stores = storesOf(c);
      const id = newRecordId();
      await createPaymentServiceUser(stores, id, nowText(stores), {
        ...input,
        bankAccountIDs: ids,
      });
      return jsonResponse(c, { data: id }, 201);
    },
  );
}

function v3ListPaymentServiceUsersRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/payment-service-users',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPaymentServiceUsers',
        summary: 'List payment service users',
        tags: ['payment service users'],
        parameters: PAGE_PARAMETERS,
        responses: {
          200: { description: 'A page of users, oldest first.', schema: paymentServiceUserPage },
        },
      },
    ),
    async (c) => {
      const page = await storesOf(c).users.list(readListQuery(c.req.query(), PSU_KIND.list));
      return jsonResponse(c, { cursor: page });
    },
  );
}

function v3GetPaymentServiceUserRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/payment-service-users/:paymentServiceUserID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPaymentServiceUser',
        summary: 'Get a payment service user',
        tags: ['payment service users'],
        responses: { 200: { description: 'The user.', schema: paymentServiceUserData } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('paymentServiceUserID'), 'paymentServiceUserID');
      const user = await storesOf(c).users.get(id);
      if (!user) throw new NotFoundError(`payment service user ${id} not found`);
      return jsonResponse(c, { data: user });
    },
  );
}

function v3DeletePaymentServiceUserRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/v3/payment-service-users/:paymentServiceUserID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3DeletePaymentServiceUser',
        summary: 'Delete a payment service user',
        description: 'Its bank accounts are kept, no longer linked to it.',
        tags: ['payment service users'],
        responses: { 202: { description: 'The deletion task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('paymentServiceUserID'), 'paymentServiceUserID');
      const task = await deletePaymentServiceUser(storesOf(c), id);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3AddBankAccountToPaymentServiceUserRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/payment-service-users/:paymentServiceUserID/bank-accounts/:bankAccountID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3AddBankAccountToPaymentServiceUser',
        summary: 'Add a bank account to a payment service user',
        description:
          'A bank account belongs to one user at most: linking one held by another user is a 409.',
        tags: ['payment service users'],
        responses: { 204: { description: 'Linked.' } },
      },
    ),
    async (c) => {
      const userId = requireUuid(c.req.param('paymentServiceUserID'), 'paymentServiceUserID');
      const bankAccountId = requireUuid(c.req.param('bankAccountID'), 'bankAccountID');
      await addBankAccountToUser(storesOf(c), userId, bankAccountId);
      return c.body(null, 204);
    },
  );
}
