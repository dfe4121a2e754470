import type { Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { bankAccountNotFound } from '../commands/bank-account-forwarding.js';
import { nowText } from '../commands/clock.js';
import {
  bankAccountListView,
  bankAccountView,
  newBankAccount,
  withBankAccountMetadata,
} from '../domain/bank-account.js';
import { newRecordId, requireUuid } from '../domain/ids.js';
import { BANK_ACCOUNT_KIND } from '../store/kinds.js';
import { bankAccountInputSchema, bankAccountMetadataSchema } from './record-requests.js';
import { bankAccountData, bankAccountPage, createdId } from './schemas.js';
import type { StoresOf } from './stores-of.js';

/** Bank accounts (docs/api.md §6): numbers are shown whole only by a read of one bank account. */
export function bankAccountRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3CreateBankAccountRoute(app, storesOf);
  v3ListBankAccountsRoute(app, storesOf);
  v3GetBankAccountRoute(app, storesOf);
  v3UpdateBankAccountMetadataRoute(app, storesOf);
}

function v3CreateBankAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/bank-accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreateBankAccount',
        summary: 'Create a bank account',
        description:
          'An account number or an IBAN is required. Emits `payments.saved_bank_account` (numbers masked).',
        tags: ['bank accounts'],
        body: bankAccountInputSchema,
        responses: { 201: { description: 'The id of the new bank account.', schema: createdId } },
      },
    ),
    async (c) => {
      const input = await readJsonBody(c, bankAccountInputSchema);
      const stores = storesOf(c);
      const id = newRecordId();
      const record = newBankAccount(id, nowText(stores), input);
      await stores.bankAccounts.save(id, () => record);
      return jsonResponse(c, { data: id }, 201);
    },
  );
}

function v3ListBankAccountsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/bank-accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListBankAccounts',
        summary: 'List bank accounts',
        description: 'Oldest first; account numbers, IBANs and BICs are left out.',
        tags: ['bank accounts'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of bank accounts.', schema: bankAccountPage } },
      },
    ),
    async (c) => {
      const page = await storesOf(c).bankAccounts.list(
        readListQuery(c.req.query(), BANK_ACCOUNT_KIND.list),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(bankAccountListView) } });
    },
  );
}

function v3GetBankAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/bank-accounts/:bankAccountID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetBankAccount',
        summary: 'Get a bank account',
        tags: ['bank accounts'],
        responses: { 200: { description: 'The bank account.', schema: bankAccountData } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('bankAccountID'), 'bankAccountID');
      const record = await storesOf(c).bankAccounts.get(id);
      if (!record) throw bankAccountNotFound(id);
      return jsonResponse(c, { data: bankAccountView(record) });
    },
  );
}

function v3UpdateBankAccountMetadataRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.patch(
    '/v3/bank-accounts/:bankAccountID/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UpdateBankAccountMetadata',
        summary: "Set a bank account's metadata",
        description: 'Merged into the existing metadata.',
        tags: ['bank accounts'],
        body: bankAccountMetadataSchema,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = requireUuid(c.req.param('bankAccountID'), 'bankAccountID');
      const { metadata } = await readJsonBody(c, bankAccountMetadataSchema);
      await storesOf(c).bankAccounts.save(id, (current) => {
        if (!current) throw bankAccountNotFound(id);
        return withBankAccountMetadata(current, metadata ?? {});
      });
      return c.body(null, 204);
    },
  );
}

export { bankAccountNotFound };
