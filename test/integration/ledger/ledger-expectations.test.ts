/**
 * Balance preconditions (`expect`, docs/api.md §3.6) through HTTP on DynamoDB Local: with the embedded group commit
 * (`npm start`'s engine), where concurrent writers are decided in batches against the batch's in-memory state, and
 * on the direct path. A refused write answers 409 PRECONDITION_FAILED naming what failed and leaves nothing: no
 * id taken, no log entry, no balance moved.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let embedded: Awaited<ReturnType<typeof ledgerClient>>['call'];
let direct: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call: embedded } = await ledgerClient(runtime, { embedded: {} }));
  ({ call: direct } = await ledgerClient(runtime));
});

async function fresh(call: typeof embedded, funded: number): Promise<string> {
  const name = `expect${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  const res = await call('POST', `/v2/${name}/transactions`, spend('world', 'alice', funded));
  expect(res.status, res.text).toBe(200);
  return name;
}

const spend = (source: string, destination: string, amount: number) => ({
  postings: [{ source, destination, amount, asset: 'USD/2' }],
});

async function balanceOf(call: typeof embedded, name: string, account: string): Promise<bigint> {
  const res = await call('GET', `/v2/${name}/accounts/${account}?expand=volumes`);
  return res.status === 404 ? 0n : (res.body.data.volumes?.['USD/2']?.balance ?? 0n);
}

async function logCount(call: typeof embedded, name: string): Promise<number> {
  return (await call('GET', `/v2/${name}/logs?pageSize=1000`)).body.cursor.data.length;
}

describe.each([
  ['embedded group commit', () => embedded],
  ['direct commit', () => direct],
])('expect on a write (%s)', (_label, client) => {
  it('commits when every expectation holds, and refuses with 409 naming each failed one, writing nothing', async () => {
    const call = client();
    const name = await fresh(call, 500);
    const ok = await call('POST', `/v2/${name}/transactions`, {
      ...spend('alice', 'bob', 20),
      expect: [
        { account: 'alice', asset: 'USD/2', balance: { $eq: 500 } },
        { account: 'alice', asset: 'USD/2', at: 'after', balance: { $gte: '480' } },
        { account: 'carol', asset: 'USD/2', balance: { $eq: 0 }, input: { $lte: 0 } },
      ],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.id).toBe(2n);
    const logs = await logCount(call, name);
    const refused = await call('POST', `/v2/${name}/transactions`, {
      ...spend('alice', 'bob', 30),
      expect: [
        { account: 'alice', asset: 'USD/2', balance: { $eq: 500 } },
        { account: 'bob', asset: 'USD/2', input: { $eq: 20 }, output: { $eq: 0 } },
        { account: 'alice', asset: 'USD/2', at: 'after', balance: { $gte: -10, $gt: 450 } },
      ],
    });
    expect([refused.status, refused.body]).toEqual([
      409,
      {
        errorCode: 'PRECONDITION_FAILED',
        errorMessage:
          'expect[0]: alice USD/2 balance is 480 before the write, expected $eq 500; expect[2]: alice USD/2 balance is 450 after the write, expected $gt 450',
      },
    ]);
    expect(await balanceOf(call, name, 'alice')).toBe(480n);
    expect(await logCount(call, name)).toBe(logs);
    // No id was taken: the next transaction is 3.
    const next = await call('POST', `/v2/${name}/transactions`, spend('alice', 'bob', 1));
    expect(next.body.data.id).toBe(3n);
  });

  it('checks them on a dry run, a revert and a bulk element', async () => {
    const call = client();
    const name = await fresh(call, 100);
    const dry = await call('POST', `/v2/${name}/transactions?dryRun=true`, {
      ...spend('alice', 'bob', 10),
      expect: [{ account: 'alice', asset: 'USD/2', balance: { $lt: 100 } }],
    });
    expect([dry.status, dry.body.errorCode]).toEqual([409, 'PRECONDITION_FAILED']);
    const revert = await call('POST', `/v2/${name}/transactions/1/revert`, {
      expect: [{ account: 'alice', asset: 'USD/2', at: 'after', balance: { $eq: 1 } }],
    });
    expect([revert.status, revert.body.errorMessage]).toEqual([
      409,
      'expect[0]: alice USD/2 balance is 0 after the write, expected $eq 1',
    ]);
    const bulk = await call('POST', `/v2/${name}/_bulk`, [
      {
        action: 'CREATE_TRANSACTION',
        data: {
          ...spend('alice', 'bob', 10),
          expect: [{ account: 'bob', asset: 'USD/2', balance: { $eq: 0 } }],
        },
      },
      {
        action: 'CREATE_TRANSACTION',
        data: {
          ...spend('alice', 'bob', 10),
          expect: [{ account: 'bob', asset: 'USD/2', balance: { $eq: 0 } }],
        },
      },
    ]);
    expect(bulk.status).toBe(400);
    expect(bulk.body.data.map((r: { responseType: string }) => r.responseType)).toEqual([
      'CREATE_TRANSACTION',
      'ERROR',
    ]);
    expect(bulk.body.data[1].errorCode).toBe('PRECONDITION_FAILED');
    expect(await balanceOf(call, name, 'bob')).toBe(10n);
    // An idempotent replay answers the original even though its expectation no longer holds.
    const once = {
      ...spend('alice', 'bob', 5),
      expect: [{ account: 'alice', asset: 'USD/2', balance: { $eq: 90 } }],
    };
    const first = await call('POST', `/v2/${name}/transactions`, once, { 'Idempotency-Key': 'k1' });
    const replay = await call('POST', `/v2/${name}/transactions`, once, {
      'Idempotency-Key': 'k1',
    });
    expect([first.status, replay.status, replay.headers.get('idempotency-hit')]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(replay.body.data.id).toBe(first.body.data.id);
    expect(await balanceOf(call, name, 'alice')).toBe(85n);
  });
});

describe('expect under group commit', () => {
  it('of 40 concurrent spends of 1 each expecting at least 80 left after it, exactly 20 commit', async () => {
    const name = await fresh(embedded, 100);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        embedded('POST', `/v2/${name}/transactions`, {
          ...spend('alice', `shop:${i}`, 1),
          expect: [{ account: 'alice', asset: 'USD/2', at: 'after', balance: { $gte: 80 } }],
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect([
      statuses.filter((s) => s === 200).length,
      statuses.filter((s) => s === 409).length,
    ]).toEqual([20, 20]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body.errorMessage).toBe(
        'expect[0]: alice USD/2 balance is 79 after the write, expected $gte 80',
      );
    // Ids gapless in commit order: 2..21.
    const ids = answers
      .filter((a) => a.status === 200)
      .map((a) => Number(a.body.data.id))
      .sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await balanceOf(embedded, name, 'alice')).toBe(80n);
    expect(await logCount(embedded, name)).toBe(21);
  });

  it('of 30 concurrent compare-and-set writes that all read the same volumes, exactly one commits', async () => {
    const name = await fresh(embedded, 100);
    const read = await embedded('GET', `/v2/${name}/accounts/alice?expand=volumes`);
    const { input, output } = read.body.data.volumes['USD/2'];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        embedded('POST', `/v2/${name}/transactions`, {
          ...spend('alice', `shop:${i}`, 5),
          expect: [
            { account: 'alice', asset: 'USD/2', input: { $eq: input }, output: { $eq: output } },
          ],
        }),
      ),
    );
    const committed = answers.filter((a) => a.status === 200);
    expect(committed).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(29);
    expect(await balanceOf(embedded, name, 'alice')).toBe(95n);
  });
});

describe('expect validation', () => {
  it('refuses malformed expectations with 400 naming the field, writing nothing', async () => {
    const name = await fresh(embedded, 10);
    const cases: Array<[unknown, string]> = [
      [
        [{ account: 'alice', asset: 'USD/2' }],
        'must compare at least one of balance, input, output',
      ],
      [
        [{ account: 'alice', asset: 'USD/2', balance: {} }],
        'must hold at least one of $eq, $ne, $gt, $gte, $lt, $lte',
      ],
      [[{ account: 'alice', asset: 'USD/2', balance: { $eq: 1.5 } }], 'must be a whole number'],
      [[{ account: 'alice', asset: 'USD/2', balance: { $in: 1 } }], 'balance.$in: unknown field'],
      [
        [{ account: 'alice', asset: 'USD/2', at: 'during', balance: { $eq: 1 } }],
        'must be before or after',
      ],
      [
        Array.from({ length: 21 }, () => ({ account: 'a', asset: 'USD', balance: { $eq: 0 } })),
        'must have at most 20 expectations',
      ],
    ];
    for (const [expectations, message] of cases) {
      const res = await embedded('POST', `/v2/${name}/transactions`, {
        ...spend('alice', 'bob', 1),
        expect: expectations,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain('body.expect');
      expect(res.body.errorMessage).toContain(message);
    }
    expect(await balanceOf(embedded, name, 'alice')).toBe(10n);
  });
});
