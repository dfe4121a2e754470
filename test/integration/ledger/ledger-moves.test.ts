/**
 * Moves kept in volume-item buffers and flushed into pages (docs/data-model.md, "Moves") against a brute-force
 * model: enough transactions that every pair flushes several pages, some back-dated (late moves), then every
 * read built on moves — transactions of an account (any role, source, destination; both directions; cursors,
 * also resumed after further writes flushed the buffer), volumes over effective-time windows, and effective
 * volumes of every transaction — must equal what the plain list of transactions implies.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const ACCOUNTS = ['world', 'a', 'b', 'c'];
const ASSETS = ['USD', 'EUR'];
const LEDGER = 'moves';

interface Sent {
  id: number;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  /** Effective time, `2026-01-01T00:00:<s>Z`-style sortable by text. */
  timestamp: string;
}

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let runtime: ServiceRuntime;
const sent: Sent[] = [];

const at = (second: number) =>
  `2026-01-01T${String(Math.floor(second / 3600)).padStart(2, '0')}:${String(Math.floor(second / 60) % 60).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}Z`;

async function send(postings: Sent['postings'], timestamp: string): Promise<void> {
  const res = await call('POST', `/v2/${LEDGER}/transactions?force=true`, { postings, timestamp });
  expect(res.status, res.text).toBe(200);
  sent.push({ id: Number(res.body.data.id), postings, timestamp });
}

const plan = fc.sample(
  fc.record({
    postings: fc.array(
      fc.record({
        source: fc.constantFrom(...ACCOUNTS),
        destination: fc.constantFrom(...ACCOUNTS),
        amount: fc.bigInt({ min: 0n, max: 99n }),
        asset: fc.constantFrom(...ASSETS),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    // Mostly in order, one in five back-dated by up to 40 s.
    backdate: fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) },
    ),
  }),
  { numRuns: 70, seed: 20261124 },
);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', `/v2/${LEDGER}`)).status).toBe(204);
  for (const [i, step] of plan.entries())
    await send(step.postings, at(100 + i * 2 - step.backdate));
});

/** Ids of the transactions touching `account` in the given role, ascending. */
function modelIds(account: string, role: 'account' | 'source' | 'destination'): number[] {
  return sent
    .filter((t) =>
      t.postings.some(
        (p) =>
          (role !== 'destination' && p.source === account) ||
          (role !== 'source' && p.destination === account),
      ),
    )
    .map((t) => t.id);
}

async function listAll(query: string, pageSize: number, reverse: boolean): Promise<number[]> {
  const ids: number[] = [];
  let res = await call(
    'GET',
    `/v2/${LEDGER}/transactions?pageSize=${pageSize}&query=${encodeURIComponent(query)}${reverse ? '&reverse=true' : ''}`,
  );
  for (;;) {
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.cursor.data.map((t: { id: bigint }) => Number(t.id)));
    if (!res.body.cursor.hasMore) return ids;
    expect(res.body.cursor.data).toHaveLength(pageSize);
    res = await call('GET', `/v2/${LEDGER}/transactions?cursor=${res.body.cursor.next}`);
  }
}

describe('moves in buffers and pages', () => {
  it('lists the transactions of each account, in each role and both directions, exactly', async () => {
    for (const account of ACCOUNTS) {
      for (const role of ['account', 'source', 'destination'] as const) {
        const expected = modelIds(account, role);
        const query = JSON.stringify({ $match: { [role]: account } });
        expect(await listAll(query, 4, false), `${role} ${account} newest first`).toEqual(
          [...expected].reverse(),
        );
        expect(await listAll(query, 5, true), `${role} ${account} oldest first`).toEqual(expected);
      }
    }
    // Pages were really flushed: the busiest pair has more moves than one buffer holds.
    expect(Math.max(...ACCOUNTS.map((a) => modelIds(a, 'account').length))).toBeGreaterThan(16);
  });

  it('resumes a cursor after later writes flushed the buffer it stopped in, without a gap or a repeat', async () => {
    const query = encodeURIComponent(JSON.stringify({ $match: { account: 'a' } }));
    const first = await call('GET', `/v2/${LEDGER}/transactions?pageSize=2&query=${query}`);
    const firstIds = first.body.cursor.data.map((t: { id: bigint }) => Number(t.id));
    for (let i = 0; i < 10; i++)
      await send([{ source: 'world', destination: 'a', amount: 1n, asset: 'USD' }], at(400 + i));
    const rest: number[] = [];
    let next: string | undefined = first.body.cursor.next;
    while (next) {
      const page = await call('GET', `/v2/${LEDGER}/transactions?cursor=${next}`);
      rest.push(...page.body.cursor.data.map((t: { id: bigint }) => Number(t.id)));
      next = page.body.cursor.hasMore ? page.body.cursor.next : undefined;
    }
    const before = modelIds('a', 'account')
      .filter((id) => id < firstIds.at(-1))
      .reverse();
    expect(rest).toEqual(before);
  });

  it('sums moves over effective-time windows (both ends inclusive), back-dated ones included', async () => {
    const windows: Array<[number, number]> = [
      [100, 140],
      [90, 101],
      [150, 151],
      [120, 500],
      [0, 100],
    ];
    for (const [from, to] of windows) {
      const res = await call(
        'GET',
        `/v2/${LEDGER}/volumes?pageSize=100&startTime=${at(from)}&endTime=${at(to)}`,
      );
      expect(res.status, res.text).toBe(200);
      const expected = new Map<string, { input: bigint; output: bigint }>();
      for (const t of sent.filter((t) => t.timestamp >= at(from) && t.timestamp <= at(to))) {
        for (const p of t.postings) {
          const s = expected.get(`${p.source}/${p.asset}`) ?? { input: 0n, output: 0n };
          expected.set(`${p.source}/${p.asset}`, { ...s, output: s.output + p.amount });
          const d = expected.get(`${p.destination}/${p.asset}`) ?? { input: 0n, output: 0n };
          expected.set(`${p.destination}/${p.asset}`, { ...d, input: d.input + p.amount });
        }
      }
      const got = new Map(
        res.body.cursor.data.map(
          (r: { account: string; asset: string; input: bigint; output: bigint }) => [
            `${r.account}/${r.asset}`,
            { input: r.input, output: r.output },
          ],
        ),
      );
      expect(got, `window ${from}-${to}`).toEqual(expected);
    }
  });

  it("answers every transaction's effective volumes as the sums over moves up to its effective key", async () => {
    const key = (t: Sent) => `${t.timestamp}#${String(t.id).padStart(15, '0')}`;
    const all = await call(
      'GET',
      `/v2/${LEDGER}/transactions?pageSize=1000&expand=effectiveVolumes`,
    );
    expect(all.status, all.text).toBe(200);
    for (const tx of all.body.cursor.data as Array<{
      id: number;
      postCommitEffectiveVolumes: Record<string, Record<string, { input: bigint; output: bigint }>>;
    }>) {
      const self = sent.find((t) => t.id === Number(tx.id))!;
      for (const [account, assets] of Object.entries(tx.postCommitEffectiveVolumes)) {
        for (const [asset, volume] of Object.entries(assets)) {
          let input = 0n;
          let output = 0n;
          for (const t of sent.filter((t) => key(t) <= key(self))) {
            for (const p of t.postings.filter((p) => p.asset === asset)) {
              if (p.source === account) output += p.amount;
              if (p.destination === account) input += p.amount;
            }
          }
          expect(
            { input: volume.input, output: volume.output },
            `tx ${tx.id} ${account}/${asset}`,
          ).toEqual({ input, output });
        }
      }
    }
  });
});
