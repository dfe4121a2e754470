import type { Hono } from 'hono';
import { readJsonBody } from '../../../http/json-body.js';
import { jsonResponse } from '../../../http/json-response.js';
import type { HonoTypes } from '../../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../../openapi/describe.js';
import { readListQuery } from '../../../pagination/cursor.js';
import { forwardBankAccount } from '../../commands/bank-account-forwarding.js';
import { nowText } from '../../commands/clock.js';
import { requireConnector } from '../../commands/connectors.js';
import type { RunnerDeps } from '../../connectors/runner.js';
import { newBankAccount, withBankAccountMetadata } from '../../domain/bank-account.js';
import { newRecordId, requireUuid } from '../../domain/ids.js';
import { bankAccountV1View } from '../../domain/v1/v1-records.js';
import { BANK_ACCOUNT_KIND } from '../../store/kinds.js';
import { bankAccountNotFound } from '../bank-accounts.js';
import { bankAccountMetadataSchema } from '../record-requests.js';
import type { StoresOf } from '../stores-of.js';
import { bankAccountV1InputSchema } from './v1-requests.js';
import { bankAccountV1Data, bankAccountV1Page } from './v1-schemas.js';

const bankAccountIdOf = (raw: string) => requireUuid(raw, 'bankAccountId');

/** v1 bank accounts (docs/api.md §6.1): numbers shown whole only to their creator and a read by id. */
export function bankAccountV1Routes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  v1CreateBankAccountRoute(app, storesOf, deps);
  v1ListBankAccountsRoute(app, storesOf);
  v1GetBankAccountRoute(app, storesOf);
  v1UpdateBankAccountMetadataRoute(app, storesOf);
}

function v1CreateBankAccountRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/bank-accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1CreateBankAccount',
        summary: 'Create a bank account (v1)',
        description:
          'An account number or an IBAN is required. With `connectorID` it is forwarded to that connector on creation (as `POST /bank-accounts/<id>/forward`; the connector must exist, 404). Emits `payments.saved_bank_account`.',
        tags: ['payments v1'],
        body: bankAccountV1InputSchema,
        responses: { 200: { description: 'The bank account.', schema: bankAccountV1Data } },
      },
    ),
    async (c) => {
      const { connectorID, metadata, ...input } = await readJsonBody(c, bankAccountV1InputSchema);
      const stores = storesOf(c);
      // Checked before anything is written: a typo in the connector leaves no bank account behind.
      if (connectorID !== undefined) await requireConnector(stores, connectorID);
      const id = newRecordId();
      let record = newBankAccount(id, nowText(stores), { ...input, metadata: metadata ?? {} });
      await stores.bankAccounts.save(id, () => record);
      if (connectorID !== undefined) {
        await forwardBankAccount(stores, id, connectorID, deps);
        record = (await stores.bankAccounts.get(id)) ?? record;
      }
      return jsonResponse(c, { data: bankAccountV1View(record, true) });
    },
  );
}

function v1ListBankAccountsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/bank-accounts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListBankAccounts',
        summary: 'List bank accounts (v1)',
        description: 'Oldest first; account numbers, IBANs and BICs are left out.',
        tags: ['payments v1'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of bank accounts.', schema: bankAccountV1Page } },
      },
    ),
    async (c) => {
      const page = await storesOf(c).bankAccounts.list(
        readListQuery(c.req.query(), BANK_ACCOUNT_KIND.list),
      );
      const data = page.data.map((b) => bankAccountV1View(b, false));
      return jsonResponse(c, { cursor: { ...page, data } });
    },
  );
}

function v1GetBankAccountRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/bank-accounts/:bankAccountId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetBankAccount',
        summary: 'Get a bank account (v1)',
        tags: ['payments v1'],
        responses: { 200: { description: 'The bank account.', schema: bankAccountV1Data } },
      },
    ),
    async (c) => {
      const id = bankAccountIdOf(c.req.param('bankAccountId'));
      const record = await storesOf(c).bankAccounts.get(id);
      if (!record) throw bankAccountNotFound(id);
      return jsonResponse(c, { data: bankAccountV1View(record, true) });
    },
  );
}

function v1UpdateBankAccountMetadataRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.patch(
    '/bank-accounts/:bankAccountId/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1UpdateBankAccountMetadata',
        summary: "Set a bank account's metadata (v1)",
        description: 'Merged into the existing metadata.',
        tags: ['payments v1'],
        body: bankAccountMetadataSchema,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = bankAccountIdOf(c.req.param('bankAccountId'));
      const { metadata } = await readJsonBody(c, bankAccountMetadataSchema);
      await storesOf(c).bankAccounts.save(id, (current) => {
        if (!current) throw bankAccountNotFound(id);
        return withBankAccountMetadata(current, metadata ?? {});
      });
      return c.body(null, 204);
    },
  );
}
