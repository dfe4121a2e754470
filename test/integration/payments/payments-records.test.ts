/**
 * Payments v3 records beside payments: accounts and their balances, bank accounts, payment service users and pools
 * (docs/api.md §6), over HTTP against DynamoDB Local, each change with its `payments.saved_*` event row written in
 * the same transaction.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import { paymentsStores } from '../../../lib/payments/store/stores.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: PaymentsCall;
let seq = 0;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime));
});

/** The default environment's stores, as a connector's task would write through them. */
const stores = () =>
  paymentsStores(
    {
      doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
      table: runtime.config.tables.payments,
      eventsTable: runtime.config.tables.events,
    },
    'default',
  );

/** The events of one record, oldest version first. */
async function recordEvents(recordId: string) {
  const rows = (await scanTable(runtime, runtime.config.tables.events)).filter(
    (r) => r.recordId === recordId,
  );
  // In the order the record changed: by its version, a deletion (written with the version it removed) last.
  // Not by `date`: its fraction drops trailing zeros, so its text does not sort as its time does.
  const rank = (r: Record<string, unknown>) =>
    Number(r.recordVersion) * 2 + (String(r.type).startsWith('payments.deleted_') ? 1 : 0);
  return rows.sort((a, b) => rank(a) - rank(b)).map((r) => parseJson(String(r.body)) as any);
}

async function createAccount(overrides: Record<string, unknown> = {}) {
  const body = {
    reference: `acc-${++seq}-${Date.now().toString(36)}`,
    connectorID: 'bank-1',
    createdAt: '2026-11-20T08:00:00Z',
    accountName: 'Main',
    type: 'INTERNAL',
    defaultAsset: 'EUR/2',
    ...overrides,
  };
  const res = await call('POST', '/v3/accounts', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; reference: string };
}

describe('accounts', () => {
  it('creates an account (201) with a deterministic id and the request as raw, and emits payments.saved_account', async () => {
    const body = {
      reference: `acc-main-${Date.now().toString(36)}`,
      connectorID: 'bank-1',
      createdAt: '2026-11-20T08:00:00.5Z',
      accountName: 'Main',
      type: 'INTERNAL',
      defaultAsset: 'EUR/2',
      metadata: { team: 'ops' },
    };
    const res = await call('POST', '/v3/accounts', body);
    expect(res.status, res.text).toBe(201);
    const id = accountId('bank-1', body.reference);
    const expected = {
      id,
      connectorID: 'bank-1',
      provider: 'bank-1',
      reference: body.reference,
      createdAt: '2026-11-20T08:00:00.5Z',
      type: 'INTERNAL',
      name: 'Main',
      defaultAsset: 'EUR/2',
      metadata: { team: 'ops' },
      raw: body,
    };
    expect(res.body).toEqual({ data: expected });
    expect((await call('GET', `/v3/accounts/${id}`)).body).toEqual({ data: expected });

    const events = await recordEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      app: 'payments',
      type: 'payments.saved_account',
      idempotency_key: `${id}/1`,
      payload: expected,
    });

    // The same (connectorID, reference) again, unchanged: nothing written, no second event.
    expect((await call('POST', '/v3/accounts', body)).status).toBe(201);
    expect(await recordEvents(id)).toHaveLength(1);
    // Its type cannot change.
    const changed = await call('POST', '/v3/accounts', { ...body, type: 'EXTERNAL' });
    expect(changed.status).toBe(409);
    expect(changed.body.errorCode).toBe('CONFLICT');
  });

  it('refuses bad input with the field named, and answers 404 for an unknown account', async () => {
    const bad = await call('POST', '/v3/accounts', {
      reference: 'x',
      connectorID: 'bank-1',
      createdAt: '2026-11-20T08:00:00Z',
      accountName: 'Main',
      type: 'SAVINGS',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body.type: must be one of INTERNAL, EXTERNAL',
    });
    const missing = await call('GET', `/v3/accounts/${accountId('bank-1', 'never')}`);
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('NOT_FOUND');
  });

  it('lists accounts oldest first, page by page', async () => {
    const made = [await createAccount(), await createAccount(), await createAccount()];
    const seen: string[] = [];
    let res = await call('GET', '/v3/accounts?pageSize=2');
    for (;;) {
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.cursor.data.map((a: { id: string }) => a.id));
      if (!res.body.cursor.hasMore) break;
      res = await call('GET', `/v3/accounts?cursor=${res.body.cursor.next}`);
    }
    for (const a of made) expect(seen).toContain(a.id);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('balances', () => {
  it('keeps periods of constant balance: the same amount extends one, a new amount opens the next', async () => {
    const account = await createAccount();
    const s = stores();
    const read = (balance: bigint, at: string) =>
      s.balances.record({ accountID: account.id, asset: 'EUR/2', balance, at }, 'bank-1');
    expect(await read(1000n, '2026-11-21T10:00:00Z')).toBe('opened');
    expect(await read(1000n, '2026-11-21T11:00:00Z')).toBe('extended');
    expect(await read(1000n, '2026-11-21T10:30:00Z')).toBe('stale');
    expect(await read(-250n, '2026-11-21T12:00:00Z')).toBe('opened');
    expect(
      await s.balances.record(
        { accountID: account.id, asset: 'USD/2', balance: 7n, at: '2026-11-21T09:00:00Z' },
        'bank-1',
      ),
    ).toBe('opened');

    const all = await call('GET', `/v3/accounts/${account.id}/balances`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.cursor.data).toEqual([
      {
        accountID: account.id,
        asset: 'USD/2',
        balance: 7n,
        createdAt: '2026-11-21T09:00:00Z',
        lastUpdatedAt: '2026-11-21T09:00:00Z',
      },
      {
        accountID: account.id,
        asset: 'EUR/2',
        balance: -250n,
        createdAt: '2026-11-21T12:00:00Z',
        lastUpdatedAt: '2026-11-21T12:00:00Z',
      },
      {
        accountID: account.id,
        asset: 'EUR/2',
        balance: 1000n,
        createdAt: '2026-11-21T10:00:00Z',
        lastUpdatedAt: '2026-11-21T11:00:00Z',
      },
    ]);
    const eur = await call(
      'GET',
      `/v3/accounts/${account.id}/balances?asset=EUR/2&toTimestamp=2026-11-21T11:30:00Z`,
    );
    expect(eur.body.cursor.data.map((b: { balance: bigint }) => b.balance)).toEqual([1000n]);
    const recent = await call(
      'GET',
      `/v3/accounts/${account.id}/balances?asset=EUR/2&from=2026-11-21T11:30:00Z`,
    );
    expect(recent.body.cursor.data.map((b: { balance: bigint }) => b.balance)).toEqual([-250n]);

    // One event per period opened, none for a confirmation.
    const balanceEvents = (await scanTable(runtime, runtime.config.tables.events))
      .filter((r) => r.recordKind === 'BALANCE' && r.recordId === account.id)
      .map((r) => (parseJson(String(r.body)) as any).payload.balance)
      .sort();
    expect(balanceEvents).toEqual([-250n, 1000n, 7n].sort());
  });

  it('refuses a reading for an account that does not exist, and a bad date filter', async () => {
    await expect(
      stores().balances.record(
        {
          accountID: accountId('bank-1', 'ghost'),
          asset: 'EUR/2',
          balance: 1n,
          at: '2026-11-21T09:00:00Z',
        },
        'bank-1',
      ),
    ).rejects.toThrow(/not found/);
    const account = await createAccount();
    const bad = await call('GET', `/v3/accounts/${account.id}/balances?from=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('VALIDATION');
  });
});

describe('bank accounts', () => {
  it('creates one (201, its id), shows its numbers only when read by id, masks them in events, merges metadata', async () => {
    const res = await call('POST', '/v3/bank-accounts', {
      name: 'Alice FR',
      iban: 'FR7630006000011234567890189',
      swiftBicCode: 'AGRIFRPP',
      country: 'FR',
      metadata: { a: '1' },
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const got = await call('GET', `/v3/bank-accounts/${id}`);
    expect(got.body.data).toEqual({
      id,
      createdAt: got.body.data.createdAt,
      name: 'Alice FR',
      iban: 'FR7630006000011234567890189',
      swiftBicCode: 'AGRIFRPP',
      country: 'FR',
      metadata: { a: '1' },
      relatedAccounts: [],
    });
    const listed = await call('GET', '/v3/bank-accounts?pageSize=1000');
    const entry = listed.body.cursor.data.find((b: { id: string }) => b.id === id);
    expect(entry).toEqual({
      id,
      createdAt: got.body.data.createdAt,
      name: 'Alice FR',
      country: 'FR',
      metadata: { a: '1' },
      relatedAccounts: [],
    });

    expect(
      (await call('PATCH', `/v3/bank-accounts/${id}/metadata`, { metadata: { b: '2' } })).status,
    ).toBe(204);
    expect((await call('GET', `/v3/bank-accounts/${id}`)).body.data.metadata).toEqual({
      a: '1',
      b: '2',
    });
    const events = await recordEvents(id);
    expect(events.map((e) => e.type)).toEqual([
      'payments.saved_bank_account',
      'payments.saved_bank_account',
    ]);
    expect(events[1].payload.iban).toBe('FR76*******************0189');
    expect(events[1].payload.metadata).toEqual({ a: '1', b: '2' });
  });

  it('refuses a bank account without a number, a malformed IBAN, an empty metadata change and a non-UUID id', async () => {
    const none = await call('POST', '/v3/bank-accounts', { name: 'x' });
    expect(none.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body: accountNumber or iban is required',
    });
    const short = await call('POST', '/v3/bank-accounts', { name: 'x', iban: 'FR76' });
    expect(short.status).toBe(400);
    expect(short.body.errorMessage).toBe('body.iban: must be at least 15 characters');
    const made = await call('POST', '/v3/bank-accounts', { name: 'x', accountNumber: '12345678' });
    const empty = await call('PATCH', `/v3/bank-accounts/${made.body.data}/metadata`, {});
    expect(empty.status).toBe(400);
    expect((await call('GET', '/v3/bank-accounts/not-a-uuid')).status).toBe(400);
    const unknown = await call('GET', '/v3/bank-accounts/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
  });
});

describe('payment service users', () => {
  it('creates a user with bank accounts, links another, and refuses one held by another user', async () => {
    const bank = async () =>
      (await call('POST', '/v3/bank-accounts', { name: 'b', accountNumber: '1234567' })).body
        .data as string;
    const [first, second] = [await bank(), await bank()];
    const created = await call('POST', '/v3/payment-service-users', {
      name: 'Alice',
      contactDetails: { email: 'alice@example.com', phoneNumber: '+33 6 12 34 56 78' },
      address: { city: 'Paris', country: 'FR' },
      bankAccountIDs: [first],
      metadata: { tier: 'gold' },
    });
    expect(created.status, created.text).toBe(201);
    const userId = created.body.data as string;
    expect(
      (await call('POST', `/v3/payment-service-users/${userId}/bank-accounts/${second}`)).status,
    ).toBe(204);
    const got = await call('GET', `/v3/payment-service-users/${userId}`);
    expect(got.body.data).toEqual({
      id: userId,
      createdAt: got.body.data.createdAt,
      name: 'Alice',
      contactDetails: { email: 'alice@example.com', phoneNumber: '+33 6 12 34 56 78' },
      address: { city: 'Paris', country: 'FR' },
      bankAccountIDs: [first, second],
      metadata: { tier: 'gold' },
    });
    const other = await call('POST', '/v3/payment-service-users', { name: 'Bob' });
    const taken = await call(
      'POST',
      `/v3/payment-service-users/${other.body.data}/bank-accounts/${first}`,
    );
    expect(taken.status).toBe(409);
    const ghost = await call('POST', '/v3/payment-service-users', {
      name: 'Carol',
      bankAccountIDs: ['00000000-0000-4000-8000-000000000000'],
    });
    expect(ghost.status).toBe(404);
    const listed = await call('GET', '/v3/payment-service-users?pageSize=1000');
    const names = listed.body.cursor.data.map((u: { name: string }) => u.name);
    expect(names).toContain('Alice');
    expect(names).toContain('Bob');
    expect(names).not.toContain('Carol');

    // Deleting Alice: a task that succeeds, Alice gone, her bank accounts kept and free for Bob.
    const deleted = await call('DELETE', `/v3/payment-service-users/${userId}`);
    expect(deleted.status, deleted.text).toBe(202);
    const task = await call('GET', `/v3/tasks/${deleted.body.data.taskID}`);
    expect(task.body.data).toMatchObject({ id: deleted.body.data.taskID, status: 'SUCCEEDED' });
    expect(task.body.data.connectorID).toBeUndefined();
    expect((await call('GET', `/v3/payment-service-users/${userId}`)).status).toBe(404);
    expect((await call('GET', `/v3/bank-accounts/${first}`)).status).toBe(200);
    expect(
      (await call('POST', `/v3/payment-service-users/${other.body.data}/bank-accounts/${first}`))
        .status,
    ).toBe(204);
    expect((await call('DELETE', `/v3/payment-service-users/${userId}`)).status).toBe(404);
  });
});

describe('pools', () => {
  it('aggregates the balances of a static pool, latest and at a time, and follows its accounts', async () => {
    const [a, b] = [await createAccount(), await createAccount()];
    const external = await createAccount({ type: 'EXTERNAL' });
    const s = stores();
    await s.balances.record(
      { accountID: a.id, asset: 'EUR/2', balance: 100n, at: '2026-11-21T10:00:00Z' },
      'bank-1',
    );
    await s.balances.record(
      { accountID: a.id, asset: 'EUR/2', balance: 150n, at: '2026-11-21T12:00:00Z' },
      'bank-1',
    );
    await s.balances.record(
      { accountID: b.id, asset: 'EUR/2', balance: 40n, at: '2026-11-21T09:00:00Z' },
      'bank-1',
    );
    await s.balances.record(
      { accountID: b.id, asset: 'USD/2', balance: 5n, at: '2026-11-21T11:00:00Z' },
      'bank-1',
    );

    const refused = await call('POST', '/v3/pools', { name: 'p', accountIDs: [a.id, external.id] });
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toBe(
      `accountIDs: account ${external.id} is not an internal account`,
    );

    const created = await call('POST', '/v3/pools', { name: 'treasury', accountIDs: [a.id] });
    expect(created.status, created.text).toBe(201);
    const poolId = created.body.data as string;
    expect((await call('POST', `/v3/pools/${poolId}/accounts/${b.id}`)).status).toBe(204);
    const pool = await call('GET', `/v3/pools/${poolId}`);
    expect(pool.body.data).toEqual({
      id: poolId,
      name: 'treasury',
      createdAt: pool.body.data.createdAt,
      type: 'STATIC',
      poolAccounts: [a.id, b.id],
    });

    const latest = await call('GET', `/v3/pools/${poolId}/balances/latest`);
    expect(latest.body).toEqual({
      data: [
        { asset: 'EUR/2', amount: 190n, relatedAccounts: [a.id, b.id] },
        { asset: 'USD/2', amount: 5n, relatedAccounts: [b.id] },
      ],
    });
    const at = await call('GET', `/v3/pools/${poolId}/balances?at=2026-11-21T10:30:00Z`);
    expect(at.body).toEqual({
      data: [{ asset: 'EUR/2', amount: 140n, relatedAccounts: [a.id, b.id] }],
    });
    const future = await call('GET', `/v3/pools/${poolId}/balances?at=2999-01-01T00:00:00Z`);
    expect(future.status).toBe(400);

    expect((await call('DELETE', `/v3/pools/${poolId}/accounts/${a.id}`)).status).toBe(204);
    expect((await call('GET', `/v3/pools/${poolId}/balances/latest`)).body.data).toEqual([
      { asset: 'EUR/2', amount: 40n, relatedAccounts: [b.id] },
      { asset: 'USD/2', amount: 5n, relatedAccounts: [b.id] },
    ]);
    const query = await call('PATCH', `/v3/pools/${poolId}/query`, {
      query: { $match: { name: 'x' } },
    });
    expect(query.status).toBe(400);

    expect((await call('DELETE', `/v3/pools/${poolId}`)).status).toBe(204);
    expect((await call('GET', `/v3/pools/${poolId}`)).status).toBe(404);
    expect((await call('DELETE', `/v3/pools/${poolId}`)).status).toBe(404);
    const events = await recordEvents(poolId);
    expect(events.map((e) => e.type)).toEqual([
      'payments.saved_pool',
      'payments.saved_pool',
      'payments.saved_pool',
      'payments.deleted_pool',
    ]);
    expect(events[1].payload.accountIDs).toEqual([a.id, b.id]);
  });

  it('resolves a dynamic pool from its query whenever it is read', async () => {
    const tag = `team-${Date.now().toString(36)}`;
    const a = await createAccount({ metadata: { team: tag } });
    const created = await call('POST', '/v3/pools', {
      name: 'dynamic',
      query: { $and: [{ $match: { 'metadata[team]': tag } }, { $match: { type: 'INTERNAL' } }] },
    });
    expect(created.status, created.text).toBe(201);
    const poolId = created.body.data as string;
    expect((await call('GET', `/v3/pools/${poolId}`)).body.data.poolAccounts).toEqual([a.id]);
    const b = await createAccount({ metadata: { team: tag } });
    // Listed in account order: by creation, then id (both were created at the same provider time).
    expect((await call('GET', `/v3/pools/${poolId}`)).body.data.poolAccounts).toEqual(
      [a.id, b.id].sort(),
    );
    const add = await call('POST', `/v3/pools/${poolId}/accounts/${a.id}`);
    expect(add.status).toBe(400);
    expect(
      (await call('PATCH', `/v3/pools/${poolId}/query`, { query: { $match: { id: b.id } } }))
        .status,
    ).toBe(204);
    expect((await call('GET', `/v3/pools/${poolId}`)).body.data.poolAccounts).toEqual([b.id]);
    const bad = await call('POST', '/v3/pools', {
      name: 'd',
      query: { $match: { colour: 'red' } },
    });
    expect(bad.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: "query: unknown key 'colour'",
    });
  });
});

describe('payment adjustments', () => {
  it('records the history newest first, takes the newest status, and keeps each adjustment once', async () => {
    const reference = `adj-${Date.now().toString(36)}`;
    const body = {
      reference,
      connectorID: 'bank-1',
      type: 'PAYOUT',
      amount: 500n,
      asset: 'EUR/2',
      scheme: 'SEPA_CREDIT',
      createdAt: '2026-11-20T08:00:00Z',
      adjustments: [
        {
          reference: 'a1',
          createdAt: '2026-11-20T08:00:00Z',
          status: 'PENDING',
          amount: 500n,
          asset: 'EUR/2',
        },
        {
          reference: 'a2',
          createdAt: '2026-11-20T09:00:00Z',
          status: 'SUCCEEDED',
          amount: 500n,
          asset: 'EUR/2',
        },
      ],
    };
    const res = await call('POST', '/v3/payments', body);
    expect(res.status, res.text).toBe(201);
    const payment = res.body.data;
    expect(payment.status).toBe('SUCCEEDED');
    expect(payment.adjustments.map((a: { reference: string }) => a.reference)).toEqual([
      'a2',
      'a1',
    ]);
    expect(payment.adjustments[0]).toEqual({
      id: payment.adjustments[0].id,
      reference: 'a2',
      createdAt: '2026-11-20T09:00:00Z',
      status: 'SUCCEEDED',
      amount: 500n,
      asset: 'EUR/2',
      metadata: {},
      raw: body.adjustments[1],
    });

    // Reported again with one more (older) adjustment: the newest still decides the status.
    const again = await call('POST', '/v3/payments', {
      ...body,
      adjustments: [
        ...body.adjustments,
        {
          reference: 'a0',
          createdAt: '2026-11-20T07:00:00Z',
          status: 'AUTHORISATION',
          amount: 500n,
        },
      ],
    });
    expect(again.body.data.status).toBe('SUCCEEDED');
    expect(again.body.data.adjustments.map((a: { reference: string }) => a.reference)).toEqual([
      'a2',
      'a1',
      'a0',
    ]);
    const got = await call('GET', `/v3/payments/${payment.id}`);
    expect(got.body.data).toEqual(again.body.data);
    // The same history once more changes nothing: no new version.
    const before = (await scanTable(runtime, runtime.config.tables.events)).filter(
      (r) => r.paymentId === payment.id,
    ).length;
    await call('POST', '/v3/payments', again.body.data.adjustments ? { ...body } : body);
    const after = (await scanTable(runtime, runtime.config.tables.events)).filter(
      (r) => r.paymentId === payment.id,
    ).length;
    expect([before, after]).toEqual([2, 2]);
  });
});
