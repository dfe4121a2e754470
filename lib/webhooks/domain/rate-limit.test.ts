import { describe, expect, it } from 'vitest';
import { rateLimitWaitSeconds } from './rate-limit.js';

describe('rate limit', () => {
  it('lets the first `limit` attempts of a second go, and spreads the rest over the seconds after', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => rateLimitWaitSeconds(n, 2))).toEqual([
      0, 0, 1, 1, 2, 2, 3,
    ]);
    expect(rateLimitWaitSeconds(1, 1)).toBe(0);
    expect(rateLimitWaitSeconds(2, 1)).toBe(1);
    expect(rateLimitWaitSeconds(5000, 1)).toBe(900);
  });
});
