/**
 * Writes under a ledger's schema (v2.4) over raw HTTP on the in-process ledger app: `schemaVersion` on writes, the
 * chart of accounts on postings (given or from a script), default account metadata on first use, and transaction
 * templates from a create and from bulk elements. (insertSchema, getSchema, listSchemas and runQuery:
 * ledger-parity.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

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
  ({ runtime } = await testTables());
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

  it('records in each log entry the version its write was checked against', async () => {
    const created = await tx(ledger, { postings: [send('world', 'users:20', 5n)] }, 'v1');
    expect(created.status, created.text).toBe(200);
    const id = created.body.data.id;
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/v2/${ledger}/transactions/${id}/metadata?schemaVersion=v1`, { k: 'v' }],
      ['DELETE', `/v2/${ledger}/transactions/${id}/metadata/k?schemaVersion=v1`, undefined],
      ['POST', `/v2/${ledger}/transactions/${id}/revert?schemaVersion=v1`, undefined],
    ];
    for (const [method, path, body] of writes)
      expect((await call(method, path, body)).status, path).toBeLessThan(300);
    const logs = (await call('GET', `/v2/${ledger}/logs?pageSize=4`)).body.cursor.data;
    expect(
      logs.map((l: { type: string; schemaVersion?: string }) => [l.type, l.schemaVersion]),
    ).toEqual([
      ['REVERTED_TRANSACTION', 'v1'],
      ['DELETE_METADATA', 'v1'],
      ['SET_METADATA', 'v1'],
      ['NEW_TRANSACTION', 'v1'],
    ]);
    // The entry written before the ledger had a schema names none.
    const oldest = (
      await call('GET', `/v2/${ledger}/logs?query=${encodeURIComponent('{"$match":{"id":1}}')}`)
    ).body.cursor.data[0];
    expect(oldest.id).toBe(1n);
    expect('schemaVersion' in oldest).toBe(false);
  });

  it("gives an account a metadata write creates the chart's defaults, as the reference does", async () => {
    const save = (address: string, metadata: Record<string, string>) =>
      call('POST', `/v2/${ledger}/accounts/${address}/metadata?schemaVersion=v1`, metadata);
    expect((await save('users:30', { note: 'vip' })).status).toBe(204);
    expect((await call('GET', `/v2/${ledger}/accounts/users:30`)).body.data.metadata).toEqual({
      tier: 'basic',
      note: 'vip',
    });
    // The log holds what the account got, so an import without the schema gives the same account.
    const log = (await call('GET', `/v2/${ledger}/logs?pageSize=1`)).body.cursor.data[0];
    expect(log.data).toEqual({
      targetType: 'ACCOUNT',
      targetId: 'users:30',
      metadata: { tier: 'basic', note: 'vip' },
    });
    // An account in use keeps what it has; an address the chart does not know is not refused, and gets none.
    expect((await save('users:30', { other: '1' })).status).toBe(204);
    expect((await call('GET', `/v2/${ledger}/accounts/users:30`)).body.data.metadata).toEqual({
      tier: 'basic',
      note: 'vip',
      other: '1',
    });
    expect((await save('shop:1', { a: 'b' })).status).toBe(204);
    expect((await call('GET', `/v2/${ledger}/accounts/shop:1`)).body.data.metadata).toEqual({
      a: 'b',
    });
  });

  it('binds v1 writes like v2 ones: a version is required (v1 names it in the same query parameter)', async () => {
    const refusals: Array<[string, string, unknown]> = [
      ['POST', `/${ledger}/transactions`, { postings: [send('world', 'users:40', 1n)] }],
      [
        'POST',
        `/${ledger}/transactions/batch`,
        { transactions: [{ postings: [send('world', 'users:40', 1n)] }] },
      ],
      [
        'POST',
        `/${ledger}/script`,
        { plain: 'send [USD 1] ( source = @world destination = @users:40 )' },
      ],
      ['POST', `/${ledger}/transactions/1/revert`, undefined],
      ['POST', `/${ledger}/transactions/1/metadata`, { a: 'b' }],
      ['POST', `/${ledger}/accounts/users:40/metadata`, { a: 'b' }],
    ];
    for (const [method, path, body] of refusals) {
      const res = await call(method, path, body);
      expect([res.status, res.body.errorCode], path).toEqual([400, 'SCHEMA_NOT_SPECIFIED']);
    }
    const outside = await call('POST', `/${ledger}/transactions?schemaVersion=v1`, {
      postings: [send('world', 'shop', 1n)],
    });
    expect([outside.status, outside.body.errorCode]).toEqual([400, 'VALIDATION']);
    const created = await call('POST', `/${ledger}/transactions?schemaVersion=v1`, {
      postings: [send('world', 'users:40', 1n)],
    });
    expect(created.status, created.text).toBe(200);
    const batch = await call('POST', `/${ledger}/transactions/batch?schemaVersion=v1`, {
      transactions: [{ postings: [send('world', 'users:41', 2n)] }],
    });
    expect(batch.status, batch.text).toBe(200);
    const meta = await call('POST', `/${ledger}/accounts/users:42/metadata?schemaVersion=v1`, {
      a: 'b',
    });
    expect(meta.status).toBe(204);
    const metadata = async (address: string) =>
      (await call('GET', `/v2/${ledger}/accounts/${address}`)).body.data.metadata;
    expect([
      await metadata('users:40'),
      await metadata('users:41'),
      await metadata('users:42'),
    ]).toEqual([{ tier: 'basic' }, { tier: 'basic' }, { tier: 'basic', a: 'b' }]);
    const logs = (await call('GET', `/v2/${ledger}/logs?pageSize=3`)).body.cursor.data;
    expect(logs.map((l: { schemaVersion?: string }) => l.schemaVersion)).toEqual([
      'v1',
      'v1',
      'v1',
    ]);
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
    expect((await call('POST', `/v2/${ledger}/_bulk?atomic=true`, elements)).body.errorCode).toBe(
      'SCHEMA_NOT_SPECIFIED',
    );
  });

  it('a non-atomic bulk answers a schema error on the element it concerns, the others as usual', async () => {
    const pay = (user: string, amount: string) => ({
      action: 'CREATE_TRANSACTION',
      data: { script: { template: 'pay', vars: { user, amount } } },
    });
    const elements = [
      pay('users:21', 'USD 5'),
      { action: 'CREATE_TRANSACTION', data: { postings: [send('world', 'users:22', 1n)] } },
      { action: 'CREATE_TRANSACTION', data: { script: { template: 'refund', vars: {} } } },
      pay('users:23', 'USD 6'),
    ];
    const all = await call(
      'POST',
      `/v2/${ledger}/_bulk?continueOnFailure=true&schemaVersion=v1`,
      elements,
    );
    expect(all.status).toBe(400);
    expect(all.body.errorCode).toBe('VALIDATION');
    expect(
      all.body.data.map((r: { responseType: string; errorDescription?: string }) => [
        r.responseType,
        r.errorDescription,
      ]),
    ).toEqual([
      ['CREATE_TRANSACTION', undefined],
      ['ERROR', 'schema version [v1]: transactions on this ledger must use a template'],
      ['ERROR', 'schema version [v1]: failed to find transaction template `refund`'],
      ['CREATE_TRANSACTION', undefined],
    ]);
    const balance = async (address: string) =>
      (await call('GET', `/v2/${ledger}/accounts/${address}?expand=volumes`)).body.data?.volumes
        ?.USD?.balance ?? 0n;
    expect([
      await balance('users:21'),
      await balance('users:22'),
      await balance('users:23'),
    ]).toEqual([5n, 0n, 6n]);
    // Without continueOnFailure: what comes before runs, the refused element fails, the rest is not applied.
    const stop = await call('POST', `/v2/${ledger}/_bulk?schemaVersion=v1`, [
      pay('users:24', 'USD 1'),
      elements[1],
      pay('users:25', 'USD 1'),
    ]);
    expect(
      stop.body.data.map((r: { responseType: string; errorDescription?: string }) => [
        r.responseType,
        r.errorDescription,
      ]),
    ).toEqual([
      ['CREATE_TRANSACTION', undefined],
      ['ERROR', 'schema version [v1]: transactions on this ledger must use a template'],
      ['ERROR', 'not applied: element 1 failed'],
    ]);
    expect([await balance('users:24'), await balance('users:25')]).toEqual([1n, 0n]);
    // No version: every element answers it.
    const unnamed = await call('POST', `/v2/${ledger}/_bulk?continueOnFailure=true`, [
      pay('users:26', 'USD 1'),
      pay('users:27', 'USD 1'),
    ]);
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.data.map((r: { errorCode: string }) => r.errorCode)).toEqual([
      'SCHEMA_NOT_SPECIFIED',
      'SCHEMA_NOT_SPECIFIED',
    ]);
    expect(await balance('users:26')).toBe(0n);
  });
});
