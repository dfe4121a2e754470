/**
 * Reference ledger v2.4 parity through the official SDK, unmodified, over real HTTP: what an SDK caller of the
 * reference platform does and must get back (field names included: the SDK drops fields it does not know).
 */
import type { SDK } from '@formance/formance-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type InProcessPlatform,
  startInProcessSdkPlatform,
} from '../support/in-process-platform.js';

let platform: InProcessPlatform;
let sdk: SDK;
const ledger = 'sdk-parity';

beforeAll(async () => {
  ({ platform, sdk } = await startInProcessSdkPlatform());
  await sdk.ledger.v2.createLedger({ ledger, v2CreateLedgerRequest: {} });
});

afterAll(async () => {
  await platform?.stop();
});

describe('auth and info', () => {
  it('listClients reads the clients in data (it read {} when the answer was {cursor})', async () => {
    const created = await sdk.auth.v1.createClient({ name: 'parity', scopes: ['custom:scope'] });
    const id = created.createClientResponse!.data!.id;
    const listed = await sdk.auth.v1.listClients();
    const mine = listed.listClientsResponse?.data?.find((c) => c.id === id);
    expect(mine).toMatchObject({ id, name: 'parity', scopes: ['custom:scope'] });
  });

  it('getInfo answers experimentalFeatures', async () => {
    const info = await sdk.ledger.v2.getInfo();
    expect(info.v2ConfigInfo).toEqual({
      server: 'ledger',
      version: expect.any(String),
      experimentalFeatures: [],
    });
  });
});

describe('ledger reads', () => {
  it('aggregates balances over the query language, and lists with sort', async () => {
    const send = (destination: string, amount: bigint) => ({
      source: 'world',
      destination,
      amount,
      asset: 'USD',
    });
    await sdk.ledger.v2.createTransaction({
      ledger,
      v2PostTransaction: {
        postings: [send('users:1', 10n), send('users:2', 20n), send('shop:1', 5n)],
        timestamp: new Date('2026-02-01T00:00:00Z'),
        metadata: {},
      },
    });
    await sdk.ledger.v2.createTransaction({
      ledger,
      v2PostTransaction: {
        postings: [send('users:1', 1n)],
        timestamp: new Date('2026-01-01T00:00:00Z'),
        metadata: {},
      },
    });
    const aggregated = await sdk.ledger.v2.getBalancesAggregated({
      ledger,
      query: { $in: { address: ['users:2', 'shop:1'] } },
    });
    expect(aggregated.v2AggregateBalancesResponse?.data).toEqual({ USD: 25n });
    const byTime = await sdk.ledger.v2.listTransactions({ ledger, sort: 'timestamp:asc' });
    expect(byTime.v2TransactionsCursorResponse?.cursor.data.map((t) => t.id)).toEqual([2n, 1n]);
  });
});

describe('schemas and query templates', () => {
  it('inserts, reads, lists a version and runs its query template', async () => {
    await sdk.ledger.v2.insertSchema({
      ledger,
      version: 'v1',
      v2SchemaData: {
        chart: { world: {}, users: { additionalProperties: { $id: { dotPattern: '^[0-9]+$' } } } },
        queries: {
          richUsers: {
            resource: 'accounts',
            vars: { min: { type: 'int' } },
            body: {
              // biome-ignore lint/suspicious/noTemplateCurlyInString: a query template's own ${var} placeholder, not JavaScript's
              $and: [{ $match: { address: 'users:' } }, { $gte: { 'balance[USD]': '${min}' } }],
            },
          },
        },
      },
    });
    const got = await sdk.ledger.v2.getSchema({ ledger, version: 'v1' });
    expect(got.v2SchemaResponse?.data.version).toBe('v1');
    expect(got.v2SchemaResponse?.data.chart.users?.additionalProperties?.$id?.dotPattern).toBe(
      '^[0-9]+$',
    );
    const listed = await sdk.ledger.v2.listSchemas({ ledger });
    expect(listed.v2SchemasCursorResponse?.cursor.data.map((s) => s.version)).toEqual(['v1']);
    const run = await sdk.ledger.v2.runQuery({
      ledger,
      id: 'richUsers',
      schemaVersion: 'v1',
      requestBody: { vars: { min: '15' } },
    });
    const page = run.oneOf as { cursor: { data: Array<{ address: string }> } };
    expect(page.cursor.data.map((a) => a.address)).toEqual(['users:2']);
    await expect(
      sdk.ledger.v2.insertSchema({ ledger, version: 'v1', v2SchemaData: { chart: {} } }),
    ).rejects.toThrow(/SCHEMA_ALREADY_EXISTS/);
  });

  it('binds writes to the chart of the version they name, and runs transaction templates', async () => {
    const send = (destination: string, amount: bigint) => ({
      source: 'world',
      destination,
      amount,
      asset: 'USD',
    });
    // The ledger has a schema now (above): a write names its version, and its postings meet the chart.
    await expect(
      sdk.ledger.v2.createTransaction({
        ledger,
        v2PostTransaction: { postings: [send('users:3', 1n)], metadata: {} },
      }),
    ).rejects.toThrow(/SCHEMA_NOT_SPECIFIED/);
    const created = await sdk.ledger.v2.createTransaction({
      ledger,
      schemaVersion: 'v1',
      v2PostTransaction: { postings: [send('users:3', 1n)], metadata: {} },
    });
    expect(created.v2CreateTransactionResponse?.data.postings[0]?.destination).toBe('users:3');
    await expect(
      sdk.ledger.v2.createTransaction({
        ledger,
        schemaVersion: 'v1',
        v2PostTransaction: { postings: [send('shop:1', 1n)], metadata: {} },
      }),
    ).rejects.toThrow(/not in the chart of accounts/);
    await sdk.ledger.v2.insertSchema({
      ledger,
      version: 'v2',
      v2SchemaData: {
        chart: { world: {}, users: { additionalProperties: { $id: { dotPattern: '^[0-9]+$' } } } },
        transactions: {
          topUp: {
            script:
              'vars { account $user }\nsend [USD 5] (\n  source = @world\n  destination = $user\n)',
          },
        },
      },
    });
    const templated = await sdk.ledger.v2.createTransaction({
      ledger,
      schemaVersion: 'v2',
      v2PostTransaction: { script: { template: 'topUp', vars: { user: 'users:4' } }, metadata: {} },
    });
    expect(templated.v2CreateTransactionResponse?.data).toMatchObject({
      template: 'topUp',
      postings: [{ source: 'world', destination: 'users:4', amount: 5n, asset: 'USD' }],
    });
  });
});

describe('writes under a schema, and asset scaling (issue #29, third part)', () => {
  it('records the version in the log, gives a new account the chart defaults, refuses v1 writes without one', async () => {
    const scoped = 'sdk-parity-schema';
    await sdk.ledger.v2.createLedger({ ledger: scoped, v2CreateLedgerRequest: {} });
    await sdk.ledger.v2.insertSchema({
      ledger: scoped,
      version: 's1',
      v2SchemaData: {
        chart: {
          world: {},
          users: {
            additionalProperties: {
              $id: { dotPattern: '^[0-9]+$', dotMetadata: { tier: { default: 'basic' } } },
            },
          },
        },
      },
    });
    await sdk.ledger.v2.addMetadataToAccount({
      ledger: scoped,
      address: 'users:1',
      schemaVersion: 's1',
      requestBody: { note: 'vip' },
    });
    const account = await sdk.ledger.v2.getAccount({ ledger: scoped, address: 'users:1' });
    expect(account.v2AccountResponse?.data.metadata).toEqual({ tier: 'basic', note: 'vip' });
    const logs = await sdk.ledger.v2.listLogs({ ledger: scoped });
    expect(logs.v2LogsCursorResponse?.cursor.data[0]).toMatchObject({
      type: 'SET_METADATA',
      schemaVersion: 's1',
    });
    // v1 cannot name a version through the SDK: a ledger with schemas refuses its writes, with the code the
    // reference's v1 answers too (SCHEMA_NOT_SPECIFIED, which the SDK's v1 error enum lacks: it reports the body).
    const refused = await sdk.ledger.v1
      .createTransaction({
        ledger: scoped,
        postTransaction: {
          postings: [{ source: 'world', destination: 'users:1', amount: 1n, asset: 'USD' }],
        },
      })
      .then(
        () => undefined,
        (e: { statusCode?: number; body?: string }) => e,
      );
    expect(refused?.statusCode).toBe(400);
    expect(JSON.parse(refused?.body ?? '{}').errorCode).toBe('SCHEMA_NOT_SPECIFIED');
  });

  it('runs a Numscript asset scaling conversion', async () => {
    const scaled = 'sdk-parity-scaling';
    await sdk.ledger.v2.createLedger({ ledger: scaled, v2CreateLedgerRequest: {} });
    await sdk.ledger.v2.createTransaction({
      ledger: scaled,
      v2PostTransaction: {
        postings: [{ source: 'world', destination: 'wallet', amount: 2n, asset: 'EUR' }],
        metadata: {},
      },
    });
    const res = await sdk.ledger.v2.createTransaction({
      ledger: scaled,
      v2PostTransaction: {
        script: {
          plain: `#![feature("experimental-asset-scaling")]
send [EUR/2 150] (
  source = @wallet with scaling through @fx
  destination = @shop
)`,
          vars: {},
        },
        metadata: {},
      },
    });
    expect(res.v2CreateTransactionResponse?.data.postings).toEqual([
      { source: 'wallet', destination: 'fx', amount: 2n, asset: 'EUR' },
      { source: 'fx', destination: 'wallet', amount: 200n, asset: 'EUR/2' },
      { source: 'wallet', destination: 'shop', amount: 150n, asset: 'EUR/2' },
    ]);
  });
});
