import { describe, expect, it } from 'vitest';
import {
  type BalanceMonitor,
  changeCrossings,
  type MonitorCondition,
  monitorCrossings,
  monitorsFromStored,
} from './monitors.js';

const monitor = (id: string, condition: MonitorCondition, account = 'users:*'): BalanceMonitor => ({
  id,
  account,
  asset: 'USD/2',
  condition,
  metadata: {},
  createdAt: '2026-11-28T00:00:00Z',
});

/** A pair moved from balance `from` to `to`: input grows when it rises, output when it falls (volumes only grow). */
const B = 1000n;
const move = (from: bigint, to: bigint, account = 'users:1', asset = 'USD/2') => ({
  account,
  asset,
  before: { input: B + from, output: B },
  after: to >= from ? { input: B + to, output: B } : { input: B + from, output: B + from - to },
});

const triggered = (m: BalanceMonitor, from: bigint, to: bigint) =>
  monitorCrossings([m], [move(from, to)]).map((c) => c.monitor);

describe('balance monitor crossings', () => {
  it('below: only from at-or-above the amount to under it', () => {
    const m = monitor('b', { type: 'below', amount: 100n });
    expect(triggered(m, 150n, 99n)).toEqual(['b']);
    expect(triggered(m, 100n, 99n)).toEqual(['b']);
    expect(triggered(m, 150n, 100n)).toEqual([]);
    expect(triggered(m, 99n, 50n)).toEqual([]); // already below: no new crossing
    expect(triggered(m, 50n, 150n)).toEqual([]); // rising back is no crossing
  });

  it('above: only from at-or-below the amount to over it', () => {
    const m = monitor('a', { type: 'above', amount: 100n });
    expect(triggered(m, 0n, 101n)).toEqual(['a']);
    expect(triggered(m, 100n, 101n)).toEqual(['a']);
    expect(triggered(m, 101n, 500n)).toEqual([]);
    expect(triggered(m, 500n, 0n)).toEqual([]);
  });

  it('negative: from zero or more to under zero; changes: every change', () => {
    const n = monitor('n', { type: 'negative' });
    expect(triggered(n, 0n, -1n)).toEqual(['n']);
    expect(triggered(n, -1n, -5n)).toEqual([]);
    expect(triggered(n, 5n, 1n)).toEqual([]);
    const c = monitor('c', { type: 'changes' });
    expect(triggered(c, 5n, 6n)).toEqual(['c']);
    expect(triggered(c, 6n, -6n)).toEqual(['c']);
  });

  it('a pair whose balance did not change triggers nothing, even `changes` (input and output both grew)', () => {
    const c = monitor('c', { type: 'changes' });
    expect(
      monitorCrossings(
        [c],
        [
          {
            account: 'users:1',
            asset: 'USD/2',
            before: { input: 5n, output: 0n },
            after: { input: 10n, output: 5n },
          },
        ],
      ),
    ).toEqual([]);
  });

  it('matches the pattern and the asset; several monitors and pairs in order, with before and after', () => {
    const monitors = [
      monitor('m1', { type: 'below', amount: 0n }),
      monitor('m2', { type: 'changes' }, 'users:1'),
      monitor('m3', { type: 'changes' }, 'merchants:*'),
    ];
    const crossings = monitorCrossings(monitors, [
      move(10n, -5n, 'users:1'),
      move(10n, -5n, 'users:1', 'EUR'),
      move(0n, 7n, 'users:2'),
    ]);
    expect(crossings).toEqual([
      {
        monitor: 'm1',
        condition: { type: 'below', amount: 0n },
        account: 'users:1',
        asset: 'USD/2',
        before: 10n,
        after: -5n,
      },
      {
        monitor: 'm2',
        condition: { type: 'changes' },
        account: 'users:1',
        asset: 'USD/2',
        before: 10n,
        after: -5n,
      },
    ]);
  });
});

describe('monitors on the available balance', () => {
  const held = (pendingOutput: bigint) => ({ pendingInput: 0n, pendingOutput });
  const volume = { input: 500n, output: 100n };

  it('a hold crosses available below its amount while the posted balance does not move', () => {
    const change = {
      log: { type: 'CREATED_PENDING', data: {} },
      transactions: [],
      volumes: [],
      moves: [],
      accounts: [],
      references: [],
      accountsAdded: 0,
      held: [{ account: 'users:1', asset: 'USD/2', held: held(350n) }],
    } as unknown as Parameters<typeof changeCrossings>[1];
    const monitors = [
      monitor('avail', { type: 'below', amount: 100n, field: 'available' }),
      monitor('posted', { type: 'below', amount: 100n }),
      monitor('changes', { type: 'changes', field: 'available' }),
    ];
    expect(
      changeCrossings(
        monitors,
        change,
        () => volume,
        () => held(50n),
      ),
    ).toEqual([
      {
        monitor: 'avail',
        condition: { type: 'below', amount: 100n, field: 'available' },
        account: 'users:1',
        asset: 'USD/2',
        before: 350n,
        after: 50n,
      },
      {
        monitor: 'changes',
        condition: { type: 'changes', field: 'available' },
        account: 'users:1',
        asset: 'USD/2',
        before: 350n,
        after: 50n,
      },
    ]);
  });

  it('a post moves posted and held alike: available unchanged, no available crossing; balance crosses', () => {
    const crossings = monitorCrossings(
      [
        monitor('avail', { type: 'changes', field: 'available' }),
        monitor('posted', { type: 'below', amount: 350n }),
      ],
      [
        {
          account: 'users:1',
          asset: 'USD/2',
          before: volume,
          after: { input: 500n, output: 200n },
          heldBefore: held(100n),
          heldAfter: held(0n),
        },
      ],
    );
    expect(crossings.map((c) => [c.monitor, c.before, c.after])).toEqual([['posted', 400n, 300n]]);
  });

  it('stored monitors keep their field; those stored before it watch the posted balance', () => {
    expect(
      monitorsFromStored([
        { ...monitor('a', { type: 'negative', field: 'available' }) },
        { ...monitor('b', { type: 'negative' }) },
      ]).map((m) => m.condition),
    ).toEqual([{ type: 'negative', field: 'available' }, { type: 'negative' }]);
  });
});
