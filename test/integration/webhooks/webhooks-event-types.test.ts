import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../../events/catalog.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { createWebhooksApp } from '../../../lib/webhooks/app.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { type JsonCall, jsonCaller } from '../../support/json-call.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { paymentBody, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

let runtime: ServiceRuntime;
let webhooks: JsonCall;
let catalogue: Array<{
  name: string;
  app: string;
  version: string;
  description: string;
  schema: Record<string, any>;
}>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  const app = createWebhooksApp(runtime, { documents: generatedDocuments });
  webhooks = jsonCaller(app, '/api/webhooks', await tokenFor(authApp(runtime), ADMIN), JSON.parse);
  const res = await webhooks('GET', '/event-types');
  expect(res.status).toBe(200);
  catalogue = res.body.data;
});

describe('GET /event-types', () => {
  it('lists every kind a config may subscribe to, with its service, version and description', () => {
    expect(catalogue.map((t) => t.name)).toEqual([...EVENT_KINDS]);
    expect(catalogue.find((t) => t.name === 'webhooks.endpoint_disabled')).toMatchObject({
      app: 'webhooks',
      version: 'v2',
      description:
        'A config was switched off: its endpoint failed every attempt for the configured period, or answered 410 Gone.',
    });
    for (const t of catalogue) {
      expect(t.schema.properties.type).toEqual({ const: t.name });
      expect(t.schema.properties.app).toEqual({ const: t.app });
      // Self-contained: no reference into a document the receiver does not have.
      expect(JSON.stringify(t.schema)).not.toContain('$ref');
    }
  });

  it('needs a token', async () => {
    const app = createWebhooksApp(runtime, { documents: generatedDocuments });
    const res = await app.request('/api/webhooks/event-types');
    expect(res.status).toBe(401);
  });

  it('each schema accepts the events the services emit, and refuses one with a field missing', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validators = new Map(catalogue.map((t) => [t.name, ajv.compile(t.schema)]));

    // Ledger: a transaction, metadata set and deleted, a revert, balance monitors (created: ledger.updated_mapping) they trigger.
    const { call: ledger } = await ledgerClient(runtime);
    expect((await ledger('POST', '/v2/evt')).status).toBe(204);
    // Balance monitors: one on every change, one with an amount (the revert crosses it).
    for (const condition of [{ type: 'changes' }, { type: 'below', amount: 50 }])
      expect(
        (
          await ledger('POST', '/v2/evt/monitors', {
            account: 'users:*',
            asset: 'USD/2',
            condition,
          })
        ).status,
      ).toBe(201);
    const tx = await ledger('POST', '/v2/evt/transactions', {
      postings: [{ source: 'world', destination: 'users:1', amount: 100n, asset: 'USD/2' }],
      metadata: { order: '42' },
    });
    expect(tx.status).toBe(200);
    expect(
      (await ledger('POST', '/v2/evt/accounts/users:1/metadata', { tier: 'gold' })).status,
    ).toBe(204);
    expect((await ledger('DELETE', '/v2/evt/accounts/users:1/metadata/tier')).status).toBe(204);
    expect((await ledger('POST', `/v2/evt/transactions/${tx.body.data.id}/revert`)).status).toBe(
      201,
    );
    // Payments: a payment, an account, a bank account, a pool created and deleted.
    const { call: payments } = await paymentsClient(runtime);
    expect((await payments('POST', '/v3/payments', paymentBody())).status).toBe(201);
    const account = await payments('POST', '/v3/accounts', {
      reference: 'acc-1',
      connectorID: 'bank-1',
      createdAt: '2026-11-22T10:04:05Z',
      accountName: 'Main',
      type: 'INTERNAL',
    });
    expect(account.status).toBe(201);
    const bank = await payments('POST', '/v3/bank-accounts', {
      name: 'b',
      accountNumber: '1234567',
    });
    expect(bank.status).toBe(201);
    const pool = await payments('POST', '/v3/pools', {
      name: 'p',
      accountIDs: [account.body.data.id],
    });
    expect(pool.status).toBe(201);
    expect((await payments('DELETE', `/v3/pools/${pool.body.data}`)).status).toBe(204);

    const emitted = [
      ...(await ledgerEventsOf(runtime, 'evt')).map((e) => e.body),
      ...(await scanTable(runtime, runtime.config.tables.events)).map((r) => String(r.body)),
    ].map((body) => JSON.parse(body) as { type: string; payload: Record<string, unknown> });
    const kinds = [...new Set(emitted.map((e) => e.type))].sort();
    expect(kinds).toEqual([
      'ledger.balance_monitor_triggered',
      'ledger.committed_transactions',
      'ledger.deleted_metadata',
      'ledger.reverted_transaction',
      'ledger.saved_metadata',
      'ledger.updated_mapping',
      'payments.deleted_pool',
      'payments.saved_account',
      'payments.saved_bank_account',
      'payments.saved_payment',
      'payments.saved_pool',
    ]);
    for (const event of emitted) {
      const validate = validators.get(event.type)!;
      expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const firstField = Object.keys(event.payload)[0]!;
      const { [firstField]: _, ...without } = event.payload;
      expect(validate({ ...event, payload: without }), `${event.type} without ${firstField}`).toBe(
        false,
      );
    }
  });
});
