/**
 * Metadata keys are data, not object keys (#17): `__proto__`, `constructor` and `prototype` sent as map keys
 * are kept exactly, from the request through DynamoDB and back out (responses, listings, events); a non-string
 * value under them is refused like under any key; a body that is not UTF-8 is refused; an over-long key is named
 * in the error without being echoed in full.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json/bigint-json.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, bearer, tokenFor } from '../../support/auth.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import {
  type PaymentsCall,
  paymentBody,
  paymentEvents,
  paymentsClient,
  storedCounts,
} from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let ledgerCall: Awaited<ReturnType<typeof ledgerClient>>['call'];
let ledgerApp: Awaited<ReturnType<typeof ledgerClient>>['app'];
let payments: PaymentsCall;
let paymentsApp: Awaited<ReturnType<typeof paymentsClient>>['app'];
let token: string;

/** The three keys, as raw JSON (a JS object literal would turn `__proto__` into the prototype). */
const HOSTILE = '{"__proto__":"p1","constructor":"c1","prototype":"t1","plain":"x"}';
/** What every reader must get back: own keys with their values (a DynamoDB map keeps no order). */
const hostile = () =>
  Object.fromEntries([
    ['__proto__', 'p1'],
    ['constructor', 'c1'],
    ['prototype', 't1'],
    ['plain', 'x'],
  ]);
const expectExactly = (map: unknown, expected: Record<string, string>) => {
  expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
  const sorted = (entries: Array<[string, unknown]>) =>
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  expect(sorted(Object.entries(map as object))).toEqual(sorted(Object.entries(expected)));
};

/** A body of raw bytes (not necessarily UTF-8) sent to an app as JSON. */
const rawRequest = (
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  method: string,
  path: string,
  bytes: Uint8Array,
) =>
  app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: bytes,
  });
/** `{"note":"a<0xff>b"}`: one byte that can never appear in UTF-8. */
const INVALID_UTF8 = new Uint8Array([...Buffer.from('{"note":"a'), 0xff, ...Buffer.from('b"}')]);
const LONG_KEY = `k${'x'.repeat(299)}`;

let counter = 0;
async function freshLedger(body?: string) {
  const name = `keys${++counter}-${Date.now() % 100000}`;
  const res = await ledgerCall('POST', `/v2/${name}`, body);
  expect(res.status, res.text).toBe(204);
  return name;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call: ledgerCall, app: ledgerApp } = await ledgerClient(runtime));
  ({ call: payments, app: paymentsApp } = await paymentsClient(runtime));
  token = await tokenFor(authApp(runtime), ADMIN);
});

describe('ledger: transaction, account and ledger metadata', () => {
  it('keeps __proto__, constructor and prototype on a transaction, its accounts and the ledger, through the store and the log', async () => {
    const ledger = await freshLedger(`{"metadata":${HOSTILE}}`);
    expectExactly((await ledgerCall('GET', `/v2/${ledger}`)).body.data.metadata, hostile());

    const created = await ledgerCall(
      'POST',
      `/v2/${ledger}/transactions`,
      `{"postings":[{"source":"world","destination":"shop","amount":10,"asset":"COIN"}],"metadata":${HOSTILE},"accountMetadata":{"shop":${HOSTILE}}}`,
    );
    expect(created.status, created.text).toBe(200);
    expectExactly(created.body.data.metadata, hostile());
    const id = created.body.data.id;

    const tx = await ledgerCall('GET', `/v2/${ledger}/transactions/${id}`);
    expectExactly(tx.body.data.metadata, hostile());
    const listed = await ledgerCall('GET', `/v2/${ledger}/transactions`);
    expectExactly(listed.body.cursor.data[0].metadata, hostile());
    expectExactly(
      (await ledgerCall('GET', `/v2/${ledger}/accounts/shop`)).body.data.metadata,
      hostile(),
    );

    // Metadata added later, on the transaction and on an account, merges key by key.
    const onTx = await ledgerCall(
      'POST',
      `/v2/${ledger}/transactions/${id}/metadata`,
      '{"__proto__":"p2","extra":"e"}',
    );
    expect(onTx.status, onTx.text).toBe(204);
    expectExactly(
      (await ledgerCall('GET', `/v2/${ledger}/transactions/${id}`)).body.data.metadata,
      { ...hostile(), ...Object.fromEntries([['__proto__', 'p2']]), extra: 'e' },
    );
    const onAccount = await ledgerCall('POST', `/v2/${ledger}/accounts/other/metadata`, HOSTILE);
    expect(onAccount.status, onAccount.text).toBe(204);
    expectExactly(
      (await ledgerCall('GET', `/v2/${ledger}/accounts/other`)).body.data.metadata,
      hostile(),
    );

    // The log and the events carry the same keys.
    const logs = await ledgerCall('GET', `/v2/${ledger}/logs`);
    expect(logs.status, logs.text).toBe(200);
    const newTx = logs.body.cursor.data.find((l: { type: string }) => l.type === 'NEW_TRANSACTION');
    expectExactly(newTx.data.transaction.metadata, hostile());
    expectExactly(newTx.data.accountMetadata.shop, hostile());
    const events = await ledgerEventsOf(runtime, ledger);
    const committed = events.find((e) => e.envelope.type === 'ledger.committed_transactions')!;
    expectExactly((committed.envelope.payload as any).transactions[0].metadata, hostile());
    expectExactly((committed.envelope.payload as any).accountMetadata.shop, hostile());
  });

  it('refuses a non-string value under __proto__, constructor or prototype (400, nothing written)', async () => {
    const ledger = await freshLedger();
    const posting = '{"source":"world","destination":"shop","amount":10,"asset":"COIN"}';
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      for (const value of ['{"polluted":"yes"}', '42', 'true', '["a"]']) {
        for (const [method, path, body, field] of [
          [
            'POST',
            `/v2/${ledger}/transactions`,
            `{"postings":[${posting}],"metadata":{"${key}":${value}}}`,
            `body.metadata.${key}`,
          ],
          [
            'POST',
            `/v2/${ledger}/transactions`,
            `{"postings":[${posting}],"accountMetadata":{"shop":{"${key}":${value}}}}`,
            `body.accountMetadata.shop.${key}`,
          ],
          ['POST', `/v2/${ledger}/accounts/shop/metadata`, `{"${key}":${value}}`, `body.${key}`],
          ['PUT', `/v2/${ledger}/metadata`, `{"${key}":${value}}`, `body.${key}`],
        ] as const) {
          const res = await ledgerCall(method, path, body);
          expect(res.status, `${path} ${body}`).toBe(400);
          expect(res.body).toEqual({
            errorCode: 'VALIDATION',
            errorMessage: `${field}: metadata values must be strings`,
          });
        }
      }
    }
    // An account address is a key too: __proto__ as an address must map to metadata, not to the prototype.
    const res = await ledgerCall(
      'POST',
      `/v2/${ledger}/transactions`,
      `{"postings":[${posting}],"accountMetadata":{"__proto__":"x"}}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(
      'body.accountMetadata.__proto__: must be an object of string values',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await ledgerCall('GET', `/v2/${ledger}/transactions`)).body.cursor.data).toEqual([]);
    expect((await ledgerCall('GET', `/v2/${ledger}/accounts/shop`)).status).toBe(404);
  });

  it('refuses a body that is not UTF-8, and names an over-long key without echoing it', async () => {
    const ledger = await freshLedger();
    const bad = await rawRequest(
      ledgerApp,
      'POST',
      `/api/ledger/v2/${ledger}/accounts/shop/metadata`,
      INVALID_UTF8,
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body is not valid UTF-8',
    });
    const badTx = await rawRequest(
      ledgerApp,
      'POST',
      `/api/ledger/v2/${ledger}/transactions`,
      INVALID_UTF8,
    );
    expect(await badTx.json()).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body is not valid UTF-8',
    });

    const long = await ledgerCall('POST', `/v2/${ledger}/accounts/shop/metadata`, {
      [LONG_KEY]: 'v',
    });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: `body.${LONG_KEY.slice(0, 64)}…: metadata keys must be at most 256 characters`,
    });
    expect((await ledgerCall('GET', `/v2/${ledger}/accounts/shop`)).status).toBe(404);
  });

  it('keeps Numscript variables named __proto__ and constructor', async () => {
    const ledger = await freshLedger();
    const plain =
      'vars {\n  account $__proto__\n  monetary $constructor\n}\nsend $constructor (\n  source = @world\n  destination = $__proto__\n)\nset_tx_meta("__proto__", "from-script")\nset_account_meta(@__proto__, "polluted", "no")\nset_account_meta(@constructor, "name", "Set")';
    const res = await ledgerCall(
      'POST',
      `/v2/${ledger}/transactions`,
      JSON.stringify({ script: { plain, vars: { bob: 'unused' } } }).replace(
        '{"bob":"unused"}',
        '{"__proto__":"bob","constructor":"COIN 5"}',
      ),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'world', destination: 'bob', amount: 5n, asset: 'COIN' },
    ]);
    expectExactly(res.body.data.metadata, Object.fromEntries([['__proto__', 'from-script']]));
    // Account metadata set by the script on accounts named __proto__ and constructor lands on those accounts,
    // never on Object.prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectExactly(
      (await ledgerCall('GET', `/v2/${ledger}/accounts/__proto__`)).body.data.metadata,
      { polluted: 'no' },
    );
    expectExactly(
      (await ledgerCall('GET', `/v2/${ledger}/accounts/constructor`)).body.data.metadata,
      { name: 'Set' },
    );
  });
});

describe('payments metadata', () => {
  it('keeps the keys on create, on a flat and a wrapped PATCH, in the listing and in the events', async () => {
    const body = JSON.stringify(paymentBody({ amount: 1000, metadata: '__M__' })).replace(
      '"__M__"',
      HOSTILE,
    );
    const created = await payments('POST', '/v3/payments', body);
    expect(created.status, created.text).toBe(201);
    expectExactly(created.body.data.metadata, hostile());
    const id = created.body.data.id as string;

    expect(
      (await payments('PATCH', `/v3/payments/${id}/metadata`, '{"__proto__":"p2"}')).status,
    ).toBe(204);
    expect(
      (
        await payments(
          'PATCH',
          `/v3/payments/${id}/metadata`,
          '{"metadata":{"constructor":"c2","new":"n"}}',
        )
      ).status,
    ).toBe(204);
    const expected = Object.fromEntries([
      ['__proto__', 'p2'],
      ['constructor', 'c2'],
      ['prototype', 't1'],
      ['plain', 'x'],
      ['new', 'n'],
    ]);
    expectExactly((await payments('GET', `/v3/payments/${id}`)).body.data.metadata, expected);
    const listed = await payments('GET', '/v3/payments?pageSize=1000');
    expectExactly(
      listed.body.cursor.data.find((p: { id: string }) => p.id === id).metadata,
      expected,
    );
    const events = await paymentEvents(runtime, id);
    expect(events).toHaveLength(3);
    expectExactly(events[2]!.envelope.payload.metadata, expected);
  });

  it('refuses non-string values under the keys, bad UTF-8 and over-long keys, writing nothing', async () => {
    const { body } = await payments('POST', '/v3/payments', paymentBody());
    const id = body.data.id as string;
    const before = await storedCounts(runtime);
    for (const [method, path, sent, message] of [
      [
        'POST',
        '/v3/payments',
        JSON.stringify(paymentBody({ amount: 1, metadata: '__M__' })).replace(
          '"__M__"',
          '{"__proto__":{"polluted":"yes"}}',
        ),
        'body.metadata.__proto__: metadata values must be strings',
      ],
      [
        'PATCH',
        `/v3/payments/${id}/metadata`,
        '{"constructor":1}',
        'body.constructor: metadata values must be strings',
      ],
      [
        'PATCH',
        `/v3/payments/${id}/metadata`,
        '{"metadata":{"prototype":["t"]}}',
        'body.metadata.prototype: metadata values must be strings',
      ],
      [
        'PATCH',
        `/v3/payments/${id}/metadata`,
        JSON.stringify({ metadata: { [LONG_KEY]: 'v' } }),
        `body.metadata.${LONG_KEY.slice(0, 64)}…: metadata keys must be at most 256 characters`,
      ],
    ] as const) {
      const res = await payments(method, path, sent);
      expect(res.status, sent).toBe(400);
      expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    const bad = await rawRequest(
      paymentsApp,
      'PATCH',
      `/api/payments/v3/payments/${id}/metadata`,
      INVALID_UTF8,
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body is not valid UTF-8',
    });
    expect(await storedCounts(runtime)).toEqual(before);
  });
});

describe('auth: client metadata', () => {
  it('keeps the keys on a client, and refuses a non-string value under them', async () => {
    const auth = authApp(runtime);
    const admin = { ...bearer(await tokenFor(auth, ADMIN)), 'content-type': 'application/json' };
    const created = await auth.request('/api/auth/clients', {
      method: 'POST',
      headers: admin,
      body: `{"name":"keys","metadata":${HOSTILE}}`,
    });
    expect(created.status).toBe(201);
    const { data } = parseJson(await created.text()) as any;
    expectExactly(data.metadata, hostile());
    const got = parseJson(
      await (await auth.request(`/api/auth/clients/${data.id}`, { headers: admin })).text(),
    ) as any;
    expectExactly(got.data.metadata, hostile());
    const refused = await auth.request('/api/auth/clients', {
      method: 'POST',
      headers: admin,
      body: '{"name":"keys","metadata":{"__proto__":{"a":"b"}}}',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body.metadata.__proto__: metadata values must be strings',
    });
  });
});
