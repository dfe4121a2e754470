import { describe, expect, it } from 'vitest';
import {
  HistoryWalk,
  microsToSortable,
  parseInterval,
  sortableToMicros,
} from './balance-history.js';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000000Z`;
const move = (second: number, txId: number, input: bigint, output = 0n) => ({
  key: `${at(second)}#${String(txId).padStart(15, '0')}`,
  txId,
  input,
  output,
});

describe('balance history walk', () => {
  it('reads intervals in microseconds and refuses other units and zero', () => {
    expect([parseInterval('30s'), parseInterval('15m'), parseInterval('1d')]).toEqual([
      30_000_000n,
      900_000_000n,
      86_400_000_000n,
    ]);
    expect(() => parseInterval('0s')).toThrow('interval: must be a whole number');
    expect(() => parseInterval('1w')).toThrow('interval: must be a whole number');
    expect(() => parseInterval('367d')).toThrow('interval: must be at most 366d');
  });

  it('converts sortable instants to microseconds and back, exactly', () => {
    const text = '2026-11-28T01:02:03.456789Z';
    expect(sortableToMicros(text)).toBe(1_795_827_723_456_789n);
    expect(microsToSortable(sortableToMicros(text))).toBe(text);
  });

  it('answers a point per move, and stops before a move when the page is full', () => {
    const walk = new HistoryWalk({ input: 5n, output: 0n }, { to: at(59) }, 2);
    expect([
      walk.feed(move(1, 1, 3n)),
      walk.feed(move(2, 2, 0n, 4n)),
      walk.feed(move(3, 3, 1n)),
    ]).toEqual([true, true, false]);
    expect(walk.points).toEqual([
      { at: at(1), txId: 1, input: 8n, output: 0n },
      { at: at(2), txId: 2, input: 8n, output: 4n },
    ]);
    expect(walk.position).toEqual({ input: 8n, output: 4n, txId: 2 });
  });

  it('samples at each instant counting the moves dated at or before it, then the rest up to `to`', () => {
    const walk = new HistoryWalk(
      { input: 0n, output: 0n, nextSampleMicros: sortableToMicros(at(0)) },
      { to: at(30), intervalMicros: 10_000_000n },
      10,
    );
    for (const m of [move(0, 1, 1n), move(10, 2, 2n), move(11, 3, 4n)])
      expect(walk.feed(m)).toBe(true);
    walk.finish();
    expect(walk.points).toEqual([
      { at: at(0), txId: 1, input: 1n, output: 0n },
      { at: at(10), txId: 2, input: 3n, output: 0n },
      { at: at(20), txId: 3, input: 7n, output: 0n },
      { at: at(30), txId: 3, input: 7n, output: 0n },
    ]);
    expect(walk.samplesLeft()).toBe(false);
  });
});
