/**
 * The ledger link (docs/api.md §6, "Ledger link"): a generic connector against the fake provider, with its
 * payments recorded in a ledger of the same environment through the ledger's public API, as the client the link
 * names. Each payment posts once (a re-fetch, a reset, an amount change post nothing more; a refund posts its
 * reverse once); a link to a ledger it cannot reach fails its own runs, visibly, and no other connector's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../../infra/local/fake-provider/server.js';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { runDueSchedules } from '../../../lib/payments/connectors/tick.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { environmentToken } from '../../support/environment-tokens.js';
import {
  type InProcessPlatform,
  startInProcessPlatform,
} from '../../support/in-process-platform.js';
import { type JsonCall, jsonCaller, overHttp } from '../../support/json-call.js';

const API_KEY = 'link-test-key';
const B = 'link-env-b';
let platform: InProcessPlatform;
let provider: FakeProvider;
const call: Record<string, { payments: JsonCall; ledger: JsonCall }> = {};
/** The worker's clock: each tick an hour later, so every schedule is due again. */
let clock = Date.now();

beforeAll(async () => {
  platform = await startInProcessPlatform();
  provider = await startFakeProvider({ apiKey: API_KEY });
  for (const env of ['default', B]) {
    const token = await environmentToken(platform.runtime, env);
    call[env] = {
      payments: jsonCaller(overHttp, `${platform.baseUrl}/api/payments`, token),
      ledger: jsonCaller(overHttp, `${platform.baseUrl}/api/ledger`, token),
    };
  }
  for (const env of ['default', B])
    expect((await call[env]!.ledger('POST', '/v2/books')).status).toBe(204);
});

afterAll(async () => {
  await provider?.close();
  await platform?.stop();
});

const LINK = { ledger: 'books', clientID: 'local-dev', clientSecret: 'local-dev-secret' };

async function install(env: string, ledgerLink: Record<string, unknown>): Promise<string> {
  const res = await call[env]!.payments('POST', '/v3/connectors/install/generic', {
    name: `linked-${Math.random().toString(36).slice(2, 8)}`,
    endpoint: provider.url,
    apiKey: API_KEY,
    ledgerLink,
  });
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

async function tick() {
  clock += 3600_000;
  return runDueSchedules(
    {
      doc: createDocumentClient(platform.runtime.connection, { bigintNumbers: true }),
      table: platform.runtime.config.tables.payments,
      eventsTable: platform.runtime.config.tables.events,
      now: () => clock,
    },
    {
      fetch: globalThis.fetch,
      sleep: async () => {},
      now: () => clock,
      dummypay: { stage: 'local' },
      publicBaseUrl: platform.baseUrl,
    },
  );
}

async function ledgerTransactions(env: string, ledger = 'books') {
  const res = await call[env]!.ledger('GET', `/v2/${ledger}/transactions?pageSize=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.cursor.data as Array<Record<string, any>>;
}

const reference = (id: string) => JSON.parse(Buffer.from(id, 'base64url').toString()).Reference;

async function lastError(env: string, connector: string): Promise<string | undefined> {
  const res = await call[env]!.payments(
    'GET',
    `/v3/connectors/${connector}/schedules/fetch-payments.${connector}/instances`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.cursor.data[0]?.error;
}

describe('a connector with a ledger link', () => {
  let connector: string;

  it('refuses a link it could not use, and writes nothing', async () => {
    for (const [ledgerLink, message] of [
      [{ ...LINK, statuses: ['DONE'] }, 'body.ledgerLink.statuses.0: must be payment statuses'],
      [{ ...LINK, ledger: 'no/such' }, 'body.ledgerLink.ledger: must be a ledger name'],
      [
        { ...LINK, accounts: { internal: 'bank:main' } },
        'body.ledgerLink.accounts.internal: must contain {account}',
      ],
      [
        { ...LINK, accounts: { world: 'ext:{account}' } },
        'body.ledgerLink.accounts.world: must not contain {account}',
      ],
      [
        { ledger: 'books' },
        'body.ledgerLink.clientID: Invalid key: Expected "clientID" but received undefined',
      ],
    ] as const) {
      const res = await call.default!.payments('POST', '/v3/connectors/install/generic', {
        name: 'refused-link',
        endpoint: provider.url,
        apiKey: API_KEY,
        ledgerLink,
      });
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    const listed = await call.default!.payments('GET', '/v3/connectors?pageSize=100');
    expect(listed.body.cursor.data.map((c: { name: string }) => c.name)).not.toContain(
      'refused-link',
    );
  });

  it('answers the link with its defaults, its secret masked', async () => {
    connector = await install('default', LINK);
    const config = await call.default!.payments('GET', `/v3/connectors/${connector}/config`);
    expect(config.body.data.ledgerLink).toEqual({
      ledger: 'books',
      clientID: 'local-dev',
      clientSecret: '********',
      accounts: { internal: 'payments:{connector}:{account}', world: 'world' },
      statuses: ['SUCCEEDED'],
    });
  });

  it('records a fetched payment in the ledger, with its postings and metadata', async () => {
    const ran = await tick();
    expect(ran.failed).toBe(0);
    const id = paymentId(connector, 'tx-0001', 'PAY-IN');
    expect((await call.default!.payments('GET', `/v3/payments/${id}`)).status).toBe(200);
    const txs = await ledgerTransactions('default');
    expect(txs).toHaveLength(1);
    expect(txs[0]!.postings).toEqual([
      {
        source: 'world',
        destination: `payments:${reference(connector)}:acc-main`,
        amount: 250000n,
        asset: 'EUR/2',
      },
    ]);
    expect(txs[0]!.reference).toBe(`payments:${id}`);
    expect(txs[0]!.metadata).toEqual({
      payments_id: id,
      payments_connector: connector,
      payments_reference: 'tx-0001',
      payments_type: 'PAY-IN',
      payments_status: 'SUCCEEDED',
      payments_link: 'settlement',
    });
  });

  it('posts a payment once: a re-fetch, a reset and an amount change post nothing more', async () => {
    await tick();
    const reset = await call.default!.payments('POST', `/v3/connectors/${connector}/reset`);
    expect(reset.status, reset.text).toBe(202);
    const book = provider.book.transactions[0]!;
    book.amount = '260000';
    book.updatedAt = new Date(Date.parse(book.updatedAt) + 1000).toISOString();
    expect((await tick()).failed).toBe(0);
    const id = paymentId(connector, 'tx-0001', 'PAY-IN');
    const payment = await call.default!.payments('GET', `/v3/payments/${id}`);
    expect(payment.body.data.amount).toBe(260000n);
    const txs = await ledgerTransactions('default');
    expect(txs).toHaveLength(1);
    expect(txs[0]!.postings[0].amount).toBe(250000n);
  });

  it('posts a payout from the internal account even past its ledger balance, and a refund once', async () => {
    // Later than every update the connector has read (the test before moved one a second ahead): a payout read
    // first as REFUNDED never settled in the link's statuses, and would rightly post nothing.
    const latestMs = Math.max(...provider.book.transactions.map((t) => Date.parse(t.updatedAt)));
    const at = new Date(Math.max(Date.now(), latestMs + 1000)).toISOString();
    provider.book.transactions.push({
      id: 'tx-payout',
      createdAt: at,
      updatedAt: at,
      currency: 'EUR/2',
      type: 'PAYOUT',
      status: 'SUCCEEDED',
      amount: '400000',
      sourceAccountID: 'acc-main',
      destinationAccountID: 'ben-supplier',
      metadata: {},
    });
    expect((await tick()).failed).toBe(0);
    const payout = provider.book.transactions.at(-1)!;
    (payout as { status: string }).status = 'REFUNDED';
    payout.updatedAt = new Date(Date.parse(at) + 5000).toISOString();
    expect((await tick()).failed).toBe(0);
    expect((await tick()).failed).toBe(0);
    const main = `payments:${reference(connector)}:acc-main`;
    const txs = (await ledgerTransactions('default')).filter(
      (t) => t.metadata.payments_reference === 'tx-payout',
    );
    expect(
      txs.map((t) => [t.metadata.payments_link, t.postings]).sort(([a], [b]) => (a < b ? -1 : 1)),
    ).toEqual([
      ['refund', [{ source: 'world', destination: main, amount: 400000n, asset: 'EUR/2' }]],
      ['settlement', [{ source: main, destination: 'world', amount: 400000n, asset: 'EUR/2' }]],
    ]);
  });

  it('keeps the stored secret when the config read is sent back, and refuses the mask for a new client', async () => {
    const read = await call.default!.payments('GET', `/v3/connectors/${connector}/config`);
    const sentBack = await call.default!.payments(
      'PATCH',
      `/v3/connectors/${connector}/config`,
      read.body.data,
    );
    expect(sentBack.status, sentBack.text).toBe(204);
    const other = await call.default!.payments('PATCH', `/v3/connectors/${connector}/config`, {
      ...read.body.data,
      ledgerLink: { ...read.body.data.ledgerLink, clientID: 'someone-else' },
    });
    expect(other.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body.ledgerLink.clientSecret: give the secret of this new client',
    });
    // A config without the field (a client that does not know it) keeps the link; `false` removes it.
    const { ledgerLink: _kept, ...withoutLink } = read.body.data;
    expect(
      (await call.default!.payments('PATCH', `/v3/connectors/${connector}/config`, withoutLink))
        .status,
    ).toBe(204);
    const kept = await call.default!.payments('GET', `/v3/connectors/${connector}/config`);
    expect(kept.body.data.ledgerLink).toEqual(read.body.data.ledgerLink);
    const other2 = await install('default', LINK);
    const removed = await call.default!.payments('PATCH', `/v3/connectors/${other2}/config`, {
      ...(await call.default!.payments('GET', `/v3/connectors/${other2}/config`)).body.data,
      ledgerLink: false,
    });
    expect(removed.status, removed.text).toBe(204);
    const unlinked = await call.default!.payments('GET', `/v3/connectors/${other2}/config`);
    expect(unlinked.body.data.ledgerLink).toBeUndefined();
    expect(unlinked.body.data.apiKey).toBe('********');
    // The link still authenticates (with the stored secret, not the mask): a run posts a new payment (updated
    // after the payout's refund, which the cursor has passed).
    const at = new Date(Date.now() + 60_000).toISOString();
    provider.book.transactions.push({
      id: 'tx-after-patch',
      createdAt: at,
      updatedAt: at,
      currency: 'EUR/2',
      type: 'PAYIN',
      status: 'SUCCEEDED',
      amount: '700',
      destinationAccountID: 'acc-savings',
      metadata: {},
    });
    expect((await tick()).failed).toBe(0);
    const posted = (await ledgerTransactions('default')).filter(
      (t) => t.metadata.payments_reference === 'tx-after-patch',
    );
    expect(posted.map((t) => t.postings[0].destination)).toEqual([
      `payments:${reference(connector)}:acc-savings`,
    ]);
  });

  it("fails only its own runs when the ledger is another environment's or absent, saying why", async () => {
    const before = (await ledgerTransactions('default')).length;
    // B's connector names the default environment's client: its token is not of B.
    const foreign = await install(B, LINK);
    const absent = await install('default', { ...LINK, ledger: 'no-such-ledger' });
    const ran = await tick();
    expect(ran.failed).toBe(2);
    expect(await lastError(B, foreign)).toBe(
      `ledger link: client local-dev is not a client of this environment (${B})`,
    );
    expect(await lastError('default', absent)).toMatch(
      /^ledger link: ledger no-such-ledger answered 404 /,
    );
    // The first connector ran beside them; its last run succeeded.
    expect(await lastError('default', connector)).toBeUndefined();
    expect(await ledgerTransactions(B)).toEqual([]);
    expect((await ledgerTransactions('default')).length).toBe(before);
    // The payments themselves were recorded in B; only the cursor waits for the ledger.
    const id = paymentId(foreign, 'tx-0001', 'PAY-IN');
    expect((await call[B]!.payments('GET', `/v3/payments/${id}`)).status).toBe(200);
    expect((await call.default!.payments('GET', `/v3/payments/${id}`)).status).toBe(404);
  });

  it('posts what waited once the link is mended', async () => {
    const connectors = await call.default!.payments('GET', '/v3/connectors?pageSize=100');
    const absent = connectors.body.cursor.data.find(
      (c: { config: { ledgerLink?: { ledger: string } } }) =>
        c.config.ledgerLink?.ledger === 'no-such-ledger',
    ).id as string;
    expect((await call.default!.ledger('POST', '/v2/no-such-ledger')).status).toBe(204);
    expect((await tick()).failed).toBe(1); // B's, still
    // The payout was first seen already refunded by this connector: settled and refunded, it moved nothing.
    const txs = await ledgerTransactions('default', 'no-such-ledger');
    expect(txs.map((t) => t.metadata.payments_reference).sort()).toEqual([
      'tx-0001',
      'tx-after-patch',
    ]);
    expect(await lastError('default', absent)).toBeUndefined();
  });
});
