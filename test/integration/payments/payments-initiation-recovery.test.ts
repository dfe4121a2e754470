/**
 * A sender that dies while its provider is asked (the process crashes, its Lambda times out) leaves a payment
 * initiation PROCESSING. Past the sending's lease the timer sends it again, once, with the same idempotency key, so a
 * provider that honours keys pays once; while the lease runs nothing is resent. The death is a `fetch` that never
 * answers (what a dead process leaves behind); the provider, the tables and the timer are the real ones.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { environmentOfKey } from '../../../lib/environments/key-scope.js';
import { approveInitiation } from '../../../lib/payments/commands/payment-initiations.js';
import { runDueInitiations } from '../../../lib/payments/connectors/tick.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import {
  paymentInitiationId,
  SEND_LEASE_MS,
} from '../../../lib/payments/domain/payment-initiation.js';
import { paymentsStores, type StoresConfig } from '../../../lib/payments/store/stores.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const API_KEY = 'sk-recovery';
/** What the fake provider was asked: one body per POST. It answers the same payment for the same key. */
const received: Array<Record<string, string>> = [];
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
    if (req.headers.authorization !== `Bearer ${API_KEY}` || req.url !== '/transfers') {
      res.statusCode = 404;
      return res.end('{"Title":"Not found"}');
    }
    const body = JSON.parse(text) as Record<string, string>;
    received.push(body);
    res.statusCode = 201;
    res.end(
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
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const realDeps = {
  fetch,
  sleep: async () => undefined,
  now: Date.now,
  dummypay: { stage: 'local' as const, root: undefined },
};

const config = (nowMs: number): StoresConfig => ({
  doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
  table: runtime.config.tables.payments,
  eventsTable: runtime.config.tables.events,
  now: () => nowMs,
});

/** A generic connector, two accounts and an initiation waiting for validation. */
async function waitingInitiation(): Promise<{
  id: string;
  connectorID: string;
  reference: string;
}> {
  const installed = await call('POST', '/v3/connectors/install/generic', {
    name: `recovery-${++seq}`,
    endpoint,
    apiKey: API_KEY,
  });
  expect(installed.status, installed.text).toBe(202);
  const connectorID = installed.body.data as string;
  for (const reference of ['src', 'dst'])
    await call('POST', '/v3/accounts', {
      reference,
      connectorID,
      createdAt: '2026-11-20T08:00:00Z',
      accountName: reference,
      type: 'INTERNAL',
    });
  const reference = `pi-recovery-${seq}`;
  const created = await call('POST', '/v3/payment-initiations', {
    reference,
    connectorID,
    description: 'rent',
    type: 'TRANSFER',
    amount: 100,
    asset: 'EUR/2',
    sourceAccountID: accountId(connectorID, 'src'),
    destinationAccountID: accountId(connectorID, 'dst'),
  });
  expect(created.status, created.text).toBe(202);
  return { id: paymentInitiationId(connectorID, reference), connectorID, reference };
}

/**
 * Approves the initiation with a sender that dies once it has asked its provider: the request never comes back.
 * Answers when the sender was started, once the initiation is PROCESSING.
 */
async function approveAndDie(id: string): Promise<number> {
  const items = await scanTable(runtime, runtime.config.tables.payments);
  const item = items.find((i) => i.sk === 'INITIATION' && i.id === id)!;
  const environment = environmentOfKey(String(item.pk))!;
  const startedAt = Date.now();
  let asked!: () => void;
  const providerAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const dying = {
    ...realDeps,
    fetch: (() => {
      asked();
      return new Promise<Response>(() => {});
    }) as typeof fetch,
  };
  void approveInitiation(paymentsStores(config(startedAt), environment), id, dying);
  await providerAsked;
  return startedAt;
}

const statuses = async (id: string) =>
  (await call('GET', `/v3/payment-initiations/${id}/adjustments`)).body.cursor.data.map(
    (a: { status: string }) => a.status,
  );

describe('a sending whose sender died', () => {
  it('stays PROCESSING during its lease, then is sent again once with the same idempotency key', async () => {
    const { id, reference } = await waitingInitiation();
    const startedAt = await approveAndDie(id);
    const got = await call('GET', `/v3/payment-initiations/${id}`);
    expect(got.body.data.status).toBe('PROCESSING');
    received.length = 0;

    // Within the lease the sender may still be alive: nothing is resent.
    expect(await runDueInitiations(config(startedAt + SEND_LEASE_MS - 1000), realDeps)).toBe(0);
    expect(received).toEqual([]);
    expect(await statuses(id)).toEqual(['PROCESSING', 'WAITING_FOR_VALIDATION']);

    // Past it, two timers at once: one takes the sending over, the other finds it taken.
    const late = startedAt + SEND_LEASE_MS + 1000;
    const sent = await Promise.all([
      runDueInitiations(config(late), realDeps),
      runDueInitiations(config(late), realDeps),
    ]);
    expect(sent.sort()).toEqual([0, 1]);
    expect(received.map((b) => b.idempotencyKey)).toEqual([reference]);
    expect(await statuses(id)).toEqual(['PROCESSED', 'PROCESSING', 'WAITING_FOR_VALIDATION']);
    const related = await call('GET', `/v3/payment-initiations/${id}/payments`);
    expect(related.body.cursor.data.map((p: { reference: string }) => p.reference)).toEqual([
      `psp-${reference}`,
    ]);
    // The stuck task (the dead sender's) is finished by the recovery.
    const item = (await scanTable(runtime, runtime.config.tables.payments)).find(
      (i) => i.sk === 'INITIATION' && i.id === id,
    )!;
    expect(item.dueAt).toBeUndefined();
    expect(item.sendingSince).toBeUndefined();
    const finished = await call('GET', `/v3/tasks/${String(item.taskID)}`);
    expect(finished.body.data.status).toBe('SUCCEEDED');

    // Nothing is left to recover.
    expect(await runDueInitiations(config(late + SEND_LEASE_MS * 2), realDeps)).toBe(0);
    expect(received).toHaveLength(1);
  });

  it('fails, without asking anyone, when its connector was uninstalled meanwhile', async () => {
    const { id, connectorID } = await waitingInitiation();
    const startedAt = await approveAndDie(id);
    received.length = 0;
    expect((await call('DELETE', `/v3/connectors/${connectorID}`)).status).toBe(202);

    expect(await runDueInitiations(config(startedAt + SEND_LEASE_MS + 1000), realDeps)).toBe(1);
    expect(received).toEqual([]);
    const got = await call('GET', `/v3/payment-initiations/${id}`);
    expect([got.body.data.status, got.body.data.error]).toEqual([
      'FAILED',
      `connector ${connectorID} was uninstalled during the sending`,
    ]);
  });
});
