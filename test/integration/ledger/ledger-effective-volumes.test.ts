import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
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
const vol = (input: bigint, output: bigint) => ({ input, output, balance: input - output });

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

async function commit(ledger: string, body: Record<string, unknown>) {
  const res = await call('POST', `/v2/${ledger}/transactions`, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('effective volumes (MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES)', () => {
  it('orders moves by effective time: a back-dated transaction changes the effective volumes of later ones', async () => {
    expect((await call('POST', '/v2/eff-basic')).status).toBe(204);
    await commit('eff-basic', {
      postings: [send('world', 'alice', 100n)],
      timestamp: '2026-03-01T00:00:00Z',
    });
    await commit('eff-basic', {
      postings: [send('alice', 'bob', 30n)],
      timestamp: '2026-03-02T00:00:00Z',
    });
    await commit('eff-basic', {
      postings: [send('alice', 'bob', 5n)],
      timestamp: '2026-02-15T00:00:00Z',
    });
    await commit('eff-basic', {
      postings: [send('world', 'alice', 1n)],
      timestamp: '2026-03-01T00:00:00Z',
    });

    const list = await call('GET', '/v2/eff-basic/transactions?expand=effectiveVolumes,volumes');
    expect(list.status, list.text).toBe(200);
    const byId = new Map<number, any>(list.body.cursor.data.map((t: any) => [Number(t.id), t]));
    // Effective order: tx3 (Feb 15), tx1 (Mar 1), tx4 (Mar 1, later id), tx2 (Mar 2).
    expect(byId.get(3).postCommitEffectiveVolumes).toEqual({
      alice: { USD: vol(0n, 5n) },
      bob: { USD: vol(5n, 0n) },
    });
    expect(byId.get(3).preCommitEffectiveVolumes).toEqual({
      alice: { USD: vol(0n, 0n) },
      bob: { USD: vol(0n, 0n) },
    });
    expect(byId.get(1).postCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 100n) },
      alice: { USD: vol(100n, 5n) },
    });
    expect(byId.get(4).postCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 101n) },
      alice: { USD: vol(101n, 5n) },
    });
    expect(byId.get(4).preCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 100n) },
      alice: { USD: vol(100n, 5n) },
    });
    expect(byId.get(2).postCommitEffectiveVolumes).toEqual({
      alice: { USD: vol(101n, 35n) },
      bob: { USD: vol(35n, 0n) },
    });
    // Commit-order volumes are untouched by the back-dating.
    expect(byId.get(2).postCommitVolumes).toEqual({
      alice: { USD: vol(100n, 30n) },
      bob: { USD: vol(30n, 0n) },
    });

    const one = await call('GET', '/v2/eff-basic/transactions/1?expand=effectiveVolumes');
    expect(one.body.data.postCommitEffectiveVolumes).toEqual(
      byId.get(1).postCommitEffectiveVolumes,
    );
    expect(one.body.data.postCommitVolumes).toBeUndefined();
    const plain = await call('GET', '/v2/eff-basic/transactions/1');
    expect(plain.body.data.postCommitEffectiveVolumes).toBeUndefined();
  });

  it('answers a created transaction with its effective volumes, exactly as a later GET expands them', async () => {
    expect((await call('POST', '/v2/eff-create')).status).toBe(204);
    await commit('eff-create', {
      postings: [send('world', 'alice', 100n)],
      timestamp: '2026-03-01T00:00:00Z',
    });
    // Back-dated before the first: its effective volumes see nothing of the first; commit-order ones do.
    const created = await commit('eff-create', {
      postings: [send('world', 'alice', 7n)],
      timestamp: '2026-02-01T00:00:00Z',
    });
    expect(created.postCommitVolumes).toEqual({
      world: { USD: vol(0n, 107n) },
      alice: { USD: vol(107n, 0n) },
    });
    expect(created.postCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 7n) },
      alice: { USD: vol(7n, 0n) },
    });
    expect(created.preCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 0n) },
      alice: { USD: vol(0n, 0n) },
    });
    const read = await call(
      'GET',
      `/v2/eff-create/transactions/${created.id}?expand=effectiveVolumes`,
    );
    expect(created.postCommitEffectiveVolumes).toEqual(read.body.data.postCommitEffectiveVolumes);
    expect(created.preCommitEffectiveVolumes).toEqual(read.body.data.preCommitEffectiveVolumes);

    // An idempotent replay answers the same; a dry run writes no moves and answers commit-order volumes only.
    const body = { postings: [send('world', 'bob', 3n)], timestamp: '2026-01-01T00:00:00Z' };
    const first = await call('POST', '/v2/eff-create/transactions', body, {
      'Idempotency-Key': 'eff-ik',
    });
    const again = await call('POST', '/v2/eff-create/transactions', body, {
      'Idempotency-Key': 'eff-ik',
    });
    expect(again.headers.get('idempotency-hit')).toBe('true');
    expect(again.body.data.postCommitEffectiveVolumes).toEqual({
      world: { USD: vol(0n, 3n) },
      bob: { USD: vol(3n, 0n) },
    });
    expect(again.body.data).toEqual(first.body.data);
    const dry = await call('POST', '/v2/eff-create/transactions?dryRun=true', body);
    expect(dry.status).toBe(200);
    expect(dry.body.data.postCommitVolumes).toBeDefined();
    expect(dry.body.data.postCommitEffectiveVolumes).toBeUndefined();

    // A ledger that does not keep them answers without them.
    expect(
      (
        await call('POST', '/v2/eff-create-off', {
          features: { MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' },
        })
      ).status,
    ).toBe(204);
    const off = await commit('eff-create-off', { postings: [send('world', 'alice', 1n)] });
    expect(off.postCommitEffectiveVolumes).toBeUndefined();
    expect(off.postCommitVolumes).toEqual({
      world: { USD: vol(0n, 1n) },
      alice: { USD: vol(1n, 0n) },
    });
  });

  it('refuses effectiveVolumes on a ledger whose features do not keep them, naming the feature', async () => {
    expect(
      (
        await call('POST', '/v2/eff-off', {
          features: { MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' },
        })
      ).status,
    ).toBe(204);
    expect(
      (await call('POST', '/v2/eff-nomoves', { features: { MOVES_HISTORY: 'OFF' } })).status,
    ).toBe(204);
    await commit('eff-off', { postings: [send('world', 'a', 1n)] });
    for (const [ledger, feature] of [
      ['eff-off', 'MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES'],
      ['eff-nomoves', 'MOVES_HISTORY'],
    ]) {
      for (const path of [
        `/v2/${ledger}/transactions?expand=effectiveVolumes`,
        `/v2/${ledger}/transactions/1?expand=effectiveVolumes`,
        `/v2/${ledger}/accounts/a?expand=effectiveVolumes`,
      ]) {
        const res = await call('GET', path);
        expect(res.status, path).toBe(400);
        expect(res.body, path).toEqual({
          errorCode: 'VALIDATION',
          errorMessage: `missing feature "${feature}"`,
        });
      }
    }
    // Volumes in commit order stay available.
    expect((await call('GET', '/v2/eff-off/transactions/1?expand=volumes')).status).toBe(200);
  });

  it('match a brute-force sum over moves ordered by (timestamp, id), whatever the commit order', async () => {
    const ACCOUNTS = ['a', 'b', 'c'];
    const DAYS = [
      '2026-01-01T00:00:00Z',
      '2026-01-02T00:00:00Z',
      '2026-01-03T00:00:00Z',
      '2026-01-04T00:00:00Z',
    ];
    type Op =
      | { kind: 'tx'; postings: Array<ReturnType<typeof send>>; timestamp: string }
      | { kind: 'revert'; pick: number };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('tx' as const),
          postings: fc.array(
            fc.record({
              source: fc.constantFrom('world', ...ACCOUNTS),
              destination: fc.constantFrom(...ACCOUNTS),
              amount: fc.bigInt({ min: 0n, max: 20n }),
              asset: fc.constantFrom('USD', 'EUR'),
            }),
            { minLength: 1, maxLength: 3 },
          ),
          timestamp: fc.constantFrom(...DAYS),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('revert' as const), pick: fc.nat() }) },
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const ledger = `eff-prop-${run++}`;
        expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
        const committed: Array<{
          id: number;
          timestamp: string;
          postings: Array<ReturnType<typeof send>>;
        }> = [];
        const reverted = new Set<number>();
        for (const op of ops) {
          if (op.kind === 'tx') {
            const tx = await commit(ledger, {
              postings: op.postings,
              timestamp: op.timestamp,
              force: true,
            });
            committed.push({ id: Number(tx.id), timestamp: op.timestamp, postings: op.postings });
          } else {
            const candidates = committed.filter((t) => !reverted.has(t.id));
            if (candidates.length === 0) continue;
            const target = candidates[op.pick % candidates.length]!;
            const res = await call(
              'POST',
              `/v2/${ledger}/transactions/${target.id}/revert?force=true&atEffectiveDate=true`,
            );
            expect(res.status, res.text).toBe(201);
            reverted.add(target.id);
            const postings = [...target.postings]
              .reverse()
              .map((p) => send(p.destination, p.source, p.amount, p.asset));
            committed.push({ id: Number(res.body.data.id), timestamp: target.timestamp, postings });
          }
        }
        // The model: effective volumes after tx T = sum over transactions ordered by (timestamp, id) up to T.
        const order = [...committed].sort((x, y) =>
          x.timestamp < y.timestamp ? -1 : x.timestamp > y.timestamp ? 1 : x.id - y.id,
        );
        const running = new Map<string, { input: bigint; output: bigint }>();
        const expected = new Map<number, Record<string, Record<string, ReturnType<typeof vol>>>>();
        for (const tx of order) {
          for (const p of tx.postings) {
            const s = running.get(`${p.source}|${p.asset}`) ?? { input: 0n, output: 0n };
            running.set(`${p.source}|${p.asset}`, { input: s.input, output: s.output + p.amount });
            const d = running.get(`${p.destination}|${p.asset}`) ?? { input: 0n, output: 0n };
            running.set(`${p.destination}|${p.asset}`, {
              input: d.input + p.amount,
              output: d.output,
            });
          }
          const view: Record<string, Record<string, ReturnType<typeof vol>>> = {};
          for (const p of tx.postings) {
            for (const account of [p.source, p.destination]) {
              const v = running.get(`${account}|${p.asset}`)!;
              view[account] = { ...view[account], [p.asset]: vol(v.input, v.output) };
            }
          }
          expected.set(tx.id, view);
        }
        const list = await call(
          'GET',
          `/v2/${ledger}/transactions?expand=effectiveVolumes&pageSize=100`,
        );
        expect(list.status, list.text).toBe(200);
        expect(list.body.cursor.data).toHaveLength(committed.length);
        for (const tx of list.body.cursor.data)
          expect(tx.postCommitEffectiveVolumes, `tx ${tx.id}`).toEqual(expected.get(Number(tx.id)));
        // Without a point in time, an account's effective volumes are every move's sum.
        for (const account of ACCOUNTS) {
          const res = await call(
            'GET',
            `/v2/${ledger}/accounts/${account}?expand=effectiveVolumes`,
          );
          if (res.status === 404) continue;
          const sums = Object.fromEntries(
            ['EUR', 'USD'].flatMap((asset) => {
              const v = running.get(`${account}|${asset}`);
              return v ? [[asset, vol(v.input, v.output)]] : [];
            }),
          );
          expect(res.body.data.effectiveVolumes, account).toEqual(sums);
        }
      }),
      { numRuns: 12 },
    );
  });
});
