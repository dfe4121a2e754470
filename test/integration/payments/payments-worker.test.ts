/**
 * The connectors' worker in AWS (functions/payments-connectors.ts): a tick finds due schedules on the payments
 * table's `due` index (no Scan), runs them from their cursors, and leaves what is not due; its lag is how late the
 * most overdue item was. Against the repository's fake provider on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../../infra/local/fake-provider/server.js';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { runWorkerTick } from '../../../lib/payments/connectors/worker.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let provider: FakeProvider;
let runtime: ServiceRuntime;
let call: PaymentsCall;
let clock = Date.parse('2026-11-28T09:00:00Z');

beforeAll(async () => {
  provider = await startFakeProvider({ apiKey: 'worker-key' });
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime, { now: () => clock }));
});

afterAll(async () => {
  await provider?.close();
});

const config = () => ({
  doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
  table: runtime.config.tables.payments,
  eventsTable: runtime.config.tables.events,
  now: () => clock,
});
const deps = {
  fetch: globalThis.fetch,
  sleep: async () => {},
  now: () => clock,
  dummypay: { stage: 'local' as const },
};

describe('the connectors worker', () => {
  it('runs what the due index holds, once, and nothing before its time', async () => {
    const installed = await call('POST', '/v3/connectors/install/generic', {
      name: 'worker-bank',
      endpoint: provider.url,
      apiKey: 'worker-key',
      pollingPeriod: '5m',
    });
    expect(installed.status, installed.text).toBe(202);
    const connectorID = installed.body.data as string;
    clock += 90_000;
    const first = await runWorkerTick(config(), deps);
    expect(first.schedules).toEqual({ skipped: 0, done: 3, more: 0, failed: 0 });
    expect(first.lagMs).toBe(90_000);
    const accounts = await call('GET', '/v3/accounts?pageSize=100');
    expect(
      accounts.body.cursor.data
        .filter((a: { connectorID: string }) => a.connectorID === connectorID)
        .map((a: { reference: string }) => a.reference)
        .sort(),
    ).toEqual(['acc-main', 'acc-savings', 'ben-supplier']);
    const payments = await call('GET', `/v3/payments?connectorID=${connectorID}`);
    expect(payments.body.cursor.data.map((p: { reference: string }) => p.reference)).toEqual([
      'tx-0001',
    ]);
    // Nothing is due before the polling period has passed.
    clock += 60_000;
    expect((await runWorkerTick(config(), deps)).schedules).toEqual({
      skipped: 0,
      done: 0,
      more: 0,
      failed: 0,
    });
    clock += 5 * 60_000;
    const later = await runWorkerTick(config(), deps);
    expect(later.schedules.done).toBe(3);
    expect(later.lagMs).toBe(60_000);
  });
});
