/**
 * Point-in-time reads (`pit`) of transactions and accounts, against a ledger written with a controlled clock:
 * which transactions and accounts exist then (effective time), their metadata then (revisions, insertion time),
 * `reverted` then, `order`, the errors, and cursors keeping `pit`.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let clock = Date.parse('2026-05-01T10:00:00Z');
/** Insertion times: the ledger's clock when each write of the scenario ran. */
const at = (minute: number) => `2026-05-01T10:${String(minute).padStart(2, '0')}:00Z`;
const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const ids = (res: { body: any }) => res.body.cursor.data.map((t: { id: bigint }) => Number(t.id));
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
const ledger = 'pit';

async function write(minute: number, method: string, path: string, body?: unknown) {
  clock = Date.parse(at(minute));
  const res = await call(method, `/v2/${ledger}${path}`, body);
  expect(res.status, res.text).toBeLessThan(300);
  return res;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  // 10:00 tx1, dated March 1st, with metadata.
  await write(0, 'POST', '/transactions', {
    postings: [send('world', 'alice', 100n)],
    timestamp: '2026-03-01T00:00:00Z',
    metadata: { step: '1' },
  });
  // 10:01 tx2, dated March 5th.
  await write(1, 'POST', '/transactions', {
    postings: [send('alice', 'bob', 30n)],
    timestamp: '2026-03-05T00:00:00Z',
  });
  // 10:02 tx3, back-dated to February 15th: alice and bob are first used then; bob is written with metadata.
  await write(2, 'POST', '/transactions', {
    postings: [send('alice', 'bob', 5n)],
    timestamp: '2026-02-15T00:00:00Z',
    accountMetadata: { bob: { since: 'feb' } },
  });
  // 10:03 tx1's metadata changes.
  await write(3, 'POST', '/transactions/1/metadata', { step: '2', extra: 'x' });
  // 10:04 alice gets metadata.
  await write(4, 'POST', '/accounts/alice/metadata', { tier: 'gold' });
  // 10:05 tx2 is reverted: tx4, dated now.
  await write(5, 'POST', '/transactions/2/revert');
  // 10:06 tx5, dated in the future (June 1st): carol is first used then.
  await write(6, 'POST', '/transactions', {
    postings: [send('world', 'carol', 7n, 'EUR')],
    timestamp: '2026-06-01T00:00:00Z',
  });
  // 10:07 alice's metadata changes again; 10:08 a key of tx1's is deleted.
  await write(7, 'POST', '/accounts/alice/metadata', { tier: 'platinum' });
  await write(8, 'DELETE', '/transactions/1/metadata/extra');
});

describe('metadata revisions', () => {
  it('keep the metadata before each change (what a point in time before the first revision reads)', async () => {
    const query = async (pk: string) =>
      (
        await runtime.doc.send(
          new QueryCommand({
            TableName: runtime.config.tables.ledger,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': pk },
          }),
        )
      ).Items ?? [];
    const tx1 = await query(`E#default#L#${ledger}#TXMH#1`);
    expect(tx1.map((r) => [r.before, r.metadata, r.date])).toEqual([
      [{ step: '1' }, { step: '2', extra: 'x' }, '2026-05-01T10:03:00Z'],
      [{ step: '2', extra: 'x' }, { step: '2' }, '2026-05-01T10:08:00Z'],
    ]);
    const alice = (await query(`E#default#L#${ledger}#A#alice`)).filter((i) =>
      String(i.sk).startsWith('MH#'),
    );
    expect(alice.map((r) => [r.before, r.metadata, r.date])).toEqual([
      [{}, { tier: 'gold' }, '2026-05-01T10:04:00Z'],
      [{ tier: 'gold' }, { tier: 'platinum' }, '2026-05-01T10:07:00Z'],
    ]);
  });
});

describe('GET /v2/<ledger>/transactions?pit=', () => {
  it('lists the transactions dated at or before pit (effective time, back-dated ones included), by id', async () => {
    const cases: Array<[string, number[]]> = [
      ['2026-02-01T00:00:00Z', []],
      ['2026-02-15T00:00:00Z', [3]], // inclusive
      ['2026-03-02T00:00:00Z', [3, 1]],
      ['2026-05-01T10:04:30Z', [3, 2, 1]], // tx4 (the revert) is dated 10:05
      ['2026-05-01T10:05:00Z', [4, 3, 2, 1]],
      ['2026-05-31T00:00:00Z', [4, 3, 2, 1]], // tx5 was inserted at 10:06 but is dated June 1st
      ['2026-07-01T00:00:00Z', [5, 4, 3, 2, 1]],
    ];
    for (const [pit, expected] of cases) {
      const res = await call('GET', `/v2/${ledger}/transactions?pit=${pit}`);
      expect(res.status, res.text).toBe(200);
      expect(ids(res), pit).toEqual(expected);
      const reversed = await call('GET', `/v2/${ledger}/transactions?pit=${pit}&reverse=true`);
      expect(ids(reversed), pit).toEqual([...expected].reverse());
      const count = await call('HEAD', `/v2/${ledger}/transactions?pit=${pit}`);
      expect(count.status).toBe(204);
      expect(count.headers.get('count'), pit).toBe(String(expected.length));
    }
    // An offset means the same instant; an empty pit is no point in time, as the reference.
    expect(
      ids(
        await call(
          'GET',
          `/v2/${ledger}/transactions?pit=${encodeURIComponent('2026-03-02T02:00:00+02:00')}`,
        ),
      ),
    ).toEqual([3, 1]);
    expect(ids(await call('GET', `/v2/${ledger}/transactions?pit=`))).toEqual([5, 4, 3, 2, 1]);
    expect((await call('HEAD', `/v2/${ledger}/transactions`)).headers.get('count')).toBe('5');
  });

  it('shows metadata as it was then: before the first change, between changes, after the last', async () => {
    const tx1 = async (pit: string) =>
      (await call('GET', `/v2/${ledger}/transactions?pit=${pit}`)).body.cursor.data.find(
        (t: { id: bigint }) => t.id === 1n,
      );
    expect((await tx1('2026-03-02T00:00:00Z')).metadata).toEqual({ step: '1' });
    expect((await tx1('2026-05-01T10:02:59Z')).metadata).toEqual({ step: '1' });
    expect((await tx1('2026-05-01T10:03:00Z')).metadata).toEqual({ step: '2', extra: 'x' });
    expect((await tx1('2026-05-01T10:07:59Z')).metadata).toEqual({ step: '2', extra: 'x' });
    expect((await tx1('2026-05-01T10:08:00Z')).metadata).toEqual({ step: '2' });
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data.metadata).toEqual({
      step: '2',
    });
    // A transaction whose metadata never changed shows it at any point (the revert's own metadata).
    const revert = (await call('GET', `/v2/${ledger}/transactions?pit=2026-05-01T10:05:00Z`)).body
      .cursor.data[0];
    expect(revert.metadata).toEqual({ 'com.formance.spec/state/reverts': '2' });
  });

  it('shows a transaction reverted only once its revert was written', async () => {
    const tx2 = async (pit: string) =>
      (await call('GET', `/v2/${ledger}/transactions?pit=${pit}`)).body.cursor.data.find(
        (t: { id: bigint }) => t.id === 2n,
      );
    const before = await tx2('2026-05-01T10:04:59Z');
    expect(before.reverted).toBe(false);
    expect(before).not.toHaveProperty('revertedAt');
    const after = await tx2('2026-05-01T10:05:00Z');
    expect(after.reverted).toBe(true);
    expect(after.revertedAt).toBe('2026-05-01T10:05:00Z');
  });

  it('orders by timestamp with order=effective (reverse ascending), with or without pit', async () => {
    expect(ids(await call('GET', `/v2/${ledger}/transactions?order=effective`))).toEqual([
      5, 4, 2, 1, 3,
    ]);
    expect(
      ids(await call('GET', `/v2/${ledger}/transactions?order=effective&reverse=true`)),
    ).toEqual([3, 1, 2, 4, 5]);
    expect(
      ids(await call('GET', `/v2/${ledger}/transactions?order=effective&pit=2026-05-01T10:04:00Z`)),
    ).toEqual([2, 1, 3]);
    // A timestamp range is listed by timestamp already; pit narrows it.
    const range = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-03-02T00:00:00Z&${q({ $gte: { timestamp: '2026-02-20T00:00:00Z' } })}`,
    );
    expect(ids(range)).toEqual([1]);
    const empty = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-01-01T00:00:00Z&${q({ $gte: { timestamp: '2026-02-20T00:00:00Z' } })}`,
    );
    expect(ids(empty)).toEqual([]);
  });

  it('serves pit with the account, reference and metadata filters (metadata only without history)', async () => {
    const account = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-03-02T00:00:00Z&${q({ $match: { account: 'bob' } })}`,
    );
    expect(ids(account)).toEqual([3]);
    const source = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-05-01T10:05:00Z&${q({ $match: { source: 'bob' } })}`,
    );
    expect(ids(source)).toEqual([4]);
    const count = await call(
      'HEAD',
      `/v2/${ledger}/transactions?pit=2026-05-01T10:05:00Z&${q({ $match: { account: 'alice' } })}`,
    );
    expect(count.headers.get('count')).toBe('4');
    expect(
      ids(
        await call(
          'GET',
          `/v2/${ledger}/transactions?pit=2026-03-02T00:00:00Z&${q({ $match: { reference: 'none' } })}`,
        ),
      ),
    ).toEqual([]);
    // With metadata history, a metadata filter at pit judges the metadata as it was then (tx1: step 1 until 10:03).
    const metadataAt = (pit: string, step: string) =>
      call(
        'GET',
        `/v2/${ledger}/transactions?pit=${pit}&${q({ $match: { 'metadata[step]': step } })}`,
      ).then(ids);
    expect(await metadataAt('2026-03-02T00:00:00Z', '2')).toEqual([]);
    expect(await metadataAt('2026-03-02T00:00:00Z', '1')).toEqual([1]);
    expect(await metadataAt('2026-05-01T10:05:00Z', '2')).toEqual([1]);
    const atCount = await call(
      'HEAD',
      `/v2/${ledger}/transactions?pit=2026-03-02T00:00:00Z&${q({ $match: { 'metadata[step]': '1' } })}`,
    );
    expect(atCount.headers.get('count')).toBe('1');

    expect(
      (
        await call('POST', '/v2/pit-nohist', {
          features: {
            TRANSACTION_METADATA_HISTORY: 'DISABLED',
            ACCOUNT_METADATA_HISTORY: 'DISABLED',
          },
        })
      ).status,
    ).toBe(204);
    clock = Date.parse('2026-05-02T00:00:00Z');
    await call('POST', '/v2/pit-nohist/transactions', {
      postings: [send('world', 'a', 1n)],
      timestamp: '2026-03-01T00:00:00Z',
      metadata: { k: 'v' },
    });
    await call('POST', '/v2/pit-nohist/transactions', {
      postings: [send('world', 'a', 2n)],
      timestamp: '2026-04-01T00:00:00Z',
      metadata: { k: 'v' },
    });
    clock = Date.parse('2026-05-03T00:00:00Z');
    await call('POST', '/v2/pit-nohist/transactions/1/metadata', { k: 'w' });
    await call('POST', '/v2/pit-nohist/accounts/a/metadata', { x: 'y' });
    const byMetadata = await call(
      'GET',
      `/v2/pit-nohist/transactions?pit=2026-03-15T00:00:00Z&${q({ $match: { 'metadata[k]': 'v' } })}`,
    );
    expect(ids(byMetadata)).toEqual([]);
    const later = await call(
      'GET',
      `/v2/pit-nohist/transactions?pit=2026-04-15T00:00:00Z&${q({ $match: { 'metadata[k]': 'v' } })}`,
    );
    expect(ids(later)).toEqual([2]);
    // Without history, metadata at a point in time is the current one, as the reference shows it.
    expect(
      (await call('GET', '/v2/pit-nohist/transactions/1?pit=2026-03-15T00:00:00Z')).body.data
        .metadata,
    ).toEqual({ k: 'w' });
    expect(
      (await call('GET', '/v2/pit-nohist/accounts/a?pit=2026-03-15T00:00:00Z')).body.data.metadata,
    ).toEqual({ x: 'y' });
    // The account metadata index (current values) serves pit too without history: accounts used by then.
    const accounts = async (pit: string) =>
      (
        await call(
          'GET',
          `/v2/pit-nohist/accounts?pit=${pit}&${q({ $match: { 'metadata[x]': 'y' } })}`,
        )
      ).body.cursor.data.map((a: { address: string }) => a.address);
    expect(await accounts('2026-03-15T00:00:00Z')).toEqual(['a']);
    expect(await accounts('2026-02-15T00:00:00Z')).toEqual([]);
  });

  it('serves address segment patterns at pit, listing and counting accounts used by then', async () => {
    expect((await call('POST', '/v2/pit-seg')).status).toBe(204);
    clock = Date.parse('2026-05-02T00:00:00Z');
    for (const [address, timestamp] of [
      ['users:1:eur', '2026-03-01T00:00:00Z'],
      ['users:2:eur', '2026-05-01T00:00:00Z'],
      ['users:3:usd', '2026-02-01T00:00:00Z'],
    ]) {
      expect(
        (
          await call('POST', '/v2/pit-seg/transactions', {
            postings: [send('world', address!, 1n)],
            timestamp,
          })
        ).status,
      ).toBe(200);
    }
    const pattern = q({ $match: { address: 'users::eur' } });
    const listed = await call('GET', `/v2/pit-seg/accounts?pit=2026-04-01T00:00:00Z&${pattern}`);
    expect(listed.body.cursor.data.map((a: { address: string }) => a.address)).toEqual([
      'users:1:eur',
    ]);
    expect(
      (await call('HEAD', `/v2/pit-seg/accounts?pit=2026-04-01T00:00:00Z&${pattern}`)).headers.get(
        'count',
      ),
    ).toBe('1');
    expect(
      (await call('HEAD', `/v2/pit-seg/accounts?pit=2026-05-01T00:00:00Z&${pattern}`)).headers.get(
        'count',
      ),
    ).toBe('2');
    const balances = await call(
      'GET',
      `/v2/pit-seg/aggregate/balances?pit=2026-04-01T00:00:00Z&${pattern}`,
    );
    expect(balances.body).toEqual({ data: { USD: 1n } });
  });

  it('keeps pit and order in its cursors, both ways', async () => {
    const seen: number[] = [];
    let res = await call('GET', `/v2/${ledger}/transactions?pit=2026-05-31T00:00:00Z&pageSize=1`);
    for (;;) {
      expect(res.status, res.text).toBe(200);
      seen.push(...ids(res));
      if (!res.body.cursor.hasMore) break;
      res = await call('GET', `/v2/${ledger}/transactions?cursor=${res.body.cursor.next}`);
    }
    expect(seen).toEqual([4, 3, 2, 1]);
    const back = await call('GET', `/v2/${ledger}/transactions?cursor=${res.body.cursor.previous}`);
    expect(ids(back)).toEqual([2]);
    const first = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-05-31T00:00:00Z&order=effective&pageSize=2`,
    );
    expect(ids(first)).toEqual([4, 2]);
    const second = await call('GET', `/v2/${ledger}/transactions?cursor=${first.body.cursor.next}`);
    expect(ids(second)).toEqual([1, 3]);
    expect(second.body.cursor.hasMore).toBe(false);
    const byAccount = await call(
      'GET',
      `/v2/${ledger}/transactions?pit=2026-03-10T00:00:00Z&pageSize=1&${q({ $match: { account: 'alice' } })}`,
    );
    expect(ids(byAccount)).toEqual([3]);
    expect(
      ids(await call('GET', `/v2/${ledger}/transactions?cursor=${byAccount.body.cursor.next}`)),
    ).toEqual([2]);
  });

  it('lists by effective time with a filter on an account, evaluated on the timestamp listing', async () => {
    expect(
      ids(
        await call(
          'GET',
          `/v2/${ledger}/transactions?order=effective&${q({ $match: { account: 'alice' } })}`,
        ),
      ),
    ).toEqual([4, 2, 1, 3]);
    expect(
      ids(
        await call(
          'GET',
          `/v2/${ledger}/transactions?order=effective&${q({ $match: { 'metadata[step]': '2' } })}`,
        ),
      ),
    ).toEqual([1]);
  });

  it('refuses bad values, in the contract error shape', async () => {
    const refusals: Array<[string, string]> = [
      ['pit=yesterday', 'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)'],
      [
        'pit=2026-02-30T00:00:00Z',
        'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)',
      ],
      ['order=timestamp', 'order: must be "effective" (the default order is by id)'],
      [
        'useInsertionDate=true',
        'useInsertionDate: not a parameter of this route (pit reads transactions and accounts by effective time; aggregated balances take useInsertionDate)',
      ],
    ];
    for (const [query, message] of refusals) {
      for (const method of ['GET', 'HEAD']) {
        const res = await call(method, `/v2/${ledger}/transactions?${query}`);
        expect(res.status, `${method} ${query}`).toBe(400);
        if (method === 'GET')
          expect(res.body, query).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
      }
    }
    expect((await call('GET', `/v2/${ledger}/transactions/1?pit=nope`)).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: refusals[0]![1],
    });
  });
});

describe('GET /v2/<ledger>/transactions/<id>?pit=', () => {
  it('answers a transaction as it stood then, and not found before its timestamp', async () => {
    expect(
      (await call('GET', `/v2/${ledger}/transactions/1?pit=2026-02-28T00:00:00Z`)).status,
    ).toBe(404);
    const then = await call(
      'GET',
      `/v2/${ledger}/transactions/1?pit=2026-03-01T00:00:00Z&expand=volumes`,
    );
    expect(then.status, then.text).toBe(200);
    expect(then.body.data.metadata).toEqual({ step: '1' });
    // Its own volumes do not depend on the point in time.
    expect(then.body.data.postCommitVolumes).toEqual({
      world: { USD: { input: 0n, output: 100n, balance: -100n } },
      alice: { USD: { input: 100n, output: 0n, balance: 100n } },
    });
    const reverted = await call('GET', `/v2/${ledger}/transactions/2?pit=2026-05-01T10:06:00Z`);
    expect(reverted.body.data).toMatchObject({
      reverted: true,
      revertedAt: '2026-05-01T10:05:00Z',
    });
    expect(
      (await call('GET', `/v2/${ledger}/transactions/5?pit=2026-05-31T00:00:00Z`)).status,
    ).toBe(404);
  });
});

describe('GET /v2/<ledger>/accounts?pit=', () => {
  it('lists the accounts first used at or before pit, and counts them', async () => {
    const cases: Array<[string, string[]]> = [
      ['2026-02-01T00:00:00Z', []],
      ['2026-02-15T00:00:00Z', ['alice', 'bob']], // first used by the back-dated tx3
      ['2026-03-01T00:00:00Z', ['alice', 'bob', 'world']],
      ['2026-06-01T00:00:00Z', ['alice', 'bob', 'carol', 'world']],
    ];
    for (const [pit, expected] of cases) {
      const res = await call('GET', `/v2/${ledger}/accounts?pit=${pit}`);
      expect(res.status, res.text).toBe(200);
      expect(
        res.body.cursor.data.map((a: { address: string }) => a.address),
        pit,
      ).toEqual(expected);
      expect(
        (await call('HEAD', `/v2/${ledger}/accounts?pit=${pit}`)).headers.get('count'),
        pit,
      ).toBe(String(expected.length));
    }
    const prefix = await call(
      'GET',
      `/v2/${ledger}/accounts?pit=2026-03-01T00:00:00Z&${q({ $match: { address: 'alice' } })}`,
    );
    expect(prefix.body.cursor.data.map((a: { address: string }) => a.address)).toEqual(['alice']);
    expect(
      (await call('GET', `/v2/${ledger}/accounts/carol?pit=2026-05-31T00:00:00Z`)).status,
    ).toBe(404);
    expect(
      (await call('GET', `/v2/${ledger}/accounts/carol?pit=2026-06-01T00:00:00Z`)).status,
    ).toBe(200);
  });

  it('shows metadata as it was then: none before the account was written, then each revision', async () => {
    const alice = async (pit: string) => {
      const res = await call('GET', `/v2/${ledger}/accounts/alice?pit=${pit}`);
      expect(res.status, res.text).toBe(200);
      return res.body.data.metadata;
    };
    // First used on February 15th (back-dated), written at 10:00 on May 1st.
    expect(await alice('2026-03-01T00:00:00Z')).toEqual({});
    expect(await alice('2026-05-01T10:00:00Z')).toEqual({});
    expect(await alice('2026-05-01T10:04:00Z')).toEqual({ tier: 'gold' });
    expect(await alice('2026-05-01T10:06:59Z')).toEqual({ tier: 'gold' });
    expect(await alice('2026-05-01T10:07:00Z')).toEqual({ tier: 'platinum' });
    // bob was written (with metadata) by a back-dated transaction: listed from February, but with no metadata
    // before it was written, as the reference (its first revision is dated at insertion).
    const bob = async (pit: string) =>
      (await call('GET', `/v2/${ledger}/accounts/bob?pit=${pit}`)).body.data.metadata;
    expect(await bob('2026-03-01T00:00:00Z')).toEqual({});
    expect(await bob('2026-05-01T10:02:00Z')).toEqual({ since: 'feb' });
    const listed = await call('GET', `/v2/${ledger}/accounts?pit=2026-05-01T10:05:00Z`);
    expect(
      listed.body.cursor.data.find((a: { address: string }) => a.address === 'alice').metadata,
    ).toEqual({ tier: 'gold' });
  });

  it('shows volumes by insertion time and effective volumes by effective time, leaving out assets not moved by then', async () => {
    const vol = (input: bigint, output: bigint) => ({ input, output, balance: input - output });
    const alice = async (pit: string) =>
      (await call('GET', `/v2/${ledger}/accounts/alice?pit=${pit}&expand=volumes,effectiveVolumes`))
        .body.data;
    // March 2nd: nothing was inserted yet (May 1st), but tx3 (Feb 15) and tx1 (Mar 1) are dated by then.
    expect(await alice('2026-03-02T00:00:00Z')).toMatchObject({
      volumes: {},
      effectiveVolumes: { USD: vol(100n, 5n) },
    });
    // 10:01:30: tx1 and tx2 inserted; every one but the revert dated by then.
    expect(await alice('2026-05-01T10:01:30Z')).toMatchObject({
      volumes: { USD: vol(100n, 30n) },
      effectiveVolumes: { USD: vol(100n, 35n) },
    });
    expect(await alice('2026-05-01T10:05:00Z')).toMatchObject({
      volumes: { USD: vol(130n, 35n) },
      effectiveVolumes: { USD: vol(130n, 35n) },
    });
    // carol at 10:06: tx5 was inserted, but it is dated June 1st, after which carol exists.
    const carol = await call(
      'GET',
      `/v2/${ledger}/accounts/carol?pit=2026-06-01T00:00:00Z&expand=volumes,effectiveVolumes`,
    );
    expect(carol.body.data).toMatchObject({
      volumes: { EUR: vol(7n, 0n) },
      effectiveVolumes: { EUR: vol(7n, 0n) },
    });
    const page = await call(
      'GET',
      `/v2/${ledger}/accounts?pit=2026-05-01T10:01:30Z&expand=volumes`,
    );
    expect(
      page.body.cursor.data.map((a: any) => [a.address, a.volumes, a.effectiveVolumes]),
    ).toEqual([
      ['alice', { USD: vol(100n, 30n) }, undefined],
      ['bob', { USD: vol(30n, 0n) }, undefined],
      ['world', { USD: vol(0n, 100n) }, undefined],
    ]);
  });

  it('keeps pit and expand in its cursors', async () => {
    const first = await call(
      'GET',
      `/v2/${ledger}/accounts?pit=2026-05-01T10:01:30Z&expand=effectiveVolumes&pageSize=2`,
    );
    expect(first.body.cursor.data.map((a: { address: string }) => a.address)).toEqual([
      'alice',
      'bob',
    ]);
    const second = await call('GET', `/v2/${ledger}/accounts?cursor=${first.body.cursor.next}`);
    expect(second.status, second.text).toBe(200);
    expect(
      second.body.cursor.data.map((a: any) => [a.address, a.effectiveVolumes, a.volumes]),
    ).toEqual([['world', { USD: { input: 0n, output: 100n, balance: -100n } }, undefined]]);
    expect(second.body.cursor.hasMore).toBe(false);
  });

  it('judges metadata filters at pit on the metadata then (the index holds current values)', async () => {
    const at = (pit: string, tier: string) =>
      call('GET', `/v2/${ledger}/accounts?pit=${pit}&${q({ $match: { 'metadata[tier]': tier } })}`);
    expect((await at('2026-05-01T00:00:00Z', 'gold')).body.cursor.data).toEqual([]);
    expect(
      (await at('2026-05-01T10:05:00Z', 'gold')).body.cursor.data.map(
        (a: { address: string }) => a.address,
      ),
    ).toEqual(['alice']);
    expect((await at('2026-05-01T10:05:00Z', 'platinum')).body.cursor.data).toEqual([]);
    expect(
      (await at('2026-05-01T10:08:00Z', 'platinum')).body.cursor.data.map(
        (a: { address: string }) => a.address,
      ),
    ).toEqual(['alice']);
  });

  it('refuses bad values', async () => {
    const refusals: Array<[string, string]> = [
      [
        `accounts?pit=2026-05-01`,
        'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)',
      ],
      [
        `accounts/alice?pit=x`,
        'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)',
      ],
      [`accounts?order=effective`, 'order: unknown query parameter'],
      [
        `accounts/alice?useInsertionDate=true`,
        'useInsertionDate: not a parameter of this route (pit reads transactions and accounts by effective time; aggregated balances take useInsertionDate)',
      ],
    ];
    for (const [path, message] of refusals) {
      const res = await call('GET', `/v2/${ledger}/${path}`);
      expect(res.body, path).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    expect((await call('HEAD', `/v2/${ledger}/accounts?pit=nope`)).status).toBe(400);
  });
});

describe('features a point-in-time read needs', () => {
  const missing = (feature: string) => ({
    errorCode: 'VALIDATION',
    errorMessage: `missing feature "${feature}"`,
  });

  it('refuses volumes at pit without MOVES_HISTORY, naming it, and serves what needs no moves', async () => {
    expect(
      (await call('POST', '/v2/pit-nomoves', { features: { MOVES_HISTORY: 'OFF' } })).status,
    ).toBe(204);
    clock = Date.parse('2026-05-02T00:00:00Z');
    expect(
      (
        await call('POST', '/v2/pit-nomoves/transactions', {
          postings: [send('world', 'a', 3n)],
          timestamp: '2026-03-01T00:00:00Z',
        })
      ).status,
    ).toBe(200);
    for (const path of [
      'accounts?pit=2026-04-01T00:00:00Z&expand=volumes',
      'accounts/a?pit=2026-04-01T00:00:00Z&expand=volumes',
      'aggregate/balances?pit=2026-04-01T00:00:00Z&useInsertionDate=true',
      'aggregate/balances?pit=2026-04-01T00:00:00Z',
      'volumes?insertionDate=true&endTime=2026-04-01T00:00:00Z',
    ]) {
      const res = await call('GET', `/v2/pit-nomoves/${path}`);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual(missing('MOVES_HISTORY'));
    }
    const listed = await call('GET', '/v2/pit-nomoves/accounts?pit=2026-04-01T00:00:00Z');
    expect(listed.body.cursor.data.map((a: { address: string }) => a.address)).toEqual([
      'a',
      'world',
    ]);
    expect(ids(await call('GET', '/v2/pit-nomoves/transactions?pit=2026-04-01T00:00:00Z'))).toEqual(
      [1],
    );
    // Without pit, balances need no history.
    expect(
      (await call('GET', '/v2/pit-nomoves/aggregate/balances?useInsertionDate=true')).body,
    ).toEqual({ data: { USD: 0n } });
  });

  it('refuses effective balances at pit without MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES, and serves insertion-time ones', async () => {
    expect(
      (
        await call('POST', '/v2/pit-noeff', {
          features: { MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' },
        })
      ).status,
    ).toBe(204);
    clock = Date.parse('2026-05-02T00:00:00Z');
    expect(
      (
        await call('POST', '/v2/pit-noeff/transactions', {
          postings: [send('world', 'a', 3n)],
          timestamp: '2026-03-01T00:00:00Z',
        })
      ).status,
    ).toBe(200);
    const refused = await call('GET', '/v2/pit-noeff/aggregate/balances?pit=2026-04-01T00:00:00Z');
    expect(refused.body).toEqual(missing('MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES'));
    expect(
      (
        await call(
          'GET',
          '/v2/pit-noeff/accounts/a?pit=2026-04-01T00:00:00Z&expand=effectiveVolumes',
        )
      ).body,
    ).toEqual(missing('MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES'));
    const byInsertion = await call(
      'GET',
      `/v2/pit-noeff/aggregate/balances?pit=2026-05-02T00:00:00Z&useInsertionDate=true&${q({ $match: { address: 'a' } })}`,
    );
    expect(byInsertion.body).toEqual({ data: { USD: 3n } });
    expect(
      (
        await call(
          'GET',
          '/v2/pit-noeff/aggregate/balances?pit=2026-05-01T23:59:59Z&use_insertion_date=true',
        )
      ).body,
    ).toEqual({ data: {} });
    const account = await call(
      'GET',
      '/v2/pit-noeff/accounts/a?pit=2026-05-02T00:00:00Z&expand=volumes',
    );
    expect(account.body.data.volumes).toEqual({ USD: { input: 3n, output: 0n, balance: 3n } });
  });

  it('refuses balance filters at pit (the index holds current balances)', async () => {
    expect(
      (await call('POST', '/v2/pit-bal', { features: { INDEX_ACCOUNT_BALANCES: 'ON' } })).status,
    ).toBe(204);
    const balance = await call(
      'GET',
      `/v2/pit-bal/accounts?pit=2026-04-01T00:00:00Z&${q({ $gte: { 'balance[USD]': 1 } })}`,
    );
    expect(balance.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        'query: balance filters are not supported with pit: the balance index holds current balances, not those at pit',
    });
    expect(
      (
        await call(
          'HEAD',
          `/v2/pit-bal/accounts?pit=2026-04-01T00:00:00Z&${q({ $gte: { 'balance[USD]': 1 } })}`,
        )
      ).status,
    ).toBe(400);
  });
});
