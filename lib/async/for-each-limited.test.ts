import { describe, expect, it } from 'vitest';
import { forEachLimited } from './for-each-limited.js';

describe('forEachLimited', () => {
  it('runs every item once, never more than the limit at a time', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, n % 3));
      seen.push(n);
      running--;
    });
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachLimited([], 4, async () => {
      calls++;
    });
    expect(calls).toBe(0);
  });
});
