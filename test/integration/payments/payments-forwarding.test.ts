/**
 * Forwarding bank accounts to a connector (docs/api.md §6): the generic connector creates them at its provider (the
 * repository's fake provider, infra/local/fake-provider, on loopback), the provider's account becomes an external
 * account of the connector and a related account of the bank account; v3, a user's bank account, and v1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../../infra/local/fake-provider/server.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const API_KEY = 'sk-forward-0123';
let provider: FakeProvider;
let runtime: ServiceRuntime;
let call: PaymentsCall;

beforeAll(async () => {
  provider = await startFakeProvider({ apiKey: API_KEY });
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime));
});

afterAll(async () => {
  await provider?.close();
});

async function installGeneric(apiKey = API_KEY): Promise<string> {
  const res = await call('POST', '/v3/connectors/install/generic', {
    name: `gen-${Math.random().toString(36).slice(2, 8)}`,
    endpoint: provider.url,
    apiKey,
  });
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

async function bankAccount(name: string): Promise<string> {
  const res = await call('POST', '/v3/bank-accounts', {
    name,
    iban: 'FR7630006000011234567890189',
    swiftBicCode: 'AGRIFRPP',
    country: 'FR',
    metadata: { team: 'ops' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as string;
}

const task = async (id: string) => (await call('GET', `/v3/tasks/${id}`)).body.data;

describe('forwarding a bank account', () => {
  it('creates it at the provider, saves its external account and relates it, once per connector', async () => {
    const connectorID = await installGeneric();
    const id = await bankAccount('Acme Payroll');
    const before = provider.book.bankAccounts.length;
    const res = await call('POST', `/v3/bank-accounts/${id}/forward`, { connectorID });
    expect(res.status, res.text).toBe(202);
    expect(await task(res.body.data.taskID)).toMatchObject({
      id: res.body.data.taskID,
      connectorID,
      status: 'SUCCEEDED',
    });
    const sent = provider.book.bankAccounts[before]!;
    expect(sent).toEqual({
      name: 'Acme Payroll',
      iban: 'FR7630006000011234567890189',
      swiftBicCode: 'AGRIFRPP',
      country: 'FR',
      metadata: { team: 'ops' },
      id: sent.id,
      createdAt: sent.createdAt,
    });
    const account = accountId(connectorID, String(sent.id));
    const read = await call('GET', `/v3/bank-accounts/${id}`);
    expect(read.body.data.relatedAccounts).toEqual([
      { accountID: account, createdAt: read.body.data.relatedAccounts[0].createdAt },
    ]);
    const external = await call('GET', `/v3/accounts/${account}`);
    expect(external.body.data).toMatchObject({
      id: account,
      connectorID,
      reference: sent.id,
      type: 'EXTERNAL',
      name: 'Acme Payroll',
      metadata: { team: 'ops' },
    });
    // The numbers stay in the bank account: the account's raw payload does not carry them.
    expect(JSON.stringify(external.body.data)).not.toContain('FR7630006000011234567890189');
    const again = await call('POST', `/v3/bank-accounts/${id}/forward`, { connectorID });
    expect(again.status).toBe(409);
    expect(again.body.errorMessage).toBe(
      `bank account ${id} was already forwarded to connector ${connectorID} (account ${account})`,
    );
    expect(provider.book.bankAccounts).toHaveLength(before + 1);
  });

  it('refuses a missing bank account or connector and an empty body, writing nothing', async () => {
    const connectorID = await installGeneric();
    const id = await bankAccount('Nobody');
    const tasksBefore = (await scanTable(runtime, runtime.config.tables.payments)).length;
    const noConnector = await call('POST', `/v3/bank-accounts/${id}/forward`, {
      connectorID: 'eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJub3BlIn0',
    });
    expect(noConnector.status).toBe(404);
    const missing = await call(
      'POST',
      '/v3/bank-accounts/6f1c2b1e-0d5c-4a4e-9f55-5d8f0b8f0c11/forward',
      { connectorID },
    );
    expect(missing.body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: 'bank account 6f1c2b1e-0d5c-4a4e-9f55-5d8f0b8f0c11 not found',
    });
    const empty = await call('POST', `/v3/bank-accounts/${id}/forward`, {});
    expect(empty.status).toBe(400);
    expect((await scanTable(runtime, runtime.config.tables.payments)).length).toBe(tasksBefore);
  });

  it("records the provider's refusal on the task and relates nothing", async () => {
    const connectorID = await installGeneric('wrong-key');
    const id = await bankAccount('Refused');
    const res = await call('POST', `/v3/bank-accounts/${id}/forward`, { connectorID });
    expect(res.status).toBe(202);
    expect(await task(res.body.data.taskID)).toMatchObject({
      status: 'FAILED',
      error: 'provider answered 401: Unauthorized: unknown API key',
    });
    expect((await call('GET', `/v3/bank-accounts/${id}`)).body.data.relatedAccounts).toEqual([]);
  });

  it("forwards a payment service user's bank account, and only that user's", async () => {
    const connectorID = await installGeneric();
    const id = await bankAccount('Alice');
    const other = await bankAccount('Bob');
    const user = await call('POST', '/v3/payment-service-users', {
      name: 'Alice',
      bankAccountIDs: [id],
    });
    const psu = user.body.data as string;
    const notHers = await call(
      'POST',
      `/v3/payment-service-users/${psu}/bank-accounts/${other}/forward`,
      { connectorID },
    );
    expect(notHers.body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: `bank account ${other} not found`,
    });
    const res = await call('POST', `/v3/payment-service-users/${psu}/bank-accounts/${id}/forward`, {
      connectorID,
    });
    expect(res.status, res.text).toBe(202);
    expect((await task(res.body.data.taskID)).status).toBe('SUCCEEDED');
    const related = (await call('GET', `/v3/bank-accounts/${id}`)).body.data.relatedAccounts;
    expect(related).toHaveLength(1);
  });

  it('v1: forwards on creation and through /forward, answering the bank account', async () => {
    const connectorID = await installGeneric();
    const created = await call('POST', '/bank-accounts', {
      name: 'Carol',
      accountNumber: '12345678',
      country: 'GB',
      connectorID,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.data.relatedAccounts).toHaveLength(1);
    expect(created.body.data.relatedAccounts[0].connectorID).toBe(connectorID);
    const id = await bankAccount('Dan');
    const forwarded = await call('POST', `/bank-accounts/${id}/forward`, { connectorID });
    expect(forwarded.status, forwarded.text).toBe(200);
    expect(forwarded.body.data.id).toBe(id);
    expect(forwarded.body.data.relatedAccounts).toHaveLength(1);
    const typo = await call('POST', '/bank-accounts', {
      name: 'Eve',
      accountNumber: '87654321',
      country: 'GB',
      connectorID: 'eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJub3BlIn0',
    });
    expect(typo.status).toBe(404);
  });
});
