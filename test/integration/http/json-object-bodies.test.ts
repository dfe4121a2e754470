// docs/api.md §1: a request body that should be a JSON object and is another JSON value — an array, `null`, a
// string, a number — is a 400 VALIDATION in every service. valibot's objects and records take an array for an
// object (`[]` passes as `{}`), so before the one check in lib/http/json-body.ts an empty array was a valid body
// wherever every field is optional: it created a ledger, updated a webhook config and rotated its secret.
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleLedgerApp } from '../../../lib/assembly/ledger-app.js';
import type { HonoTypes } from '../../../lib/http/types.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import { createWebhooksApp } from '../../../lib/webhooks/app.js';
import { authApp } from '../../support/auth.js';
import { environmentToken } from '../../support/environment-tokens.js';
import { type JsonCall, jsonCaller } from '../../support/json-call.js';
import { paymentBody } from '../../support/payments.js';
import { platformServiceTestbed, ROOT } from '../../support/platform-service.js';
import { testTables } from '../../support/tables.js';

type Service = 'auth' | 'ledger' | 'webhooks' | 'payments';
const call = {} as Record<Service, JsonCall>;
let apps: Record<Service, Hono<HonoTypes>>;
let ledger: string;
let configId: string;
let paymentId: string;
let clientId: string;
let txId: string;

const NOT_OBJECTS: ReadonlyArray<[string, string]> = [
  ['an empty array', '[]'],
  ['an array of an object', '[{"name":"x"}]'],
  ['null', 'null'],
  ['a string', '"x"'],
  ['a number', '1'],
];

beforeAll(async () => {
  const { runtime } = await testTables();
  const documents = generatedDocuments;
  apps = {
    auth: authApp(runtime),
    ledger: assembleLedgerApp(runtime, { documents }),
    webhooks: createWebhooksApp(runtime, { documents }),
    payments: createPaymentsApp(runtime, { documents }),
  };
  const token = await environmentToken(runtime, 'env-bodies');
  for (const service of Object.keys(apps) as Service[])
    call[service] = jsonCaller(apps[service], `/api/${service}`, token, JSON.parse);

  ledger = 'bodies';
  expect((await call.ledger('POST', `/v2/${ledger}`)).status).toBe(204);
  const tx = await call.ledger('POST', `/v2/${ledger}/transactions`, {
    postings: [{ source: 'world', destination: 'users:1', amount: 5, asset: 'EUR/2' }],
  });
  expect(tx.status, tx.text).toBe(200);
  txId = String(tx.body.data.id);
  const config = await call.webhooks('POST', '/configs', {
    endpoint: 'https://hooks.example.com/x',
    eventTypes: ['ledger.committed_transactions'],
  });
  expect(config.status, config.text).toBe(200);
  configId = config.body.data.id;
  const payment = await call.payments('POST', '/v3/payments', paymentBody());
  expect(payment.status, payment.text).toBe(201);
  paymentId = payment.body.data.id;
  const client = await call.auth('POST', '/clients', { name: 'svc' });
  expect(client.status, client.text).toBe(201);
  clientId = client.body.data.id;
});

/**
 * Every route that reads a JSON object body (the v2 bulk reads an array, and is checked apart). The bulk replay of
 * deliveries is not here: without a deliveries queue (none in this test) it answers 503 before reading its body.
 */
const routes = (): ReadonlyArray<[Service, string, string]> => [
  ['ledger', 'POST', '/v2/other-ledger'],
  ['ledger', 'PUT', `/v2/${ledger}/metadata`],
  ['ledger', 'POST', `/v2/${ledger}/transactions`],
  ['ledger', 'POST', `/v2/${ledger}/transactions/${txId}/revert`],
  ['ledger', 'POST', `/v2/${ledger}/transactions/${txId}/metadata`],
  ['ledger', 'POST', `/v2/${ledger}/accounts/users:1/metadata`],
  ['ledger', 'PUT', `/${ledger}/mapping`],
  ['ledger', 'POST', `/${ledger}/script`],
  ['ledger', 'POST', `/${ledger}/transactions`],
  ['ledger', 'POST', `/${ledger}/transactions/batch`],
  ['ledger', 'POST', `/${ledger}/transactions/${txId}/metadata`],
  ['ledger', 'POST', `/${ledger}/accounts/users:1/metadata`],
  ['webhooks', 'POST', '/configs'],
  ['webhooks', 'PUT', `/configs/${configId}`],
  ['webhooks', 'PUT', `/configs/${configId}/secret/change`],
  ['payments', 'POST', '/v3/payments'],
  ['payments', 'PATCH', `/v3/payments/${paymentId}/metadata`],
  ['auth', 'POST', '/clients'],
  ['auth', 'PUT', `/clients/${clientId}`],
  ['auth', 'POST', `/clients/${clientId}/secrets`],
];

describe('a body that is not a JSON object', () => {
  it.each(NOT_OBJECTS)(
    'is refused as %s by every route that reads an object',
    async (_what, body) => {
      for (const [service, method, path] of routes()) {
        const res = await call[service](method, path, body);
        expect({
          route: `${service} ${method} ${path}`,
          status: res.status,
          body: res.body,
        }).toEqual({
          route: `${service} ${method} ${path}`,
          status: 400,
          body: { errorCode: 'VALIDATION', errorMessage: 'body: must be a JSON object' },
        });
      }
    },
  );

  it('changes nothing: no ledger, client or secret made, no webhook config changed, by an array', async () => {
    const configOf = async () =>
      (await call.webhooks('GET', `/configs?id=${configId}`)).body.cursor.data[0];
    const configBefore = await configOf();
    for (const [service, method, path] of routes()) await call[service](method, path, '[]');
    expect((await call.ledger('GET', '/v2/other-ledger')).status).toBe(404);
    const clients = await call.auth('GET', '/clients');
    expect(clients.body.data.map((c: { id: string }) => c.id)).toEqual([clientId]);
    const client = await call.auth('GET', `/clients/${clientId}`);
    expect(client.body.data.secrets).toEqual([]);
    expect(await configOf()).toEqual(configBefore);
  });

  it('is still what the v2 bulk reads: an array is its body, an object is refused', async () => {
    const empty = await call.ledger('POST', `/v2/${ledger}/_bulk`, '[]');
    expect({ status: empty.status, body: empty.body }).toEqual({
      status: 200,
      body: { data: [] },
    });
    const object = await call.ledger('POST', `/v2/${ledger}/_bulk`, '{}');
    expect({ status: object.status, body: object.body }).toEqual({
      status: 400,
      body: { errorCode: 'VALIDATION', errorMessage: 'body: must be an array of bulk elements' },
    });
  });
});

// docs/api.md §1: one limit on how deep a body nests, and no lone surrogate escape, for every JSON body of every
// service (lib/json/json-limits.ts, applied where every body is read). Before it, a body nested 100,000 deep
// was a 500 INTERNAL (auth clients, webhook configs, ledger metadata: recursive parsing and walking ran out of
// stack), and `"\ud800"` in a transaction's metadata was stored.
describe('a body nested too deep, or holding a lone surrogate escape', () => {
  const DEEP = `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  const TOO_DEEP = {
    errorCode: 'VALIDATION',
    errorMessage: 'body: JSON nested deeper than 64 levels',
  };
  const LONE = {
    errorCode: 'VALIDATION',
    errorMessage:
      'body: a string holds a lone surrogate escape (\\uD800-\\uDFFF), not valid Unicode',
  };
  const streamed = (body: string) =>
    call.ledger('POST', `/v2/${ledger}/_bulk`, body, {
      'content-type': 'application/vnd.formance.ledger.api.v2.bulk+json-stream',
    });

  it.each([
    ['nested 100,000 deep', DEEP, TOO_DEEP],
    ['nested 65 deep', `{"metadata":{"a":${'['.repeat(63)}${']'.repeat(63)}}}`, TOO_DEEP],
    ['holding "\\ud800" in a value', '{"metadata":{"k":"a\\ud800b"},"name":"x"}', LONE],
  ])(
    'is refused when %s by every route that reads a body, the bulk and its stream included',
    async (_what, body, error) => {
      for (const [service, method, path] of [
        ...routes(),
        ['ledger', 'POST', `/v2/${ledger}/_bulk`] as const,
      ]) {
        const res = await call[service as Service](method, path, body);
        expect({
          route: `${service} ${method} ${path}`,
          status: res.status,
          body: res.body,
        }).toEqual({
          route: `${service} ${method} ${path}`,
          status: 400,
          body: error,
        });
      }
      const stream = await streamed(body);
      expect({ status: stream.status, body: stream.body }).toEqual({ status: 400, body: error });
    },
  );

  it('stores nothing: the transaction with a lone surrogate in its metadata is not written', async () => {
    const before = await call.ledger('GET', `/v2/${ledger}/transactions`);
    const res = await call.ledger(
      'POST',
      `/v2/${ledger}/transactions`,
      '{"postings":[{"source":"world","destination":"users:2","amount":1,"asset":"EUR/2"}],"metadata":{"k":"\\udc00"}}',
    );
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: LONE });
    const after = await call.ledger('GET', `/v2/${ledger}/transactions`);
    expect(after.body.cursor.data).toEqual(before.body.cursor.data);
  });

  it('keeps a surrogate pair: an emoji sent escaped is stored and read back', async () => {
    const res = await call.ledger(
      'POST',
      `/v2/${ledger}/transactions`,
      '{"postings":[{"source":"world","destination":"users:3","amount":1,"asset":"EUR/2"}],"metadata":{"k":"\\ud83d\\ude00"}}',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.metadata).toEqual({ k: '😀' });
  });

  it('is refused by the platform service too', async () => {
    const bed = await platformServiceTestbed();
    const root = bed.as(ROOT);
    const deep = await (await root)('POST', '/organizations', DEEP);
    expect({ status: deep.status, body: deep.body }).toEqual({ status: 400, body: TOO_DEEP });
    const lone = await (await root)('POST', '/organizations', '{"name":"\\ud800"}');
    expect({ status: lone.status, body: lone.body }).toEqual({ status: 400, body: LONE });
  });
});
