import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleLedgerApp } from '../../../lib/assembly/ledger-app.js';
import type { HonoTypes } from '../../../lib/http/types.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import { createWebhooksApp } from '../../../lib/webhooks/app.js';
import { authApp } from '../../support/auth.js';
import { jsonCaller } from '../../support/json-call.js';
import {
  type PlatformServiceTestbed,
  platformServiceTestbed,
  ROOT,
} from '../../support/platform-service.js';

/**
 * The platform and the services on one runtime, with the real emptiness probes: what a person's personal token
 * creates in an environment keeps the environment from being deleted, naming what it holds; an empty one is
 * deleted, and then issues no token.
 */
let bed: PlatformServiceTestbed;
let apps: Record<'auth' | 'ledger' | 'webhooks' | 'payments', Hono<HonoTypes>>;

beforeAll(async () => {
  bed = await platformServiceTestbed();
  const { runtime } = bed;
  apps = {
    auth: authApp(runtime),
    ledger: assembleLedgerApp(runtime, { documents: generatedDocuments }),
    webhooks: createWebhooksApp(runtime, { documents: generatedDocuments }),
    payments: createPaymentsApp(runtime, { documents: generatedDocuments }),
  };
});

async function sandbox(name: string): Promise<{ id: string; token: string }> {
  const root = await bed.as(ROOT);
  const created = await root('POST', '/organizations/default/environments', {
    name,
    type: 'sandbox',
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  const issued = await root('POST', '/personal-tokens', { environment: id });
  expect(issued.status, issued.text).toBe(201);
  return { id, token: issued.body.data.token };
}

async function call(
  service: keyof typeof apps,
  token: string,
  method: string,
  path: string,
  body?: unknown,
) {
  return jsonCaller(apps[service], `/api/${service}`, token, JSON.parse)(method, path, body);
}

const remove = async (id: string) =>
  (await bed.as(ROOT))('DELETE', `/organizations/default/environments/${id}`);

describe('an environment across the services', () => {
  it('is deleted only when empty: each service says what it still holds', async () => {
    const env = await sandbox('full');
    expect((await call('ledger', env.token, 'POST', '/v2/books')).status).toBe(204);
    const config = await call('webhooks', env.token, 'POST', '/configs', {
      endpoint: 'https://hooks.example.com/x',
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status, config.text).toBe(200);
    const payment = await call('payments', env.token, 'POST', '/v3/payments', {
      reference: 'p-1',
      connectorID: 'bank',
      type: 'PAYOUT',
      amount: 10,
      asset: 'EUR/2',
      scheme: 'OTHER',
      createdAt: '2026-11-26T10:00:00Z',
    });
    expect(payment.status, payment.text).toBe(201);
    const client = await call('auth', env.token, 'POST', '/clients', { name: 'svc' });
    expect(client.status, client.text).toBe(201);

    const refused = await remove(env.id);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('ENVIRONMENT_NOT_EMPTY');
    for (const holds of ['ledgers', 'webhook configs', 'payments', 'clients'])
      expect(refused.body.errorMessage).toContain(holds);

    // What one environment holds is nothing to another's probes.
    const empty = await sandbox('empty');
    expect((await call('ledger', empty.token, 'GET', '/v2/books')).status).toBe(404);
    expect((await remove(empty.id)).status).toBe(204);
    const after = await (await bed.as(ROOT))('POST', '/personal-tokens', {
      environment: empty.id,
    });
    expect(after.status).toBe(404);
  });

  it('keeps clients apart: a client made with one environment’s personal token is not another’s', async () => {
    const [a, b] = [await sandbox('a'), await sandbox('b')];
    const made = await call('auth', a.token, 'POST', '/clients', { name: 'only-a' });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    expect((await call('auth', a.token, 'GET', `/clients/${id}`)).status).toBe(200);
    expect((await call('auth', b.token, 'GET', `/clients/${id}`)).status).toBe(404);
    expect((await call('auth', b.token, 'GET', '/clients')).body.data).toEqual([]);
  });
});
