/**
 * Environments never meet (docs/data-model.md, "Environments: every key says which") in the payments service: a token
 * of environment B never reads, changes, lists, filters or pages through A's payments; the same payment key
 * (connectorID, reference, type) in both is two payments, each with its own versions and events; every item written
 * (payments, index items, outbox rows) has its environment's `E#<env>#` at the start of its pk and gsi1pk.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { environmentOfKey } from '../../../lib/environments/key-scope.js';
import { parseEventKey } from '../../../lib/events/outbox.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { paymentsExist } from '../../../lib/payments/store/environment-probe.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { environmentToken } from '../../support/environment-tokens.js';
import { jsonCaller } from '../../support/json-call.js';
import { stringify } from '../../support/ledger.js';
import { type PaymentsCall, paymentBody, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const A = 'env-a';
const B = 'env-b';
let runtime: ServiceRuntime;
const as: Record<string, PaymentsCall> = {};

beforeAll(async () => {
  ({ runtime } = await testTables());
  const app = createPaymentsApp(runtime, { documents: generatedDocuments });
  for (const env of [A, B, 'prop-a', 'prop-b']) {
    const token = await environmentToken(runtime, env);
    as[env] = jsonCaller(app, '/api/payments', token);
  }
});

const ids = async (env: string, query: string): Promise<string[]> => {
  const res = await as[env]!('GET', `/v3/payments?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.cursor.data.map((p: { id: string }) => p.id);
};

describe("environment B and A's payments", () => {
  it('answers 404 to reads and changes of an A payment, and never lists, filters or pages through it', async () => {
    const connectorID = `conn-${randomBytes(3).toString('hex')}`;
    const first = await as[A]!('POST', '/v3/payments', paymentBody({ connectorID }));
    const second = await as[A]!('POST', '/v3/payments', paymentBody({ connectorID }));
    expect([first.status, second.status]).toEqual([201, 201]);
    const id = first.body.data.id as string;

    const read = await as[B]!('GET', `/v3/payments/${id}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ errorCode: 'NOT_FOUND', errorMessage: `payment ${id} not found` });
    expect((await as[B]!('PATCH', `/v3/payments/${id}/metadata`, { k: 'v' })).status).toBe(404);
    expect((await as[A]!('GET', `/v3/payments/${id}`)).body.data.metadata).toEqual({});

    for (const query of [
      'pageSize=1000',
      `connectorID=${connectorID}`,
      'status=PENDING',
      'type=PAY-IN',
      `status=PENDING&type=PAY-IN&connectorID=${connectorID}`,
    ]) {
      const listed = await ids(B, query);
      expect(listed, query).not.toContain(id);
      expect(listed, query).not.toContain(second.body.data.id);
    }
    expect(await ids(A, `connectorID=${connectorID}`)).toHaveLength(2);
    // A's cursors, unfiltered and filtered, are refused under B's token.
    for (const query of ['pageSize=1', `pageSize=1&connectorID=${connectorID}`]) {
      const page = await as[A]!('GET', `/v3/payments?${query}`);
      expect(page.body.cursor.hasMore, query).toBe(true);
      const foreign = await as[B]!('GET', `/v3/payments?cursor=${page.body.cursor.next}`);
      expect(foreign.status, query).toBe(400);
      expect(foreign.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: 'cursor: not a cursor of this list',
      });
    }
  });

  it('keeps the same payment key in two environments as two payments, each with its own versions and events', async () => {
    const key = {
      connectorID: 'stripe-main',
      reference: `shared-${randomBytes(4).toString('hex')}`,
      type: 'PAY-IN',
    };
    const inA = await as[A]!('POST', '/v3/payments', paymentBody({ ...key, amount: 100n }));
    const inB = await as[B]!(
      'POST',
      '/v3/payments',
      paymentBody({ ...key, amount: 999n, status: 'SUCCEEDED', metadata: { side: 'b' } }),
    );
    expect([inA.status, inB.status]).toEqual([201, 201]);
    const id = paymentId(key.connectorID, key.reference, 'PAY-IN');
    expect([inA.body.data.id, inB.body.data.id]).toEqual([id, id]);
    // B's creation was a creation, not an update of A's: A's payment is as A left it.
    expect((await as[A]!('GET', `/v3/payments/${id}`)).body.data).toMatchObject({
      amount: 100n,
      initialAmount: 100n,
      status: 'PENDING',
      metadata: {},
    });
    expect((await as[B]!('GET', `/v3/payments/${id}`)).body.data).toMatchObject({
      amount: 999n,
      initialAmount: 999n,
      status: 'SUCCEEDED',
      metadata: { side: 'b' },
    });
    expect((await as[A]!('PATCH', `/v3/payments/${id}/metadata`, { side: 'a' })).status).toBe(204);
    expect((await as[B]!('GET', `/v3/payments/${id}`)).body.data.metadata).toEqual({ side: 'b' });
    expect(await ids(A, `connectorID=${key.connectorID}&status=SUCCEEDED`)).not.toContain(id);
    expect(await ids(B, `connectorID=${key.connectorID}&status=SUCCEEDED`)).toContain(id);

    // Its events: A's two versions in A, B's one version in B, distinct event ids.
    const rows = (await scanTable(runtime, runtime.config.tables.events)).filter(
      (r) => r.paymentId === id,
    );
    const byEnv = (env: string) =>
      rows
        .filter((r) => parseEventKey(String(r.pk), String(r.sk))?.environment === env)
        .map((r) => Number(r.paymentVersion))
        .sort();
    expect(byEnv(A)).toEqual([1, 2]);
    expect(byEnv(B)).toEqual([1]);
    expect(new Set(rows.map((r) => parseEventKey(String(r.pk), 'EVENT')!.id)).size).toBe(3);
  });
});

describe("environment B and A's accounts, bank accounts, users and pools", () => {
  it('answers 404 to B for every A record, lists none of them, refuses their cursors, and keeps every key in its environment', async () => {
    const tag = randomBytes(3).toString('hex');
    const account = await as[A]!('POST', '/v3/accounts', {
      reference: `env-acc-${tag}`,
      connectorID: 'bank-1',
      createdAt: '2026-11-20T08:00:00Z',
      accountName: 'Main',
      type: 'INTERNAL',
    });
    const bank = await as[A]!('POST', '/v3/bank-accounts', { name: 'b', accountNumber: '1234567' });
    const user = await as[A]!('POST', '/v3/payment-service-users', { name: 'u' });
    const pool = await as[A]!('POST', '/v3/pools', {
      name: 'p',
      accountIDs: [account.body.data.id],
    });
    expect([account.status, bank.status, user.status, pool.status]).toEqual([201, 201, 201, 201]);
    const paths = [
      `/v3/accounts/${account.body.data.id}`,
      `/v3/accounts/${account.body.data.id}/balances`,
      `/v3/bank-accounts/${bank.body.data}`,
      `/v3/payment-service-users/${user.body.data}`,
      `/v3/pools/${pool.body.data}`,
      `/v3/pools/${pool.body.data}/balances/latest`,
    ];
    for (const path of paths) {
      expect((await as[A]!('GET', path)).status, path).toBe(200);
      expect((await as[B]!('GET', path)).status, path).toBe(404);
    }
    // B cannot pool A's account, link A's bank account, or delete A's pool.
    const foreignPool = await as[B]!('POST', '/v3/pools', {
      name: 'p',
      accountIDs: [account.body.data.id],
    });
    expect(foreignPool.status).toBe(400);
    const bUser = await as[B]!('POST', '/v3/payment-service-users', { name: 'u' });
    expect(
      (
        await as[B]!(
          'POST',
          `/v3/payment-service-users/${bUser.body.data}/bank-accounts/${bank.body.data}`,
        )
      ).status,
    ).toBe(404);
    expect((await as[B]!('DELETE', `/v3/pools/${pool.body.data}`)).status).toBe(404);
    expect((await as[A]!('GET', `/v3/pools/${pool.body.data}`)).status).toBe(200);

    for (const list of ['accounts', 'bank-accounts', 'payment-service-users', 'pools']) {
      const mine = await as[A]!('GET', `/v3/${list}?pageSize=1`);
      const theirs = await as[B]!('GET', `/v3/${list}?pageSize=1000`);
      const ids = theirs.body.cursor.data.map((r: { id: string }) => r.id);
      for (const id of [account.body.data.id, bank.body.data, user.body.data, pool.body.data])
        expect(ids, list).not.toContain(id);
      if (mine.body.cursor.hasMore) {
        const foreign = await as[B]!('GET', `/v3/${list}?cursor=${mine.body.cursor.next}`);
        expect(foreign.status, list).toBe(400);
      }
    }
    for (const item of await scanTable(runtime, runtime.config.tables.payments)) {
      expect(environmentOfKey(String(item.pk)), String(item.pk)).toBeDefined();
      if (item.gsi1pk !== undefined)
        expect(environmentOfKey(String(item.gsi1pk))).toBe(environmentOfKey(String(item.pk)));
    }
    const rows = (await scanTable(runtime, runtime.config.tables.events)).filter(
      (r) => r.recordId === pool.body.data,
    );
    expect(rows.map((r) => parseEventKey(String(r.pk), String(r.sk))?.environment)).toEqual([A]);
  });
});

describe("environment B and A's payment initiations", () => {
  it('answers 404 to B for every read and decision on an A initiation, lists none, and keeps its rows in A', async () => {
    const tag = randomBytes(3).toString('hex');
    // A generic connector on a closed loopback port: nothing here sends anything.
    const installed = await as[A]!('POST', '/v3/connectors/install/generic', {
      name: `env-gen-${tag}`,
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
    });
    const connectorID = installed.body.data as string;
    const account = await as[A]!('POST', '/v3/accounts', {
      reference: `env-pi-acc-${tag}`,
      connectorID,
      createdAt: '2026-11-20T08:00:00Z',
      accountName: 'Main',
      type: 'INTERNAL',
    });
    const body = {
      reference: `env-pi-${tag}`,
      connectorID,
      type: 'PAYOUT',
      amount: 10,
      asset: 'EUR/2',
      destinationAccountID: account.body.data.id,
    };
    const created = await as[A]!('POST', '/v3/payment-initiations', body);
    expect(created.status, created.text).toBe(202);
    const id = created.body.data.paymentInitiationID as string;
    for (const path of ['', '/adjustments', '/payments']) {
      expect((await as[A]!('GET', `/v3/payment-initiations/${id}${path}`)).status).toBe(200);
      expect((await as[B]!('GET', `/v3/payment-initiations/${id}${path}`)).status).toBe(404);
    }
    for (const action of ['approve', 'reject', 'retry'])
      expect((await as[B]!('POST', `/v3/payment-initiations/${id}/${action}`)).status).toBe(404);
    const reverse = { reference: 'rev', amount: 1, asset: 'EUR/2' };
    expect((await as[B]!('POST', `/v3/payment-initiations/${id}/reverse`, reverse)).status).toBe(
      404,
    );
    expect((await as[B]!('DELETE', `/v3/payment-initiations/${id}`)).status).toBe(404);
    // B cannot initiate on A's connector either.
    expect((await as[B]!('POST', '/v3/payment-initiations', body)).status).toBe(404);
    const listed = await as[B]!('GET', '/v3/payment-initiations?pageSize=1000');
    expect(listed.body.cursor.data.map((p: { id: string }) => p.id)).not.toContain(id);
    expect((await as[A]!('GET', `/v3/payment-initiations/${id}`)).body.data.status).toBe(
      'WAITING_FOR_VALIDATION',
    );
    const rows = (await scanTable(runtime, runtime.config.tables.events)).filter(
      (r) => r.recordId === id,
    );
    expect(rows.map((r) => parseEventKey(String(r.pk), String(r.sk))?.environment)).toEqual([A, A]);
    const items = (await scanTable(runtime, runtime.config.tables.payments)).filter(
      (i) => i.id === id,
    );
    expect(items.map((i) => environmentOfKey(String(i.pk)))).toEqual([A]);
  });
});

describe('the environment probe', () => {
  it('says whether an environment has a payment, from its own list only', async () => {
    const env = `probe-${randomBytes(3).toString('hex')}`;
    const table = runtime.config.tables.payments;
    expect(await paymentsExist(runtime.doc, table, env)).toBe(false);
    const token = await environmentToken(runtime, env);
    const app = createPaymentsApp(runtime, { documents: generatedDocuments });
    const res = await app.request('/api/payments/v3/payments', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: stringify(paymentBody()),
    });
    expect(res.status).toBe(201);
    expect(await paymentsExist(runtime.doc, table, env)).toBe(true);
    expect(await paymentsExist(runtime.doc, table, `${env}-x`)).toBe(false);
  });
});

describe('every item in its environment', () => {
  it("writes payments, index items and outbox rows with pk and gsi1pk in its environment's E#<env># (property)", async () => {
    const envs = ['prop-a', 'prop-b'] as const;
    /** Payment id → the environments it was saved in (a key may be saved in both). */
    const savedIn = new Map<string, Set<string>>();
    const step = fc.record({
      env: fc.constantFrom(...envs),
      reference: fc.constantFrom('r1', 'r2', 'r3'),
      type: fc.constantFrom('PAY-IN', 'PAYOUT'),
      status: fc.constantFrom('PENDING', 'SUCCEEDED', 'FAILED'),
      patch: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 8 }), async (steps) => {
        for (const { env, reference, type, status, patch } of steps) {
          const connectorID = 'prop-conn';
          const id = paymentId(connectorID, reference, type);
          if (patch && savedIn.get(id)?.has(env)) {
            expect(
              (await as[env]!('PATCH', `/v3/payments/${id}/metadata`, { at: env })).status,
            ).toBe(204);
            continue;
          }
          const res = await as[env]!(
            'POST',
            '/v3/payments',
            paymentBody({ connectorID, reference, type, status }),
          );
          expect(res.status, res.text).toBe(201);
          savedIn.set(id, (savedIn.get(id) ?? new Set()).add(env));
        }
        for (const item of await scanTable(runtime, runtime.config.tables.payments)) {
          const env = environmentOfKey(String(item.pk));
          expect(env, String(item.pk)).toBeDefined();
          if (item.gsi1pk !== undefined) expect(environmentOfKey(String(item.gsi1pk))).toBe(env);
          const owners = savedIn.get(String(item.id));
          if (owners) expect(owners.has(env!), String(item.pk)).toBe(true);
        }
        for (const row of await scanTable(runtime, runtime.config.tables.events)) {
          const env = parseEventKey(String(row.pk), String(row.sk))?.environment;
          expect(env, String(row.pk)).toBeDefined();
          const owners = savedIn.get(String(row.paymentId));
          if (owners) expect(owners.has(env!)).toBe(true);
        }
        // Reads in each environment see exactly the payments saved in it.
        for (const env of envs) {
          const seen = await ids(env, 'connectorID=prop-conn&pageSize=100');
          const expected = [...savedIn].filter(([, e]) => e.has(env)).map(([id]) => id);
          expect(seen.sort()).toEqual(expected.sort());
        }
      }),
      { numRuns: 6 },
    );
  });
});
