/**
 * Payment initiations (docs/api.md §6) over HTTP: the reference's state machine (waiting for validation, approve,
 * reject, delete, processing, processed or failed, retry, reverse), sent through dummypay (a simulated provider)
 * and the generic connector (a fake provider on loopback), with their adjustments, related payments and events.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { runDueInitiations } from '../../../lib/payments/connectors/tick.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { paymentInitiationId } from '../../../lib/payments/domain/payment-initiation.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const API_KEY = 'sk-initiations';
const root = mkdtempSync(join(tmpdir(), 'initiations-'));

/** The fake provider: what it was asked, and whether it fails. */
const provider = { failWith: undefined as number | undefined, bodies: [] as unknown[] };
let server: Server;
let endpoint: string;
let runtime: ServiceRuntime;
let call: PaymentsCall;
let seq = 0;

function handle(req: IncomingMessage, res: ServerResponse) {
  let text = '';
  req.on('data', (chunk) => {
    text += chunk;
  });
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== `Bearer ${API_KEY}`) {
      res.statusCode = 401;
      return res.end('{"Title":"Unauthorized"}');
    }
    if (provider.failWith !== undefined) {
      res.statusCode = provider.failWith;
      return res.end(JSON.stringify({ Title: 'Declined', Detail: 'insufficient funds' }));
    }
    if (req.method === 'POST' && (req.url === '/transfers' || req.url === '/payouts')) {
      const body = JSON.parse(text) as Record<string, string>;
      provider.bodies.push(body);
      res.statusCode = 201;
      return res.end(
        JSON.stringify({
          id: `psp-${body.idempotencyKey}`,
          idempotencyKey: body.idempotencyKey,
          amount: body.amount,
          currency: body.currency,
          sourceAccountId: body.sourceAccountId,
          destinationAccountId: body.destinationAccountId,
          status: 'SUCCEEDED',
          createdAt: '2026-11-26T10:00:00Z',
          metadata: {},
        }),
      );
    }
    res.statusCode = 404;
    res.end('{"Title":"Not found"}');
  });
}

beforeAll(async () => {
  mkdirSync(join(root, 'files'));
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ runtime } = await testTables({ PAYMENTS_DUMMYPAY_ROOT: root }));
  ({ call } = await paymentsClient(runtime));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

async function install(provider: 'dummypay' | 'generic'): Promise<string> {
  const config =
    provider === 'dummypay'
      ? { name: `dummy-${++seq}`, directory: 'files' }
      : { name: `generic-${++seq}`, endpoint, apiKey: API_KEY };
  const res = await call('POST', `/v3/connectors/install/${provider}`, config);
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

async function account(connectorID: string, reference: string): Promise<string> {
  const res = await call('POST', '/v3/accounts', {
    reference,
    connectorID,
    createdAt: '2026-11-20T08:00:00Z',
    accountName: reference,
    type: 'INTERNAL',
    defaultAsset: 'EUR/2',
  });
  expect(res.status, res.text).toBe(201);
  return accountId(connectorID, reference);
}

/** A connector with a source and a destination account. */
async function setUp(kind: 'dummypay' | 'generic') {
  const connectorID = await install(kind);
  return {
    connectorID,
    source: await account(connectorID, 'acc-src'),
    destination: await account(connectorID, 'acc-dst'),
  };
}

async function initiate(
  s: { connectorID: string; source: string; destination: string },
  overrides: Record<string, unknown> = {},
  query = '',
) {
  return call('POST', `/v3/payment-initiations${query}`, {
    reference: `pi-${++seq}`,
    connectorID: s.connectorID,
    description: 'rent',
    type: 'TRANSFER',
    amount: 100,
    asset: 'EUR/2',
    sourceAccountID: s.source,
    destinationAccountID: s.destination,
    ...overrides,
  });
}

const statusOf = async (id: string) =>
  (await call('GET', `/v3/payment-initiations/${id}`)).body.data.status as string;
const adjustmentStatuses = async (id: string) =>
  (await call('GET', `/v3/payment-initiations/${id}/adjustments`)).body.cursor.data.map(
    (a: { status: string }) => a.status,
  );

describe('a transfer through dummypay', () => {
  it('waits for validation, is approved, processed, related to its payment, then reversed in part', async () => {
    const s = await setUp('dummypay');
    const created = await initiate(s);
    expect(created.status, created.text).toBe(202);
    const id = paymentInitiationId(s.connectorID, `pi-${seq}`);
    expect(created.body).toEqual({ data: { paymentInitiationID: id } });
    const got = await call('GET', `/v3/payment-initiations/${id}`);
    expect(got.body.data).toEqual({
      id,
      connectorID: s.connectorID,
      provider: 'dummypay',
      reference: `pi-${seq}`,
      createdAt: got.body.data.createdAt,
      scheduledAt: '0001-01-01T00:00:00Z',
      description: 'rent',
      type: 'TRANSFER',
      sourceAccountID: s.source,
      destinationAccountID: s.destination,
      amount: 100n,
      asset: 'EUR/2',
      metadata: {},
      status: 'WAITING_FOR_VALIDATION',
    });

    const approved = await call('POST', `/v3/payment-initiations/${id}/approve`);
    expect(approved.status).toBe(202);
    const task = await call('GET', `/v3/tasks/${approved.body.data.taskID}`);
    expect(task.body.data.status).toBe('SUCCEEDED');
    expect(await statusOf(id)).toBe('PROCESSED');
    expect(await adjustmentStatuses(id)).toEqual([
      'PROCESSED',
      'PROCESSING',
      'WAITING_FOR_VALIDATION',
    ]);
    const related = await call('GET', `/v3/payment-initiations/${id}/payments`);
    expect(related.body.cursor.data).toHaveLength(1);
    expect(related.body.cursor.data[0]).toMatchObject({
      id: paymentId(s.connectorID, `pi-${seq}`, 'TRANSFER'),
      type: 'TRANSFER',
      status: 'SUCCEEDED',
      amount: 100n,
      sourceAccountID: s.source,
      destinationAccountID: s.destination,
    });

    for (const action of ['approve', 'reject']) {
      const again = await call('POST', `/v3/payment-initiations/${id}/${action}`);
      expect(again.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: `payment initiation ${id}: cannot ${action} it while it is PROCESSED (only when WAITING_FOR_VALIDATION)`,
      });
    }
    expect((await call('DELETE', `/v3/payment-initiations/${id}`)).status).toBe(400);
    expect((await call('POST', `/v3/payment-initiations/${id}/retry`)).status).toBe(400);

    const reversal = { reference: 'rev-1', description: 'refund', amount: 30, asset: 'EUR/2' };
    const reversed = await call('POST', `/v3/payment-initiations/${id}/reverse`, reversal);
    expect(reversed.status, reversed.text).toBe(202);
    expect(Object.keys(reversed.body.data).sort()).toEqual([
      'paymentInitiationReversalID',
      'taskID',
    ]);
    expect(await statusOf(id)).toBe('REVERSED');
    const tooMuch = await call('POST', `/v3/payment-initiations/${id}/reverse`, {
      ...reversal,
      reference: 'rev-2',
      amount: 71,
    });
    expect(tooMuch.body.errorMessage).toBe('body.amount: cannot reverse more than is left (70)');
    const otherAsset = await call('POST', `/v3/payment-initiations/${id}/reverse`, {
      ...reversal,
      reference: 'rev-3',
      asset: 'USD/2',
    });
    expect(otherAsset.body.errorMessage).toBe("body.asset: must be the initiation's asset EUR/2");
    expect(
      (await call('GET', `/v3/payment-initiations/${id}/payments`)).body.cursor.data.map(
        (p: { status: string; amount: bigint }) => [p.status, p.amount],
      ),
    ).toEqual([
      ['SUCCEEDED', 100n],
      ['REFUNDED', 30n],
    ]);

    const events = (await scanTable(runtime, runtime.config.tables.events))
      .filter((r) => r.recordId === id)
      .map((r) => parseJson(String(r.body)) as { type: string; payload: Record<string, unknown> });
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('payments.saved_payment_initiation')).toBe(1);
    expect(count('payments.saved_payment_initiation_adjustment')).toBe(5);
    expect(count('payments.saved_payment_initiation_related_payment')).toBe(2);
    expect(
      events
        .filter((e) => e.type === 'payments.saved_payment_initiation_related_payment')
        .map((e) => e.payload)
        .sort((a, b) => (String(a.paymentID) < String(b.paymentID) ? -1 : 1)),
    ).toEqual(
      [
        paymentId(s.connectorID, `pi-${seq}`, 'TRANSFER'),
        paymentId(s.connectorID, 'rev-1', 'TRANSFER'),
      ]
        .sort()
        .map((paymentID) => ({ paymentInitiationID: id, paymentID })),
    );
  });

  it('is rejected, or deleted, only while it waits for validation', async () => {
    const s = await setUp('dummypay');
    await initiate(s);
    const rejected = paymentInitiationId(s.connectorID, `pi-${seq}`);
    expect((await call('POST', `/v3/payment-initiations/${rejected}/reject`)).status).toBe(204);
    expect(await statusOf(rejected)).toBe('REJECTED');
    expect((await call('POST', `/v3/payment-initiations/${rejected}/approve`)).status).toBe(400);

    await initiate(s);
    const deleted = paymentInitiationId(s.connectorID, `pi-${seq}`);
    expect((await call('DELETE', `/v3/payment-initiations/${deleted}`)).status).toBe(204);
    expect((await call('GET', `/v3/payment-initiations/${deleted}`)).body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: `payment initiation ${deleted} not found`,
    });
  });

  it('is sent at once with noValidation=true, and waits for a scheduledAt in the future', async () => {
    const s = await setUp('dummypay');
    const now = await initiate(s, { type: 'PAYOUT' }, '?noValidation=true');
    expect(Object.keys(now.body.data).sort()).toEqual(['paymentInitiationID', 'taskID']);
    expect(await statusOf(now.body.data.paymentInitiationID)).toBe('PROCESSED');

    const later = await initiate(s, { scheduledAt: '2099-01-01T00:00:00Z' });
    const id = later.body.data.paymentInitiationID as string;
    const task = (await call('POST', `/v3/payment-initiations/${id}/approve`)).body.data.taskID;
    expect(await adjustmentStatuses(id)).toEqual([
      'SCHEDULED_FOR_PROCESSING',
      'WAITING_FOR_VALIDATION',
    ]);
    expect((await call('GET', `/v3/tasks/${task}`)).body.data.status).toBe('PROCESSING');

    // The timer sends it once its time has come, under the same task, and only once.
    const timer = (at: string) =>
      runDueInitiations(
        {
          doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
          table: runtime.config.tables.payments,
          eventsTable: runtime.config.tables.events,
          now: () => Date.parse(at),
        },
        { fetch, sleep: async () => undefined, now: Date.now, dummypay: { stage: 'local', root } },
      );
    expect(await timer('2098-12-31T23:59:59Z')).toBe(0);
    expect(await statusOf(id)).toBe('SCHEDULED_FOR_PROCESSING');
    expect(await timer('2099-01-01T00:00:00Z')).toBe(1);
    expect(await statusOf(id)).toBe('PROCESSED');
    expect((await call('GET', `/v3/tasks/${task}`)).body.data.status).toBe('SUCCEEDED');
    expect(await timer('2099-01-02T00:00:00Z')).toBe(0);
  });

  it('outlives an uninstalled connector, which then refuses to send it (404) and leaves it waiting', async () => {
    const s = await setUp('dummypay');
    const id = (await initiate(s)).body.data.paymentInitiationID as string;
    expect((await call('DELETE', `/v3/connectors/${s.connectorID}`)).status).toBe(202);
    const approve = await call('POST', `/v3/payment-initiations/${id}/approve`);
    expect(approve.body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: `connector ${s.connectorID} not found`,
    });
    expect(await adjustmentStatuses(id)).toEqual(['WAITING_FOR_VALIDATION']);
  });

  it('refuses bad requests, leaving nothing written', async () => {
    const s = await setUp('dummypay');
    const other = await setUp('dummypay');
    const before = (await call('GET', '/v3/payment-initiations?pageSize=1000')).body.cursor.data
      .length;
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{ amount: 0 }, 'body.amount: must be greater than 0', 400],
      [{ type: 'PAY-IN' }, 'body.type: must be one of TRANSFER, PAYOUT', 400],
      [
        { destinationAccountID: other.destination },
        `destinationAccountID: account ${other.destination} not found on this connector`,
        400,
      ],
      [{ reference: 'ab' }, 'body.reference: must be at least 3 characters', 400],
    ];
    for (const [overrides, message, status] of cases) {
      const res = await initiate(s, overrides);
      expect([res.status, res.body.errorMessage]).toEqual([status, message]);
    }
    const unknown = await initiate({ ...s, connectorID: other.connectorID.replace(/.$/, 'x') });
    expect(unknown.status).toBe(404);
    expect((await initiate(s, {}, '?noValidation=yes')).body.errorMessage).toBe(
      'noValidation: must be true or false',
    );
    expect(
      (await call('GET', '/v3/payment-initiations?pageSize=1000')).body.cursor.data,
    ).toHaveLength(before);
    await initiate(s, { reference: 'twice' });
    const twice = await initiate(s, { reference: 'twice' });
    expect(twice.status).toBe(409);
    expect((await call('GET', '/v3/payment-initiations/not-an-id')).status).toBe(404);
  });
});

describe('through the generic connector', () => {
  it('sends the transfer to the provider, fails with its error, and is retried', async () => {
    const s = await setUp('generic');
    expect((await call('GET', `/v3/connectors/${s.connectorID}/capabilities`)).body.data).toEqual([
      'FETCH_ACCOUNTS',
      'FETCH_BALANCES',
      'FETCH_EXTERNAL_ACCOUNTS',
      'FETCH_PAYMENTS',
      'CREATE_TRANSFER',
      'CREATE_PAYOUT',
    ]);
    provider.failWith = 503;
    const id = (await initiate(s, { metadata: { memo: 'm' } })).body.data.paymentInitiationID;
    const task = (await call('POST', `/v3/payment-initiations/${id}/approve`)).body.data.taskID;
    const failed = (await call('GET', `/v3/payment-initiations/${id}`)).body.data;
    expect([failed.status, failed.error]).toEqual([
      'FAILED',
      'provider answered 503: Declined: insufficient funds',
    ]);
    expect((await call('GET', `/v3/tasks/${task}`)).body.data).toMatchObject({
      status: 'FAILED',
      error: 'provider answered 503: Declined: insufficient funds',
    });

    provider.failWith = undefined;
    const retried = await call('POST', `/v3/payment-initiations/${id}/retry`);
    expect(retried.status).toBe(202);
    expect(await statusOf(id)).toBe('PROCESSED');
    expect(provider.bodies.at(-1)).toEqual({
      idempotencyKey: `pi-${seq}`,
      amount: '100',
      currency: 'EUR/2',
      sourceAccountId: 'acc-src',
      destinationAccountId: 'acc-dst',
      description: 'rent',
      metadata: { memo: 'm' },
    });
    const related = (await call('GET', `/v3/payment-initiations/${id}/payments`)).body.cursor.data;
    expect(related.map((p: { id: string }) => p.id)).toEqual([
      paymentId(s.connectorID, `psp-pi-${seq}`, 'TRANSFER'),
    ]);
    expect(await adjustmentStatuses(id)).toEqual([
      'PROCESSED',
      'PROCESSING',
      'FAILED',
      'PROCESSING',
      'WAITING_FOR_VALIDATION',
    ]);

    const reverse = await call('POST', `/v3/payment-initiations/${id}/reverse`, {
      reference: 'rev-g',
      amount: 10,
      asset: 'EUR/2',
    });
    expect(reverse.status).toBe(202);
    const after = (await call('GET', `/v3/payment-initiations/${id}`)).body.data;
    expect([after.status, after.error]).toEqual([
      'REVERSE_FAILED',
      'the generic connector API has no reversals',
    ]);
  });

  it('pages adjustments with cursors bound to their initiation', async () => {
    const s = await setUp('dummypay');
    const id = (await initiate(s, {}, '?noValidation=true')).body.data.paymentInitiationID;
    const first = await call('GET', `/v3/payment-initiations/${id}/adjustments?pageSize=2`);
    expect(first.body.cursor.data.map((a: { status: string }) => a.status)).toEqual([
      'PROCESSED',
      'PROCESSING',
    ]);
    expect(first.body.cursor.hasMore).toBe(true);
    const next = await call(
      'GET',
      `/v3/payment-initiations/${id}/adjustments?cursor=${first.body.cursor.next}`,
    );
    expect(next.body.cursor.data.map((a: { status: string }) => a.status)).toEqual([
      'WAITING_FOR_VALIDATION',
    ]);
    const otherId = (await initiate(s)).body.data.paymentInitiationID;
    const stolen = await call(
      'GET',
      `/v3/payment-initiations/${otherId}/adjustments?cursor=${first.body.cursor.next}`,
    );
    expect(stolen.body.errorMessage).toBe('cursor: not a cursor of this list');
  });
});
