import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMove } from '../../../lib/ledger/store/move-codec.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const volumes = (ledger: string, query = '') => call('GET', `/v2/${ledger}/volumes${query}`);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', '/v2/vol')).status).toBe(204);
  for (const body of [
    {
      postings: [send('world', 'alice', 100n), send('world', 'alice', 7n, 'EUR')],
      timestamp: '2026-03-01T00:00:00Z',
    },
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

  it('sums moves over an effective-time window (both ends inclusive, as the reference), back-dated ones included', async () => {
    const march = await volumes(
      'vol',
      '?startTime=2026-03-01T00:00:00Z&endTime=2026-03-01T23:59:59Z',
    );
    expect(march.body.cursor.data).toEqual([
      { account: 'alice', asset: 'EUR', input: 7n, output: 0n, balance: 7n },
      { account: 'alice', asset: 'USD', input: 100n, output: 0n, balance: 100n },
      { account: 'world', asset: 'EUR', input: 0n, output: 7n, balance: -7n },
      { account: 'world', asset: 'USD', input: 0n, output: 100n, balance: -100n },
    ]);
    // endTime at the instant of a move includes it.
    const through = await volumes(
      'vol',
      `?startTime=2026-03-01T00:00:00Z&endTime=2026-03-02T00:00:00Z&query=${encodeURIComponent('{"$match":{"account":"bob"}}')}`,
    );
    expect(through.body.cursor.data).toEqual([
      { account: 'bob', asset: 'USD', input: 30n, output: 0n, balance: 30n },
    ]);
    const instant = await volumes(
      'vol',
      '?startTime=2026-03-02T00:00:00Z&endTime=2026-03-02T00:00:00Z&query=' +
        encodeURIComponent('{"$match":{"address":"alice"}}'),
    );
    expect(instant.body.cursor.data).toEqual([
      { account: 'alice', asset: 'USD', input: 0n, output: 30n, balance: -30n },
    ]);
    const upTo = await volumes(
      'vol',
      `?endTime=2026-03-01T00:00:00Z&query=${encodeURIComponent('{"$match":{"address":"bob"}}')}`,
    );
    expect(upTo.body.cursor.data).toEqual([
      { account: 'bob', asset: 'USD', input: 5n, output: 0n, balance: 5n },
    ]);
  });

  it('pages by account and keeps the window in the cursor', async () => {
    const first = await volumes('vol', '?pageSize=1&startTime=2026-03-02T00:00:00Z');
    expect(first.body.cursor.data).toEqual([
      { account: 'alice', asset: 'USD', input: 0n, output: 30n, balance: -30n },
    ]);
    const second = await call('GET', `/v2/vol/volumes?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data).toEqual([
      { account: 'bob', asset: 'USD', input: 30n, output: 0n, balance: 30n },
    ]);
  });

  it('records one move per transaction, account and asset in commit order on the volume item, and a late copy of a back-dated one', async () => {
    const { Item: volume } = await runtime.doc.send(
      new GetCommand({
        TableName: runtime.config.tables.ledger,
        Key: { pk: 'E#default#L#vol#A#alice', sk: 'V#USD' },
      }),
    );
    expect(
      (volume!.mv as string[])
        .map(decodeMove)
        .map((m) => [m.txId, m.at, m.input, m.output, m.source, m.destination, m.late]),
    ).toEqual([
      [1, '2026-03-01T00:00:00.000000Z', 100n, 0n, false, true, false],
      [2, '2026-03-02T00:00:00.000000Z', 0n, 30n, true, false, false],
      [3, '2026-02-15T00:00:00.000000Z', 0n, 5n, true, false, true],
    ]);
    expect(volume!.lastMoveKey).toBe('2026-03-02T00:00:00.000000Z#000000000000002');
    expect(Number(volume!.lateMoves)).toBe(1);
    const { Items = [] } = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': 'E#default#L#vol#MVL#alice#USD' },
      }),
    );
    expect(
      Items.map((m) => [m.sk, Number(m.txId), BigInt(m.input), BigInt(m.output), m.lateOf]),
    ).toEqual([
      [
        '2026-02-15T00:00:00.000000Z#000000000000003',
        3,
        0n,
        5n,
        '2026-03-02T00:00:00.000000Z#000000000000002',
      ],
    ]);
  });

  it('refuses windows without MOVES_HISTORY (and writes no moves when no feature needs them), and bad parameters', async () => {
    // INDEX_TRANSACTION_ACCOUNTS lists an account's transactions from its moves: off too, nothing keeps them.
    expect(
      (
        await call('POST', '/v2/nomoves', {
          features: { MOVES_HISTORY: 'OFF', INDEX_TRANSACTION_ACCOUNTS: 'OFF' },
        })
      ).status,
    ).toBe(204);
    expect(
      (await call('POST', '/v2/nomoves/transactions', { postings: [send('world', 'a', 1n)] }))
        .status,
    ).toBe(200);
    const refused = await volumes('nomoves', '?startTime=2026-01-01T00:00:00Z');
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toBe('missing feature "MOVES_HISTORY"');
    expect((await volumes('nomoves')).body.cursor.data).toHaveLength(2);
    const { Item: volume } = await runtime.doc.send(
      new GetCommand({
        TableName: runtime.config.tables.ledger,
        Key: { pk: 'E#default#L#nomoves#A#a', sk: 'V#USD' },
      }),
    );
    expect(volume!.mv).toBeUndefined();
    for (const bad of [
      '?startTime=nope',
      '?startTime=2026-03-02T00:00:00Z&endTime=2026-03-01T00:00:00Z',
      '?insertionDate=maybe',
      '?groupBy=x',
      '?whatever=1',
    ]) {
      const res = await volumes('vol', bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
  });
});

describe('volume filters and groupBy', () => {
  const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
  const rows = (res: { body: any }) =>
    res.body.cursor.data.map((r: any) => [r.account, r.asset, r.balance]);

  beforeAll(async () => {
    expect((await call('POST', '/v2/volg')).status).toBe(204);
    const postings = [
      send('world', 'users', 1n),
      send('world', 'users:1', 10n),
      send('world', 'users:1:eur', 5n, 'EUR'),
      send('world', 'users:2', 20n),
      send('world', 'users-x', 100n),
      send('world', 'users0', 1000n),
      send('world', 'bank:main', 7n),
    ];
    expect((await call('POST', '/v2/volg/transactions', { postings, metadata: {} })).status).toBe(
      200,
    );
    expect(
      (await call('POST', '/v2/volg/accounts/users:2/metadata', { tier: 'gold' })).status,
    ).toBe(204);
  });

  it('filters rows on address (account alias), balance[ASSET], balance and metadata', async () => {
    expect(rows(await volumes('volg', `?${q({ $match: { account: 'users:1' } })}`))).toEqual([
      ['users:1', 'USD', 10n],
    ]);
    expect(
      rows(
        await volumes(
          'volg',
          `?${q({ $and: [{ $match: { address: 'users:' } }, { $gt: { 'balance[USD]': 10 } }] })}`,
        ),
      ),
    ).toEqual([['users:2', 'USD', 20n]]);
    expect(rows(await volumes('volg', `?${q({ $lt: { balance: 0 } })}`))).toEqual([
      ['world', 'EUR', -5n],
      ['world', 'USD', -1138n],
    ]);
    expect(rows(await volumes('volg', `?${q({ $match: { 'metadata[tier]': 'gold' } })}`))).toEqual([
      ['users:2', 'USD', 20n],
    ]);
    expect(rows(await volumes('volg', `?${q({ $match: { address: 'users::eur' } })}`))).toEqual([
      ['users:1:eur', 'EUR', 5n],
    ]);
  });

  it('groups by the first segments of the address, each group once, whatever the page boundaries', async () => {
    const expected = [
      ['bank', 'USD', 7n],
      ['users', 'EUR', 5n],
      ['users', 'USD', 31n],
      ['users-x', 'USD', 100n],
      ['users0', 'USD', 1000n],
      ['world', 'EUR', -5n],
      ['world', 'USD', -1138n],
    ];
    const all: unknown[] = [];
    let next: string | undefined;
    do {
      const res = await volumes('volg', next ? `?cursor=${next}` : '?groupBy=1&pageSize=2');
      expect(res.status, res.text).toBe(200);
      all.push(...rows(res));
      next = res.body.cursor.hasMore ? res.body.cursor.next : undefined;
    } while (next);
    // Groups in the order their first member is listed (users, users-x, users0 sort around users:...).
    expect(
      [...all].sort((a: any, b: any) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`)),
    ).toEqual(expected);
    expect(all).toHaveLength(expected.length);
    // Two segments, within a prefix: users:1 holds users:1 and users:1:eur.
    const two = await volumes('volg', `?groupBy=2&${q({ $match: { address: 'users:' } })}`);
    expect(rows(two)).toEqual([
      ['users:1', 'EUR', 5n],
      ['users:1', 'USD', 10n],
      ['users:2', 'USD', 20n],
    ]);
    // With a row filter: only rows that pass are summed.
    const rich = await volumes('volg', `?groupBy=1&${q({ $gte: { 'balance[USD]': 10 } })}`);
    expect(rows(rich).filter((r: any) => r[0] === 'users')).toEqual([['users', 'USD', 30n]]);
  });
});
