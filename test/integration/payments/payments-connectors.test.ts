/**
 * Connectors (docs/api.md §6): the generic connector installed over HTTP against a fake provider this test starts
 * on loopback (the reference's generic connector API: accounts, balances, beneficiaries, transactions), its
 * schedules run by the same function the worker and the local timer run, with cursors, rate limits and provider
 * errors; then reset and uninstall.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { runSchedule } from '../../../lib/payments/connectors/runner.js';
import { runDueSchedules } from '../../../lib/payments/connectors/tick.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { paymentsStores } from '../../../lib/payments/store/stores.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const API_KEY = 'sk-test-0123456789';

/** The fake provider's data and behaviour, changed by the tests. */
const provider = {
  accounts: [] as Array<Record<string, unknown>>,
  beneficiaries: [] as Array<Record<string, unknown>>,
  transactions: [] as Array<Record<string, unknown>>,
  balances: {} as Record<
    string,
    { at: string; balances: Array<{ amount: string; currency: string }> }
  >,
  /** Answer 429 (Retry-After: 2) to this many requests first. */
  rateLimited: 0,
  /** Answer this status to every request while set. */
  failWith: undefined as number | undefined,
  requests: [] as string[],
};

let server: Server;
let endpoint: string;
let runtime: ServiceRuntime;
let call: PaymentsCall;
let clock = Date.parse('2026-11-25T10:00:00Z');
const waits: number[] = [];

function list(res: ServerResponse, url: URL, all: Array<Record<string, unknown>>, field: string) {
  const since = url.searchParams.get(field);
  const sorted = [...all]
    .filter(
      (i) =>
        since === null || Date.parse(String(i[field.replace('From', '')])) >= Date.parse(since),
    )
    .sort((a, b) =>
      String(a[field.replace('From', '')]).localeCompare(String(b[field.replace('From', '')])),
    );
  const page = Number(url.searchParams.get('page'));
  const size = Number(url.searchParams.get('pageSize'));
  res.end(JSON.stringify(sorted.slice((page - 1) * size, page * size)));
}

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://provider');
  provider.requests.push(`${url.pathname}${url.search}`);
  res.setHeader('content-type', 'application/json');
  if (req.headers.authorization !== `Bearer ${API_KEY}`) {
    res.statusCode = 401;
    return res.end(JSON.stringify({ Title: 'Unauthorized', Detail: 'bad key' }));
  }
  if (provider.rateLimited > 0) {
    provider.rateLimited--;
    res.statusCode = 429;
    res.setHeader('retry-after', '2');
    return res.end('{}');
  }
  if (provider.failWith !== undefined) {
    res.statusCode = provider.failWith;
    return res.end(JSON.stringify({ Title: 'Maintenance', Detail: 'try later' }));
  }
  const balance = /^\/accounts\/([^/]+)\/balances$/.exec(url.pathname);
  if (balance)
    return res.end(
      JSON.stringify(
        provider.balances[decodeURIComponent(balance[1]!)] ?? {
          at: '2026-11-25T09:00:00Z',
          balances: [],
        },
      ),
    );
  if (url.pathname === '/accounts') return list(res, url, provider.accounts, 'createdAtFrom');
  if (url.pathname === '/beneficiaries')
    return list(res, url, provider.beneficiaries, 'createdAtFrom');
  if (url.pathname === '/transactions')
    return list(res, url, provider.transactions, 'updatedAtFrom');
  res.statusCode = 404;
  res.end(JSON.stringify({ Title: 'Not found', Detail: url.pathname }));
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime, { now: () => clock }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const stores = () =>
  paymentsStores(
    {
      doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
      table: runtime.config.tables.payments,
      eventsTable: runtime.config.tables.events,
      now: () => clock,
    },
    'default',
  );

const deps = {
  fetch: globalThis.fetch,
  dummypay: { stage: 'local' },
  now: () => clock,
  sleep: async (ms: number) => {
    waits.push(ms);
  },
};

async function install(overrides: Record<string, unknown> = {}) {
  const res = await call('POST', '/v3/connectors/install/generic', {
    provider: 'Generic',
    name: `generic-${Math.random().toString(36).slice(2, 8)}`,
    endpoint,
    apiKey: API_KEY,
    pollingPeriod: '5m',
    pageSize: 2,
    ...overrides,
  });
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

/** Runs every schedule of a connector once (as the timer would when they are due). */
async function runAll(connectorID: string) {
  const s = stores();
  const page = await s.schedules.list(connectorID, { pageSize: 100 });
  const outcomes: Record<string, string> = {};
  for (const schedule of page.data)
    outcomes[schedule.taskType] = await runSchedule(s, schedule, deps);
  return outcomes;
}

describe('installing a connector', () => {
  it('checks the config against the provider, never answers the secret, and creates its schedules', async () => {
    const bad = await call('POST', '/v3/connectors/install/generic', {
      name: 'gen',
      endpoint: 'ftp://x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('VALIDATION');
    const plainHttp = await call('POST', '/v3/connectors/install/generic', {
      name: 'gen',
      apiKey: 'k',
      endpoint: 'http://provider.example.com',
    });
    expect(plainHttp.body.errorMessage).toBe(
      'body.endpoint: must be an https URL (http only to a loopback address)',
    );
    const unknown = await call('POST', '/v3/connectors/install/acme', { name: 'acme' });
    expect(unknown.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'connector: unknown provider acme (known: generic, dummypay)',
    });
    const fast = await call('POST', '/v3/connectors/install/generic', {
      name: 'gen',
      apiKey: 'k',
      endpoint,
      pollingPeriod: '1s',
    });
    expect(fast.body.errorMessage).toBe('body.pollingPeriod: must be at least 30s');

    const id = await install({ name: 'main-bank' });
    const config = await call('GET', `/v3/connectors/${id}/config`);
    expect(config.body).toEqual({
      data: {
        provider: 'Generic',
        name: 'main-bank',
        pollingPeriod: '5m',
        pageSize: 2n,
        endpoint,
        apiKey: '********',
      },
    });
    expect((await call('GET', '/v3/connectors?pageSize=1000')).text).not.toContain(API_KEY);
    const listed = (await call('GET', '/v3/connectors?pageSize=1000')).body.cursor.data.find(
      (c: { id: string }) => c.id === id,
    );
    expect(listed).toMatchObject({
      id,
      name: 'main-bank',
      provider: 'generic',
      scheduledForDeletion: false,
    });
    const schedules = await call('GET', `/v3/connectors/${id}/schedules`);
    expect(schedules.body.cursor.data.map((s: { id: string }) => s.id).sort()).toEqual(
      [`fetch-accounts.${id}`, `fetch-external-accounts.${id}`, `fetch-payments.${id}`].sort(),
    );

    // A config update: the masked secret sent back keeps the stored key; the name changes.
    const update = await call('PATCH', `/v3/connectors/${id}/config`, {
      ...config.body.data,
      name: 'main-bank-2',
    });
    expect(update.status, update.text).toBe(204);
    expect((await call('GET', `/v3/connectors/${id}/config`)).body.data.name).toBe('main-bank-2');
    const stored = (await scanTable(runtime, runtime.config.tables.payments)).find(
      (i) => i.sk === 'CONNECTOR' && i.id === id,
    );
    expect(String(stored!.config)).toContain(API_KEY);
    expect((await call('GET', `/v3/connectors/${id}/capabilities`)).body.data).toContain(
      'FETCH_BALANCES',
    );
  });
});

describe('running a connector', () => {
  it('fetches accounts, balances, beneficiaries and transactions page by page, resumes from its cursors, and waits out a 429', async () => {
    provider.accounts = [
      {
        id: 'acc-1',
        accountName: 'Main EUR',
        createdAt: '2026-11-01T00:00:00Z',
        metadata: { iban: 'FR76' },
      },
      { id: 'acc-2', accountName: 'Main USD', createdAt: '2026-11-02T00:00:00Z' },
      { id: 'acc-3', accountName: 'Reserve', createdAt: '2026-11-03T00:00:00Z', metadata: null },
    ];
    provider.beneficiaries = [
      { id: 'ben-1', ownerName: 'Alice', createdAt: '2026-11-04T00:00:00Z' },
    ];
    provider.balances = {
      'acc-1': { at: '2026-11-25T09:00:00Z', balances: [{ amount: '150000', currency: 'EUR/2' }] },
      'acc-2': { at: '2026-11-25T09:00:00Z', balances: [{ amount: '-20', currency: 'USD/2' }] },
    };
    provider.transactions = [
      {
        id: 'tx-1',
        createdAt: '2026-11-05T00:00:00Z',
        updatedAt: '2026-11-05T00:00:00Z',
        currency: 'EUR/2',
        type: 'PAYOUT',
        status: 'PENDING',
        amount: '2500',
        sourceAccountID: 'acc-1',
        destinationAccountID: 'ben-1',
        scheme: 'sepa_credit',
      },
    ];
    provider.rateLimited = 1;
    const id = await install();
    expect(await runAll(id)).toEqual({
      FETCH_ACCOUNTS: 'done',
      FETCH_EXTERNAL_ACCOUNTS: 'done',
      FETCH_PAYMENTS: 'done',
    });
    expect(waits).toContain(2000);

    const accounts = (await call('GET', '/v3/accounts?pageSize=1000')).body.cursor.data.filter(
      (a: { connectorID: string }) => a.connectorID === id,
    );
    expect(
      accounts.map((a: { reference: string; type: string }) => `${a.reference}:${a.type}`).sort(),
    ).toEqual(['acc-1:INTERNAL', 'acc-2:INTERNAL', 'acc-3:INTERNAL', 'ben-1:EXTERNAL']);
    const acc1 = accounts.find((a: { reference: string }) => a.reference === 'acc-1');
    expect(acc1).toMatchObject({
      id: accountId(id, 'acc-1'),
      provider: 'generic',
      name: 'Main EUR',
      metadata: { iban: 'FR76' },
    });
    const balances = await call('GET', `/v3/accounts/${accountId(id, 'acc-1')}/balances`);
    expect(balances.body.cursor.data).toEqual([
      {
        accountID: accountId(id, 'acc-1'),
        asset: 'EUR/2',
        balance: 150000n,
        createdAt: '2026-11-25T09:00:00Z',
        lastUpdatedAt: '2026-11-25T09:00:00Z',
      },
    ]);
    const payment = await call('GET', `/v3/payments/${paymentId(id, 'tx-1', 'PAYOUT')}`);
    expect(payment.body.data).toMatchObject({
      connectorID: id,
      provider: 'generic',
      reference: 'tx-1',
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'SEPA_CREDIT',
      amount: 2500n,
      sourceAccountID: accountId(id, 'acc-1'),
      destinationAccountID: accountId(id, 'ben-1'),
    });

    // The cursors: the accounts schedule read acc-1..acc-3 in two pages of 2 and remembers the last.
    const schedule = await stores().schedules.get(id, `fetch-accounts.${id}`);
    expect(schedule!.state).toEqual({ since: '2026-11-03T00:00:00Z' });
    expect(schedule!.nextRunAtMs).toBe(clock + 5 * 60_000);

    // Not due yet: nothing runs. Then, due, a run brings only what changed: tx-1 succeeded, a new account.
    expect(await runAll(id)).toEqual({
      FETCH_ACCOUNTS: 'skipped',
      FETCH_EXTERNAL_ACCOUNTS: 'skipped',
      FETCH_PAYMENTS: 'skipped',
    });
    clock += 5 * 60_000;
    provider.transactions[0] = {
      ...provider.transactions[0],
      status: 'SUCCEEDED',
      updatedAt: '2026-11-06T00:00:00Z',
    };
    provider.accounts.push({ id: 'acc-4', accountName: 'New', createdAt: '2026-11-07T00:00:00Z' });
    provider.balances['acc-1'] = {
      at: '2026-11-25T10:05:00Z',
      balances: [{ amount: '100000', currency: 'EUR/2' }],
    };
    provider.requests = [];
    await runAll(id);
    expect(provider.requests).toContain(
      '/accounts?page=1&pageSize=2&sort=createdAt%3Aasc&createdAtFrom=2026-11-03T00%3A00%3A00Z',
    );
    const after = (await call('GET', `/v3/payments/${paymentId(id, 'tx-1', 'PAYOUT')}`)).body.data;
    expect(after.status).toBe('SUCCEEDED');
    expect(after.adjustments.map((a: { status: string }) => a.status)).toEqual([
      'SUCCEEDED',
      'PENDING',
    ]);
    expect((await call('GET', `/v3/accounts/${accountId(id, 'acc-4')}`)).status).toBe(200);
    const history = await call('GET', `/v3/accounts/${accountId(id, 'acc-1')}/balances`);
    expect(history.body.cursor.data.map((b: { balance: bigint }) => b.balance)).toEqual([
      100000n,
      150000n,
    ]);

    // Runs are readable as the schedule's instances, newest first.
    const instances = await call(
      'GET',
      `/v3/connectors/${id}/schedules/fetch-payments.${id}/instances`,
    );
    expect(instances.body.cursor.data).toHaveLength(2);
    expect(
      instances.body.cursor.data.every(
        (i: { terminated: boolean; error?: string }) => i.terminated && i.error === undefined,
      ),
    ).toBe(true);
  });

  it('records a provider error on the run and retries from the same cursor', async () => {
    provider.accounts = [{ id: 'e-1', accountName: 'E', createdAt: '2026-11-01T00:00:00Z' }];
    provider.beneficiaries = [];
    provider.transactions = [];
    const id = await install();
    provider.failWith = 503;
    const outcomes = await runAll(id);
    expect(outcomes.FETCH_ACCOUNTS).toBe('failed');
    const instances = await call(
      'GET',
      `/v3/connectors/${id}/schedules/fetch-accounts.${id}/instances`,
    );
    expect(instances.body.cursor.data[0].error).toBe(
      'provider answered 503: Maintenance: try later',
    );
    const schedule = await stores().schedules.get(id, `fetch-accounts.${id}`);
    expect(schedule!.state).toEqual({});
    expect(schedule!.nextRunAtMs).toBe(clock + 60_000);
    provider.failWith = undefined;
    clock += 60_000;
    expect((await runAll(id)).FETCH_ACCOUNTS).toBe('done');
    expect((await call('GET', `/v3/accounts/${accountId(id, 'e-1')}`)).status).toBe(200);
  });
});

describe('reset and uninstall', () => {
  it('reset removes the data and starts over; uninstall removes the connector and all it brought', async () => {
    provider.accounts = [{ id: 'r-1', accountName: 'R', createdAt: '2026-11-01T00:00:00Z' }];
    provider.balances = {
      'r-1': { at: '2026-11-25T09:00:00Z', balances: [{ amount: '5', currency: 'EUR/2' }] },
    };
    provider.transactions = [
      {
        id: 'rt-1',
        createdAt: '2026-11-05T00:00:00Z',
        updatedAt: '2026-11-05T00:00:00Z',
        currency: 'EUR/2',
        type: 'PAYIN',
        status: 'SUCCEEDED',
        amount: '5',
      },
    ];
    const id = await install();
    await runAll(id);
    const account = accountId(id, 'r-1');
    const payment = paymentId(id, 'rt-1', 'PAY-IN');
    expect((await call('GET', `/v3/payments/${payment}`)).status).toBe(200);

    const reset = await call('POST', `/v3/connectors/${id}/reset`);
    expect(reset.status, reset.text).toBe(202);
    const task = await call('GET', `/v3/tasks/${reset.body.data}`);
    expect(task.body.data).toMatchObject({
      id: reset.body.data,
      connectorID: id,
      status: 'SUCCEEDED',
    });
    expect((await call('GET', `/v3/payments/${payment}`)).status).toBe(404);
    expect((await call('GET', `/v3/accounts/${account}`)).status).toBe(404);
    expect((await stores().schedules.get(id, `fetch-accounts.${id}`))!.state).toEqual({});
    await runAll(id);
    expect((await call('GET', `/v3/accounts/${account}`)).status).toBe(200);

    const uninstall = await call('DELETE', `/v3/connectors/${id}`);
    expect(uninstall.status, uninstall.text).toBe(202);
    const done = await call('GET', `/v3/tasks/${uninstall.body.data.taskID}`);
    expect(done.body.data.status).toBe('SUCCEEDED');
    expect((await call('GET', `/v3/connectors/${id}/config`)).status).toBe(404);
    expect((await call('GET', `/v3/accounts/${account}`)).status).toBe(404);
    expect((await call('GET', `/v3/payments/${payment}`)).status).toBe(404);
    // Nothing of it is left but its two tasks (the record of what was done).
    const left = (await scanTable(runtime, runtime.config.tables.payments)).filter(
      (i) => String(i.pk).includes(id) || i.connectorID === id || i.accountID === account,
    );
    expect(left.map((i) => `${i.pk} ${i.sk}`).sort()).toEqual(
      [
        `E#default#TASK#${reset.body.data} TASK`,
        `E#default#TASK#${uninstall.body.data.taskID} TASK`,
      ].sort(),
    );
  });
});

describe('the local timer', () => {
  it('runs every due schedule once per tick, and none that is not due', async () => {
    provider.accounts = [{ id: 't-1', accountName: 'T', createdAt: '2026-11-01T00:00:00Z' }];
    provider.beneficiaries = [];
    provider.transactions = [];
    provider.balances = {};
    const id = await install();
    const config = {
      doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
      table: runtime.config.tables.payments,
      eventsTable: runtime.config.tables.events,
      now: () => clock,
    };
    const first = await runDueSchedules(config, deps);
    // This connector's three schedules ran (others of this file may be due too).
    expect(first.done).toBeGreaterThanOrEqual(3);
    expect(first.failed).toBe(0);
    expect((await call('GET', `/v3/accounts/${accountId(id, 't-1')}`)).status).toBe(200);
    const again = await runDueSchedules(config, deps);
    expect(again).toEqual({ skipped: 0, done: 0, more: 0, failed: 0 });
  });
});
