import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../lib/platform/runtime.js';
import { ledgerClient } from '../support/ledger.js';
import { testEnvironment } from '../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({ source, destination, amount, asset });
const volumes = (ledger: string, query = '') => call('GET', `/v2/${ledger}/volumes${query}`);

beforeAll(async () => {
  ({ runtime } = await testEnvironment());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', '/v2/vol')).status).toBe(204);
  for (const body of [
    { postings: [send('world', 'alice', 100n), send('world', 'alice', 7n, 'EUR')], timestamp: '2026-03-01T00:00:00Z' },
    { postings: [send('alice', 'bob', 30n)], timestamp: '2026-03-02T00:00:00Z' },
    { postings: [send('alice', 'bob', 5n)], timestamp: '2026-02-15T00:00:00Z' },
  ]) {
    expect((await call('POST', '/v2/vol/transactions', body)).status).toBe(200);
  }
});

describe('volumes', () => {
  it('lists current volumes per account and asset, by address', async () => {
    const res = await volumes('vol');
    expect(res.status, res.text).toBe(200);
    expect(res.body.cursor.data).toEqual([
      { account: 'alice', asset: 'EUR', input: 7n, output: 0n, balance: 7n },
      { account: 'alice', asset: 'USD', input: 100n, output: 35n, balance: 65n },
      { account: 'bob', asset: 'USD', input: 35n, output: 0n, balance: 35n },
      { account: 'world', asset: 'EUR', input: 0n, output: 7n, balance: -7n },
      { account: 'world', asset: 'USD', input: 0n, output: 100n, balance: -100n },
    ]);
  });

  it('sums moves over an effective-time window (start inclusive, end exclusive), back-dated ones included', async () => {
    const march = await volumes('vol', '?startTime=2026-03-01T00:00:00Z&endTime=2026-03-02T00:00:00Z');
    expect(march.body.cursor.data).toEqual([
      { account: 'alice', asset: 'EUR', input: 7n, output: 0n, balance: 7n },
      { account: 'alice', asset: 'USD', input: 100n, output: 0n, balance: 100n },
      { account: 'world', asset: 'EUR', input: 0n, output: 7n, balance: -7n },
      { account: 'world', asset: 'USD', input: 0n, output: 100n, balance: -100n },
    ]);
    const upTo = await volumes('vol', `?endTime=2026-03-01T00:00:00Z&query=${encodeURIComponent('{"$match":{"address":"bob"}}')}`);
    expect(upTo.body.cursor.data).toEqual([{ account: 'bob', asset: 'USD', input: 5n, output: 0n, balance: 5n }]);
  });

  it('pages by account and keeps the window in the cursor', async () => {
    const first = await volumes('vol', '?pageSize=1&startTime=2026-03-02T00:00:00Z');
    expect(first.body.cursor.data).toEqual([{ account: 'alice', asset: 'USD', input: 0n, output: 30n, balance: -30n }]);
    const second = await call('GET', `/v2/vol/volumes?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data).toEqual([{ account: 'bob', asset: 'USD', input: 30n, output: 0n, balance: 30n }]);
  });

  it('records one move per transaction, account and asset, with post-commit volumes', async () => {
    const { Items = [] } = await runtime.doc.send(new QueryCommand({ TableName: runtime.config.tables.ledger, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'L#vol#MV#alice#USD' } }));
    expect(Items.map((m) => [Number(m.txId), ...[m.input, m.output, m.postInput, m.postOutput].map((v) => BigInt(v))])).toEqual([
      [3, 0n, 5n, 100n, 35n],
      [1, 100n, 0n, 100n, 0n],
      [2, 0n, 30n, 100n, 30n],
    ]);
  });

  it('refuses windows without MOVES_HISTORY (and writes no moves), and bad parameters', async () => {
    expect((await call('POST', '/v2/nomoves', { features: { MOVES_HISTORY: 'OFF' } })).status).toBe(204);
    expect((await call('POST', '/v2/nomoves/transactions', { postings: [send('world', 'a', 1n)] })).status).toBe(200);
    const refused = await volumes('nomoves', '?startTime=2026-01-01T00:00:00Z');
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toBe('missing feature "MOVES_HISTORY"');
    expect((await volumes('nomoves')).body.cursor.data).toHaveLength(2);
    const { Items = [] } = await runtime.doc.send(new QueryCommand({ TableName: runtime.config.tables.ledger, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'L#nomoves#MV#a#USD' } }));
    expect(Items).toEqual([]);
    for (const bad of ['?startTime=nope', '?startTime=2026-03-02T00:00:00Z&endTime=2026-03-01T00:00:00Z', '?insertionDate=true', '?groupBy=1', '?whatever=1']) {
      const res = await volumes('vol', bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
  });
});
