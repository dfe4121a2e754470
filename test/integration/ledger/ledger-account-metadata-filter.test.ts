import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
const addresses = (res: { body: { cursor: { data: Array<{ address: string }> } } }) =>
  res.body.cursor.data.map((a) => a.address);
const byTier = (ledger: string, tier: string, extra = '') =>
  call('GET', `/v2/${ledger}/accounts?${q({ $match: { 'metadata[tier]': tier } })}${extra}`);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('account metadata filter', () => {
  it('finds accounts by metadata value, following every kind of metadata change', async () => {
    expect((await call('POST', '/v2/mf')).status).toBe(204);
    // Metadata set three ways: on a new account, through a transaction's accountMetadata, and on an existing one.
    expect((await call('POST', '/v2/mf/accounts/users:3/metadata', { tier: 'gold' })).status).toBe(
      204,
    );
    expect(
      (
        await call('POST', '/v2/mf/transactions', {
          postings: [{ source: 'world', destination: 'users:1', amount: 1n, asset: 'USD' }],
          accountMetadata: { 'users:1': { tier: 'gold' }, 'users:2': { tier: 'silver' } },
        })
      ).status,
    ).toBe(200);
    expect(addresses(await byTier('mf', 'gold'))).toEqual(['users:1', 'users:3']);
    expect(addresses(await byTier('mf', 'silver'))).toEqual(['users:2']);

    // A changed value moves the account from one index partition to the other; a deleted key removes it.
    expect(
      (await call('POST', '/v2/mf/accounts/users:1/metadata', { tier: 'silver' })).status,
    ).toBe(204);
    expect((await call('DELETE', '/v2/mf/accounts/users:3/metadata/tier')).status).toBe(204);
    expect(addresses(await byTier('mf', 'gold'))).toEqual([]);
    expect(addresses(await byTier('mf', 'silver'))).toEqual(['users:1', 'users:2']);

    const count = await call(
      'HEAD',
      `/v2/mf/accounts?${q({ $match: { 'metadata[tier]': 'silver' } })}`,
    );
    expect(count.headers.get('count')).toBe('2');
    const expanded = await byTier('mf', 'silver', '&expand=volumes');
    expect(expanded.body.cursor.data[0].volumes).toEqual({
      USD: { input: 1n, output: 0n, balance: 1n },
    });
  });

  it('pages with a cursor that keeps the filter, and refuses a cursor from another filter', async () => {
    expect((await call('POST', '/v2/mf2')).status).toBe(204);
    for (const n of [1, 2, 3, 4, 5])
      expect(
        (await call('POST', `/v2/mf2/accounts/a:${n}/metadata`, { tier: n % 2 ? 'odd' : 'even' }))
          .status,
      ).toBe(204);
    const first = await byTier('mf2', 'odd', '&pageSize=2');
    expect(addresses(first)).toEqual(['a:1', 'a:3']);
    const second = await call('GET', `/v2/mf2/accounts?cursor=${first.body.cursor.next}`);
    expect(addresses(second)).toEqual(['a:5']);
    expect(second.body.cursor.hasMore).toBe(false);
    // The same cursor's start key under another filter is refused, not passed to DynamoDB.
    const forged = JSON.parse(Buffer.from(first.body.cursor.next, 'base64url').toString());
    forged.f.query = JSON.stringify({ $match: { 'metadata[tier]': 'even' } });
    const res = await call(
      'GET',
      `/v2/mf2/accounts?cursor=${Buffer.from(JSON.stringify(forged)).toString('base64url')}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe('cursor: not a cursor of this list');
  });

  it('handles long keys and values, and still refuses what no index serves', async () => {
    expect((await call('POST', '/v2/mf3')).status).toBe(204);
    const key = 'k'.repeat(256);
    const value = 'v'.repeat(4096);
    expect((await call('POST', '/v2/mf3/accounts/x/metadata', { [key]: value })).status).toBe(204);
    const found = await call(
      'GET',
      `/v2/mf3/accounts?${q({ $match: { [`metadata[${key}]`]: value } })}`,
    );
    expect(addresses(found)).toEqual(['x']);
    for (const query of [
      { $match: { 'balance[USD]': 'one' } },
      { $match: { 'metadata[tier]': 1 } },
    ]) {
      const res = await call('GET', `/v2/mf3/accounts?${q(query)}`);
      expect(res.status).toBe(400);
    }
    // Aggregates take the same language and refuse the same malformed filters.
    const agg = await call(
      'GET',
      `/v2/mf3/aggregate/balances?${q({ $match: { 'metadata[tier]': 1 } })}`,
    );
    expect(agg.status).toBe(400);
  });
});
