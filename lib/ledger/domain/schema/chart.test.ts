import { describe, expect, it } from 'vitest';
import { chartAccount, checkPostingsAgainstChart, firstUseMetadata, parseChart } from './chart.js';

const CHART = {
  world: {},
  bank: { '.self': {}, fees: {}, '.metadata': { kind: { default: 'bank' } } },
  users: {
    $userId: {
      '.pattern': '^[0-9]+$',
      '.self': {},
      '.metadata': { tier: { default: 'basic' }, note: {} },
      wallet: { $currency: {} },
    },
  },
};

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('parseChart', () => {
  it('refuses what the reference refuses, naming the path', () => {
    expect(refusal(() => parseChart({ $x: {} }))).toBe(
      'chart.$x: the root cannot have a variable segment',
    );
    expect(refusal(() => parseChart({ '.self': {} }))).toBe(
      'chart..self: the root cannot be an account',
    );
    expect(refusal(() => parseChart({ users: { '.pattern': 'x' } }))).toBe(
      'chart.users: a fixed segment cannot have a .pattern',
    );
    expect(refusal(() => parseChart({ a: { b: { '.pattern': 'x' } } }))).toBe(
      'chart.a.b: a fixed segment cannot have a .pattern',
    );
    expect(refusal(() => parseChart({ a: { $x: {}, $y: {} } }))).toBe(
      'chart.a.$y: two variable segments at the same level',
    );
    expect(refusal(() => parseChart({ a: { $x: { '.pattern': '(' } } }))).toBe(
      'chart.a.$x..pattern: not a valid regular expression',
    );
    expect(refusal(() => parseChart({ a: { b: {}, '.metadata': {} } }))).toBe(
      'chart.a..metadata: only an account segment has .metadata',
    );
    expect(refusal(() => parseChart({ a: { '.self': { x: 1 }, b: {} } }))).toBe(
      'chart.a..self: must be an empty object',
    );
    expect(refusal(() => parseChart({ 'a b': {} }))).toBe('chart.a b: invalid segment name');
  });
});

describe('chartAccount', () => {
  const chart = parseChart(CHART);

  it('finds fixed, .self and variable accounts with their default metadata', () => {
    expect(chartAccount(chart, 'world')).toEqual({ defaults: {} });
    expect(chartAccount(chart, 'bank')).toEqual({ defaults: { kind: 'bank' } });
    expect(chartAccount(chart, 'bank:fees')).toEqual({ defaults: {} });
    expect(chartAccount(chart, 'users:42:wallet:EUR')).toEqual({ defaults: {} });
  });

  it('refuses addresses outside the chart, saying where', () => {
    expect(refusal(() => chartAccount(chart, 'shop'))).toBe(
      'account "shop" is not in the chart of accounts: segment "shop" is not one of the chart\'s segments',
    );
    expect(refusal(() => chartAccount(chart, 'users:abc'))).toBe(
      'account "users:abc" is not in the chart of accounts: segment "abc" after "users" does not match the pattern of the chart\'s segments',
    );
    // `users` has sub-segments and no `.self`: a segment, not an account.
    expect(refusal(() => chartAccount(chart, 'users'))).toBe(
      'account "users" is not in the chart of accounts: "users" is a segment of the chart, not an account',
    );
    expect(refusal(() => chartAccount(chart, 'users:42:wallet'))).toMatch(
      /is a segment of the chart/,
    );
    expect(chartAccount(chart, 'users:42')).toEqual({ defaults: { tier: 'basic' } });
  });

  it('checks every posting and gathers the defaults; a write wins over a default', () => {
    const defaults = checkPostingsAgainstChart(chart, [
      { source: 'world', destination: 'bank' },
      { source: 'bank', destination: 'users:7:wallet:USD' },
    ]);
    expect(Object.fromEntries(defaults)).toEqual({
      world: {},
      bank: { kind: 'bank' },
      'users:7:wallet:USD': {},
    });
    expect(() =>
      checkPostingsAgainstChart(chart, [{ source: 'world', destination: 'users:x' }]),
    ).toThrow(/users:x/);
    expect(firstUseMetadata({ tier: 'basic', kind: 'x' }, { tier: 'gold' })).toEqual({
      tier: 'gold',
      kind: 'x',
    });
  });
});
