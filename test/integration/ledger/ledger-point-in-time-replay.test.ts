/**
 * Point-in-time volumes and lists against a brute-force replay of the postings: a ledger written with a
 * controlled clock by 90 pseudo-random transactions and reverts (back- and forward-dated, so move pages, late
 * moves and insertion order all disagree with effective order), read at many points in time on both clocks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let clock = Date.parse('2026-01-01T00:00:00Z');
const ledger = 'replay';
const ACCOUNTS = ['world', 'a', 'b', 'c'];

interface Posting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}
interface Written {
  id: number;
  postings: Posting[];
  timestamp: number;
  insertedAt: number;
  revertedAt?: number;
}
const written: Written[] = [];

/** mulberry32: the same sequence on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function record(data: any): Written {
  const tx = {
    id: Number(data.id),
    postings: data.postings,
    timestamp: Date.parse(data.timestamp),
    insertedAt: Date.parse(data.insertedAt),
  };
  written.push(tx);
  return tx;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  const next = random(20260501);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const dayMs = 86_400_000;
  for (let i = 0; i < 90; i++) {
    clock += Math.floor(next() * 4 * dayMs) + 1000;
    const candidates = written.filter((t) => t.revertedAt === undefined);
    if (i % 9 === 8 && candidates.length > 0) {
      const original = pick(candidates);
      const res = await call('POST', `/v2/${ledger}/transactions/${original.id}/revert?force=true`);
      expect(res.status, res.text).toBe(201);
      original.revertedAt = record(res.body.data).insertedAt;
      continue;
    }
    const source = pick(ACCOUNTS);
    const destination = pick(ACCOUNTS.filter((a) => a !== source));
    const asset = next() < 0.8 ? 'USD' : 'EUR';
    // Effective times spread from a month before the first write to past the last one.
    const timestamp = new Date(
      Date.parse('2025-12-01T00:00:00Z') + Math.floor(next() * 330 * dayMs),
    ).toISOString();
    const res = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [{ source, destination, amount: BigInt(1 + Math.floor(next() * 50)), asset }],
      timestamp,
      force: true,
    });
    expect(res.status, res.text).toBe(200);
    record(res.body.data);
  }
});

type Volumes = Record<string, Record<string, { input: bigint; output: bigint; balance: bigint }>>;

/** Volumes per account and asset from the postings of the transactions `by` keeps; pairs never moved absent. */
function replay(by: (t: Written) => boolean): Volumes {
  const volumes: Volumes = {};
  const entry = (account: string, asset: string) => {
    volumes[account] ??= {};
    volumes[account][asset] ??= { input: 0n, output: 0n, balance: 0n };
    return volumes[account][asset];
  };
  for (const t of written.filter(by)) {
    for (const p of t.postings) {
      const out = entry(p.source, p.asset);
      out.output += BigInt(p.amount);
      out.balance -= BigInt(p.amount);
      const into = entry(p.destination, p.asset);
      into.input += BigInt(p.amount);
      into.balance += BigInt(p.amount);
    }
  }
  return volumes;
}

const effectiveBy = (pit: number) => (t: Written) => t.timestamp <= pit;
const insertedBy = (pit: number) => (t: Written) => t.insertedAt <= pit;

/** Points in time: before everything, after everything, between, and exactly on writes' instants (inclusive). */
function pits(): number[] {
  const some = (values: number[]) => values.filter((_, i) => i % 29 === 3);
  return [
    Date.parse('2025-11-01T00:00:00Z'),
    Date.parse('2027-01-01T00:00:00Z'),
    Date.parse('2026-02-10T12:00:00Z'),
    Date.parse('2026-04-20T00:00:00Z'),
    Date.parse('2026-07-01T00:00:00Z'),
    ...some(written.map((t) => t.timestamp)),
    ...some(written.map((t) => t.insertedAt)),
  ];
}

describe('point-in-time reads against a replay of the postings', () => {
  it('the scenario covers back-dated moves and move pages', () => {
    const backDated = written.filter((t, i) =>
      written.slice(0, i).some((u) => u.timestamp > t.timestamp),
    );
    expect(backDated.length).toBeGreaterThan(20);
    expect(
      written.filter((t) =>
        t.postings.some((p) => p.source === 'world' || p.destination === 'world'),
      ).length,
    ).toBeGreaterThan(30);
  });

  it('accounts: listed from their first use, volumes by insertion time, effective volumes by effective time', async () => {
    for (const pit of pits()) {
      const at = new Date(pit).toISOString();
      const res = await call(
        'GET',
        `/v2/${ledger}/accounts?pit=${at}&expand=volumes,effectiveVolumes&pageSize=100`,
      );
      expect(res.status, res.text).toBe(200);
      const effective = replay(effectiveBy(pit));
      const inserted = replay(insertedBy(pit));
      // An account exists from its first use by effective time: exactly the accounts effective volumes know.
      expect(
        res.body.cursor.data.map((a: { address: string }) => a.address),
        at,
      ).toEqual(Object.keys(effective).sort());
      for (const account of res.body.cursor.data) {
        expect(account.effectiveVolumes, `${at} ${account.address} effective`).toEqual(
          effective[account.address] ?? {},
        );
        expect(account.volumes, `${at} ${account.address} inserted`).toEqual(
          inserted[account.address] ?? {},
        );
      }
      expect(
        (await call('HEAD', `/v2/${ledger}/accounts?pit=${at}`)).headers.get('count'),
        at,
      ).toBe(String(Object.keys(effective).length));
    }
  });

  it('aggregated balances on either clock', async () => {
    const sums = (volumes: Volumes) => {
      const result: Record<string, bigint> = {};
      for (const byAsset of Object.values(volumes))
        for (const [asset, v] of Object.entries(byAsset))
          result[asset] = (result[asset] ?? 0n) + v.balance;
      return Object.fromEntries(Object.entries(result).sort());
    };
    const only = (volumes: Volumes, address: string): Volumes =>
      volumes[address] ? { [address]: volumes[address] } : {};
    const match = `query=${encodeURIComponent(JSON.stringify({ $match: { address: 'a' } }))}`;
    for (const pit of pits()) {
      const at = new Date(pit).toISOString();
      const effective = await call('GET', `/v2/${ledger}/aggregate/balances?pit=${at}`);
      expect(effective.status, effective.text).toBe(200);
      expect(effective.body.data, at).toEqual(sums(replay(effectiveBy(pit))));
      const inserted = await call(
        'GET',
        `/v2/${ledger}/aggregate/balances?pit=${at}&useInsertionDate=true`,
      );
      expect(inserted.body.data, at).toEqual(sums(replay(insertedBy(pit))));
      const one = await call(
        'GET',
        `/v2/${ledger}/aggregate/balances?pit=${at}&useInsertionDate=true&${match}`,
      );
      expect(one.body.data, at).toEqual(sums(only(replay(insertedBy(pit)), 'a')));
    }
  });

  it('transactions: those dated by then, by id or by timestamp, with reverted as written by then, in pages', async () => {
    for (const [n, pit] of pits().entries()) {
      // Small pages on a few instants (cursors keep pit and order), one page elsewhere.
      const pageSize = n % 4 === 0 ? 7 : 100;
      const at = new Date(pit).toISOString();
      const dated = written.filter(effectiveBy(pit));
      const byId = dated.map((t) => t.id).sort((x, y) => y - x);
      const byTime = [...dated]
        .sort((x, y) => y.timestamp - x.timestamp || y.id - x.id)
        .map((t) => t.id);
      for (const [query, expected] of [
        [`pit=${at}`, byId],
        [`pit=${at}&order=effective`, byTime],
      ] as const) {
        const seen: Array<{ id: bigint; reverted: boolean; revertedAt?: string }> = [];
        let res = await call('GET', `/v2/${ledger}/transactions?${query}&pageSize=${pageSize}`);
        for (;;) {
          expect(res.status, res.text).toBe(200);
          seen.push(...res.body.cursor.data);
          if (!res.body.cursor.hasMore) break;
          res = await call('GET', `/v2/${ledger}/transactions?cursor=${res.body.cursor.next}`);
        }
        expect(
          seen.map((t) => Number(t.id)),
          query,
        ).toEqual(expected);
        for (const t of seen) {
          const revertedAt = written.find((w) => w.id === Number(t.id))!.revertedAt;
          expect(t.reverted, `${query} ${t.id}`).toBe(
            revertedAt !== undefined && revertedAt <= pit,
          );
          expect(t.revertedAt === undefined ? undefined : Date.parse(t.revertedAt)).toBe(
            t.reverted ? revertedAt : undefined,
          );
        }
      }
      expect(
        (await call('HEAD', `/v2/${ledger}/transactions?pit=${at}`)).headers.get('count'),
        at,
      ).toBe(String(dated.length));
      const ofB = written
        .filter(
          (t) =>
            effectiveBy(pit)(t) &&
            t.postings.some((p) => p.source === 'b' || p.destination === 'b'),
        )
        .map((t) => t.id)
        .sort((x, y) => y - x);
      const account = await call(
        'GET',
        `/v2/${ledger}/transactions?pit=${at}&pageSize=100&query=${encodeURIComponent(JSON.stringify({ $match: { account: 'b' } }))}`,
      );
      expect(
        account.body.cursor.data.map((t: { id: bigint }) => Number(t.id)),
        at,
      ).toEqual(ofB);
    }
  });

  it('volumes over insertion-time windows ([startTime, endTime] on insertedAt, as the reference)', async () => {
    const instants = pits().sort((x, y) => x - y);
    const windows: Array<[number | undefined, number | undefined]> = [
      [undefined, instants[5]],
      [instants[2], undefined],
      [instants[3], instants[9]],
      ...written
        .filter((_, i) => i % 23 === 5)
        .map((t) => [t.insertedAt, t.insertedAt + 10 * 86_400_000] as [number, number]),
    ];
    for (const [from, to] of windows) {
      const params = [
        from !== undefined ? `startTime=${new Date(from).toISOString()}` : '',
        to !== undefined ? `endTime=${new Date(to).toISOString()}` : '',
      ]
        .filter(Boolean)
        .join('&');
      const res = await call(
        'GET',
        `/v2/${ledger}/volumes?insertionDate=true&${params}&pageSize=100`,
      );
      expect(res.status, res.text).toBe(200);
      const expected = replay(
        (t) =>
          (from === undefined || t.insertedAt >= from) && (to === undefined || t.insertedAt <= to),
      );
      const rows = Object.entries(expected)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .flatMap(([account, byAsset]) =>
          Object.entries(byAsset)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([asset, v]) => ({ account, asset, ...v })),
        );
      expect(res.body.cursor.data, params).toEqual(rows);
    }
  });
});

describe('point-in-time volumes where move pages and time orders disagree', () => {
  const pages = 'pit-pages';
  const history: Written[] = [];
  const day = (month: number, d: number) => Date.UTC(2026, month - 1, d);

  beforeAll(async () => {
    expect((await call('POST', `/v2/${pages}`)).status).toBe(204);
    const commit = async (
      account: string,
      amount: number,
      timestamp: number,
      insertedAt: number,
    ) => {
      clock = insertedAt;
      const res = await call('POST', `/v2/${pages}/transactions`, {
        postings: [{ source: 'world', destination: account, amount: BigInt(amount), asset: 'USD' }],
        timestamp: new Date(timestamp).toISOString(),
      });
      expect(res.status, res.text).toBe(200);
      history.push({
        id: Number(res.body.data.id),
        postings: res.body.data.postings,
        timestamp,
        insertedAt,
      });
    };
    // q: in order by effective time (January), inserted in two bursts: ids 1-8 in February (one page), 9-16 in
    // March (the next page), 17 in the buffer. By effective time the page nearest a mid-February instant is the
    // second, whose ids were all inserted after it: the walk goes back from there.
    for (let i = 1; i <= 17; i++)
      await commit('q', i, day(1, i), i <= 8 ? day(2, i) : day(3, i - 8));
    // p: eight moves (April 1-8: a page), then one back-dated to March 1st that starts the next page, then seven in
    // late April: at April 10th the last page starting by then holds no in-order move by then, and the last
    // in-order move is the one whose key started it.
    const moves = [
      ...Array.from({ length: 8 }, (_, i) => day(4, i + 1)),
      day(3, 1),
      ...Array.from({ length: 7 }, (_, i) => day(4, 20 + i)),
    ];
    for (const [i, timestamp] of moves.entries())
      await commit('p', 100 + i, timestamp, day(3, 20) + i * 60_000);
  });

  it('accounts at each instant equal the replay, on both clocks', async () => {
    const instants = [
      day(1, 5),
      day(1, 20),
      day(2, 4),
      day(2, 15),
      day(3, 4),
      day(3, 10),
      day(3, 15),
      day(3, 20) + 5 * 60_000,
      day(4, 5),
      day(4, 10),
      day(4, 22),
      day(5, 1),
    ];
    for (const pit of instants) {
      const at = new Date(pit).toISOString();
      const res = await call(
        'GET',
        `/v2/${pages}/accounts?pit=${at}&expand=volumes,effectiveVolumes`,
      );
      expect(res.status, res.text).toBe(200);
      const byEffective = replayOf(history, (t) => t.timestamp <= pit);
      const byInsertion = replayOf(history, (t) => t.insertedAt <= pit);
      for (const account of res.body.cursor.data) {
        expect(account.effectiveVolumes, `${at} ${account.address} effective`).toEqual(
          byEffective[account.address] ?? {},
        );
        expect(account.volumes, `${at} ${account.address} inserted`).toEqual(
          byInsertion[account.address] ?? {},
        );
      }
      expect(
        res.body.cursor.data.map((a: { address: string }) => a.address),
        at,
      ).toEqual(Object.keys(byEffective).sort());
    }
  });
});

function replayOf(transactions: Written[], by: (t: Written) => boolean) {
  const saved = written.splice(0, written.length, ...transactions);
  try {
    return replay(by);
  } finally {
    written.splice(0, written.length, ...saved);
  }
}
