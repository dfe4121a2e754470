/**
 * Writes under a ledger's schema (v2.4) over raw HTTP on the in-process ledger app: `schemaVersion` on writes, the
 * chart of accounts on postings (given or from a script), default account metadata on first use, and transaction
 * templates from a create and from bulk elements. (insertSchema, getSchema, listSchemas and runQuery:
 * ledger-parity.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testEnvironment } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const run = Date.now() % 100000;
let counter = 0;
const fresh = async () => {
  const name = `sw${++counter}-${run}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
};
const send = (source: string, destination: string, amount: bigint) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});
const tx = (ledger: string, body: unknown, version?: string) =>
  call('POST', `/v2/${ledger}/transactions${version ? `?schemaVersion=${version}` : ''}`, body);
const CHART = {
  world: {},
  bank: { '.self': {}, fees: {}, '.metadata': { kind: { default: 'bank' } } },
  users: {
    $id: {
      '.pattern': '^[0-9]+$',
      '.metadata': { tier: { default: 'basic' }, note: {} },
    },
  },
};
const PAY = `vars {
  account $user
  monetary $amount
}
send $amount (
  source = @world
  destination = $user
)`;

beforeAll(async () => {
  ({ runtime } = await testEnvironment());
  ({ call } = await ledgerClient(runtime));
});

describe('a ledger without schemas', () => {
  it('takes writes that name no version, and refuses a version or a template it does not have', async () => {
    const ledger = await fresh();
    expect((await tx(ledger, { postings: [send('world', 'anyone', 1n)] })).status).toBe(200);
    expect((await tx(ledger, { postings: [send('world', 'anyone', 1n)] }, 'v1')).body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: "schema version `v1` not found, this ledger doesn't have a schema",
    });
    expect((await tx(ledger, { script: { template: 'pay', vars: {} } })).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        'schema version []: can only use templates on a schema with transaction definitions',
    });
  });
});

describe('a ledger with a chart of accounts', () => {
  let ledger = '';
  beforeAll(async () => {
    ledger = await fresh();
    expect((await tx(ledger, { postings: [send('world', 'legacy', 1n)] })).status).toBe(200);
    const inserted = await call('POST', `/v2/${ledger}/schemas/v1`, { chart: CHART });
    expect(inserted.status, inserted.text).toBe(204);
  });

  it('requires every v2 write to name a version, and names the latest', async () => {
    const notSpecified = {
      errorCode: 'SCHEMA_NOT_SPECIFIED',
      errorMessage:
        'a schema version must be specified for this ledger, latest available version is v1',
    };
    expect((await tx(ledger, { postings: [send('world', 'users:1', 1n)] })).body).toEqual(
      notSpecified,
    );
    expect((await call('POST', `/v2/${ledger}/transactions/1/metadata`, { a: 'b' })).body).toEqual(
      notSpecified,
    );
    expect((await call('POST', `/v2/${ledger}/accounts/legacy/metadata`, { a: 'b' })).body).toEqual(
      notSpecified,
    );
    expect((await call('POST', `/v2/${ledger}/transactions/1/revert`)).body).toEqual(notSpecified);
    expect((await tx(ledger, { postings: [send('world', 'users:1', 1n)] }, 'v2')).body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: 'schema version `v2` not found, latest available version is `v1`',
    });
    const metadata = await call('POST', `/v2/${ledger}/transactions/1/metadata?schemaVersion=v1`, {
      a: 'b',
    });
    expect(metadata.status).toBe(204);
  });

  it('refuses postings to accounts outside the chart, given or from a script, writing nothing', async () => {
    const before = (await call('GET', `/v2/${ledger}/transactions`)).body.cursor.data.length;
    for (const [body, message] of [
      [
        { postings: [send('world', 'shop', 1n)] },
        'schema version [v1]: account "shop" is not in the chart of accounts: segment "shop" is not one of the chart\'s segments',
      ],
      [
        { postings: [send('world', 'users:1', 1n), send('users:1', 'users:abc', 1n)] },
        'schema version [v1]: account "users:abc" is not in the chart of accounts: segment "abc" after "users" does not match the pattern of the chart\'s segments',
      ],
      [
        { script: { plain: 'send [USD 1] ( source = @world destination = @users )' } },
        'schema version [v1]: account "users" is not in the chart of accounts: "users" is a segment of the chart, not an account',
      ],
    ] as const) {
      const res = await tx(ledger, body, 'v1');
      expect(res.body, message).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: message,
      });
    }
    expect((await call('GET', `/v2/${ledger}/transactions`)).body.cursor.data).toHaveLength(before);
    expect((await call('GET', `/v2/${ledger}/accounts/shop`)).status).toBe(404);
  });

  it("gives an account the chart's default metadata on its first use only, under what the write sets", async () => {
    const first = await tx(
      ledger,
      {
        postings: [send('world', 'users:7', 10n), send('users:7', 'bank', 3n)],
        accountMetadata: { 'users:8': { tier: 'gold' } },
      },
      'v1',
    );
    expect(first.status, first.text).toBe(200);
    const metadata = async (address: string) =>
      (await call('GET', `/v2/${ledger}/accounts/${address}`)).body.data.metadata;
    expect(await metadata('users:7')).toEqual({ tier: 'basic' });
    expect(await metadata('bank')).toEqual({ kind: 'bank' });
    // Named only in accountMetadata: the chart's defaults under the write's own value.
    expect(await metadata('users:8')).toEqual({ tier: 'gold' });
    // world and legacy were in use before: no defaults for them, and none to give.
    expect(await metadata('world')).toEqual({});
    expect(
      (
        await call('POST', `/v2/${ledger}/accounts/users:7/metadata?schemaVersion=v1`, {
          tier: 'x',
        })
      ).status,
    ).toBe(204);
    // A later transaction leaves an account already in use as it is.
    expect((await tx(ledger, { postings: [send('world', 'users:7', 1n)] }, 'v1')).status).toBe(200);
    expect(await metadata('users:7')).toEqual({ tier: 'x' });
    // A script's postings are checked too, and its new accounts get their defaults.
    const scripted = await tx(
      ledger,
      { script: { plain: 'send [USD 2] ( source = @users:7 destination = @users:9 )' } },
      'v1',
    );
    expect(scripted.status, scripted.text).toBe(200);
    expect(await metadata('users:9')).toEqual({ tier: 'basic' });
    const log = (await call('GET', `/v2/${ledger}/logs?pageSize=1`)).body.cursor.data[0];
    expect(log.data.accountMetadata).toEqual({ 'users:9': { tier: 'basic' } });
  });
});

describe('a version with transaction templates', () => {
  let ledger = '';
  beforeAll(async () => {
    ledger = await fresh();
    const inserted = await call('POST', `/v2/${ledger}/schemas/v1`, {
      chart: CHART,
      transactions: { pay: { script: PAY, description: 'pay a user' } },
    });
    expect(inserted.status, inserted.text).toBe(204);
  });

  it('runs the named template with the write’s vars, and records its id on the transaction', async () => {
    const res = await tx(
      ledger,
      {
        script: { template: 'pay', vars: { user: 'users:5', amount: 'USD 42' } },
        metadata: { order: '1' },
      },
      'v1',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      postings: [{ source: 'world', destination: 'users:5', amount: 42n, asset: 'USD' }],
      metadata: { order: '1' },
      template: 'pay',
    });
    const read = await call('GET', `/v2/${ledger}/transactions/${res.body.data.id}`);
    expect(read.body.data.template).toBe('pay');
    // The template's postings meet the chart too.
    const outside = await tx(
      ledger,
      { script: { template: 'pay', vars: { user: 'shop', amount: 'USD 1' } } },
      'v1',
    );
    expect(outside.body.errorMessage).toMatch(
      /^schema version \[v1\]: account "shop" is not in the chart/,
    );
  });

  it('takes template writes only, of templates it has', async () => {
    const refusals: Array<[unknown, string]> = [
      [
        { postings: [send('world', 'users:5', 1n)] },
        'schema version [v1]: transactions on this ledger must use a template',
      ],
      [
        { script: { plain: 'send [USD 1] ( source = @world destination = @users:5 )' } },
        'schema version [v1]: transactions on this ledger must use a template',
      ],
      [
        { script: { template: 'refund', vars: {} } },
        'schema version [v1]: failed to find transaction template `refund`',
      ],
      [
        { script: { template: 'pay', plain: 'send [USD 1] ( source = @world destination = @x )' } },
        'body: cannot pass numscript and template in the same request',
      ],
    ];
    for (const [body, message] of refusals)
      expect((await tx(ledger, body, 'v1')).body, message).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: message,
      });
  });

  it('serves bulk create elements from templates, under the bulk’s schemaVersion', async () => {
    const elements = [
      {
        action: 'CREATE_TRANSACTION',
        data: { script: { template: 'pay', vars: { user: 'users:11', amount: 'USD 3' } } },
      },
      {
        action: 'CREATE_TRANSACTION',
        data: { script: { template: 'pay', vars: { user: 'users:12', amount: 'USD 4' } } },
      },
    ];
    const bulk = await call('POST', `/v2/${ledger}/_bulk?atomic=true&schemaVersion=v1`, elements);
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.map((r: { data: { template: string } }) => r.data.template)).toEqual([
      'pay',
      'pay',
    ]);
    expect(
      (await call('GET', `/v2/${ledger}/accounts/users:12?expand=volumes`)).body.data,
    ).toMatchObject({ metadata: { tier: 'basic' }, volumes: { USD: { balance: 4n } } });
    expect((await call('POST', `/v2/${ledger}/_bulk`, elements)).body.errorCode).toBe(
      'SCHEMA_NOT_SPECIFIED',
    );
  });
});
