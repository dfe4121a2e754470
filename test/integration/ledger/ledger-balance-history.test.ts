/**
 * Balance history (docs/api.md §3.6) against a brute-force model: enough transactions that the busy pairs flush
 * several move pages, one in four back-dated (late moves), then every history — per transaction and sampled,
 * over several windows, walked in small pages — must equal the effective volumes the plain list of transactions
 * implies, and agree with the point-in-time account read.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const ACCOUNTS = ['world', 'a', 'b'];
const ASSETS = ['USD', 'EUR'];
const LEDGER = 'history';

interface Sent {
  id: number;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  second: number;
}

interface Point {
  timestamp: string;
  txId?: number;
  input: bigint;
  output: bigint;
  balance: bigint;
}

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const sent: Sent[] = [];

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const atText = (second: number) => at(second).replace('.000Z', 'Z');

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
    backdate: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }) },
    ),
  }),
  { numRuns: 60, seed: 20261128 },
);

beforeAll(async () => {
  const { runtime } = await testTables();
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', `/v2/${LEDGER}`)).status).toBe(204);
  for (const [i, step] of plan.entries()) {
    const second = 100 + i * 2 - step.backdate;
    const res = await call('POST', `/v2/${LEDGER}/transactions?force=true`, {
      postings: step.postings,
      timestamp: at(second),
    });
    expect(res.status, res.text).toBe(200);
    sent.push({ id: Number(res.body.data.id), postings: step.postings, second });
  }
});

/** The pair's moves in effective order (second, then id): what each transaction moved in and out. */
function modelMoves(account: string, asset: string) {
  const moves = sent.flatMap((t) => {
    let input = 0n;
    let output = 0n;
    let touched = false;
    for (const p of t.postings) {
      if (p.asset !== asset) continue;
      if (p.destination === account) input += p.amount;
      if (p.source === account) output += p.amount;
      touched ||= p.destination === account || p.source === account;
    }
    return touched ? [{ second: t.second, id: t.id, input, output }] : [];
  });
  return moves.sort((x, y) => x.second - y.second || x.id - y.id);
}

/** Volumes with every move dated at or before `second`, and the last of them. */
function modelAt(account: string, asset: string, second: number) {
  let input = 0n;
  let output = 0n;
  let txId: number | undefined;
  for (const m of modelMoves(account, asset)) {
    if (m.second > second) break;
    input += m.input;
    output += m.output;
    txId = m.id;
  }
  return { input, output, txId };
}

function modelChanges(account: string, asset: string, from: number, to: number): Point[] {
  const opening = modelAt(account, asset, from - 1);
  let { input, output } = opening;
  const points: Point[] = [];
  for (const m of modelMoves(account, asset)) {
    if (m.second < from || m.second > to) continue;
    input += m.input;
    output += m.output;
    points.push({
      timestamp: atText(m.second),
      txId: m.id,
      input,
      output,
      balance: input - output,
    });
  }
  return points;
}

function modelSamples(account: string, asset: string, from: number, to: number, step: number) {
  const points: Point[] = [];
  for (let s = from; s <= to; s += step) {
    const { input, output, txId } = modelAt(account, asset, s);
    points.push({
      timestamp: atText(s),
      ...(txId !== undefined ? { txId } : {}),
      input,
      output,
      balance: input - output,
    });
  }
  return points;
}

/** Every page of a history, checking each page's size. */
async function history(path: string, pageSize: number): Promise<Point[]> {
  const points: Point[] = [];
  let res = await call('GET', `${path}&pageSize=${pageSize}`);
  for (;;) {
    expect(res.status, res.text).toBe(200);
    const page = res.body.cursor;
    expect(page.data.length).toBeLessThanOrEqual(pageSize);
    points.push(
      ...page.data.map((p: Point) => ({
        ...p,
        ...(p.txId !== undefined ? { txId: Number(p.txId) } : {}),
      })),
    );
    if (!page.hasMore) return points;
    res = await call('GET', `${path.split('?')[0]}?cursor=${page.next}`);
  }
}

const base = (account: string, asset: string) =>
  `/v2/${LEDGER}/accounts/${account}/balances/history?asset=${encodeURIComponent(asset)}`;

describe('balance history', () => {
  it('answers a point per transaction by effective time, back-dated ones in place, over windows and pages', async () => {
    const windows: Array<[number, number]> = [
      [0, 1000],
      [100, 140],
      [85, 101],
      [150, 151],
    ];
    for (const asset of ASSETS) {
      for (const [from, to] of windows) {
        const expected = modelChanges('a', asset, from, to);
        const path = `${base('a', asset)}&from=${at(from)}&to=${at(to)}`;
        expect(await history(path, 4), `a ${asset} ${from}..${to}`).toEqual(expected);
      }
    }
    // The whole history without bounds, in pages of 7: every move of the pair, once.
    const all = await history(`${base('a', 'USD')}&to=${at(1000)}`, 7);
    expect(all).toEqual(modelChanges('a', 'USD', 0, 1000));
    expect(all.length).toBeGreaterThan(16);
  });

  it('samples per interval: the volumes at each instant, inclusive, with the last transaction counted', async () => {
    const cases: Array<[number, number, string, number]> = [
      [90, 220, '10s', 10],
      [0, 300, '1m', 60],
      [101, 103, '1s', 1],
    ];
    for (const [from, to, interval, step] of cases) {
      const expected = modelSamples('a', 'EUR', from, to, step);
      const path = `${base('a', 'EUR')}&from=${at(from)}&to=${at(to)}&interval=${interval}`;
      expect(await history(path, 3), `${from}..${to} every ${interval}`).toEqual(expected);
    }
  });

  it('agrees with the point-in-time account read at every sampled instant', async () => {
    const points = await history(
      `${base('b', 'USD')}&from=${at(95)}&to=${at(215)}&interval=20s`,
      50,
    );
    expect(points).toHaveLength(7);
    for (const point of points) {
      const res = await call(
        'GET',
        `/v2/${LEDGER}/accounts/b?pit=${point.timestamp}&expand=effectiveVolumes`,
      );
      const volumes = res.status === 404 ? undefined : res.body.data.effectiveVolumes?.USD;
      expect(volumes?.balance ?? 0n, point.timestamp).toBe(point.balance);
    }
  });

  it('answers an empty page for a pair never moved, and refuses what it cannot answer', async () => {
    const empty = await call(
      'GET',
      `${base('nobody', 'USD')}&from=${at(0)}&to=${at(10)}&interval=1s`,
    );
    expect(empty.status).toBe(200);
    expect(empty.body.cursor).toEqual({ pageSize: 15n, hasMore: false, data: [] });
    const refusals: Array<[string, string]> = [
      [`/v2/${LEDGER}/accounts/a/balances/history`, 'asset: required'],
      [`${base('a', 'USD')}&interval=1h`, 'from: required with interval'],
      [
        `${base('a', 'USD')}&from=${at(10)}&interval=1w`,
        'interval: must be a whole number and a unit s, m, h or d (e.g. 15m, 1d)',
      ],
      [`${base('a', 'USD')}&from=${at(10)}&to=${at(5)}`, 'from: must not be after to'],
      [`${base('a', 'usd')}`, 'asset: must be an asset such as USD or USD/2'],
      [`${base('a', 'USD')}&x=1`, 'x: unknown query parameter'],
    ];
    for (const [path, message] of refusals) {
      const res = await call('GET', path);
      expect([res.status, res.body.errorCode, res.body.errorMessage], path).toEqual([
        400,
        'VALIDATION',
        message,
      ]);
    }
    expect(
      (
        await call('POST', '/v2/history-off', {
          features: {
            MOVES_HISTORY: 'OFF',
            MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED',
          },
        })
      ).status,
    ).toBe(204);
    const off = await call('GET', `/v2/history-off/accounts/a/balances/history?asset=USD`);
    expect([off.status, off.body.errorMessage]).toEqual([400, 'missing feature "MOVES_HISTORY"']);
  });
});
