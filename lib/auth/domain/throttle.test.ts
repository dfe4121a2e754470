import { describe, expect, it } from 'vitest';
import { addressGroup, DEFAULT_THROTTLE, mayEvaluate, secondsLeftInWindow } from './throttle.js';

describe('address groups of the failure budgets', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:5:6:1:2:3:4', '2001:db8:5:6::/64'],
    ['2001:0db8:0005:0006:ffff::9', '2001:db8:5:6::/64'],
    ['::1', '::/64'],
    ['', 'unknown'],
    ['unknown', 'unknown'],
    ['not an address', 'unknown'],
  ])('%s → %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });
});

describe('whether a reserved attempt may be compared', () => {
  const policy = { ...DEFAULT_THROTTLE, maxFailuresPerSourceOnceClientSpent: 1 };
  it('needs the source reservation, and the client one or a source within the allowance', () => {
    expect(mayEvaluate({ client: 300, source: 10 }, policy)).toBe(true);
    expect(mayEvaluate({ client: 5, source: undefined }, policy)).toBe(false);
    expect(mayEvaluate({ client: undefined, source: 1 }, policy)).toBe(true);
    expect(mayEvaluate({ client: undefined, source: 2 }, policy)).toBe(false);
    expect(mayEvaluate({ client: undefined, source: undefined }, policy)).toBe(false);
  });
});

describe('Retry-After', () => {
  it('is the seconds left in the window, at least 1', () => {
    expect(secondsLeftInWindow(Date.parse('2026-11-24T10:00:05Z'), 60)).toBe(55);
    expect(secondsLeftInWindow(Date.parse('2026-11-24T10:00:59.900Z'), 60)).toBe(1);
    expect(secondsLeftInWindow(Date.parse('2026-11-24T10:00:00Z'), 60)).toBe(60);
  });
});
