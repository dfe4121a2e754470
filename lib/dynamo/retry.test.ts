import { describe, expect, it } from 'vitest';
import { attemptOf, backoffMs, retryWithBackoff } from './retry.js';

describe('retryWithBackoff (lib/dynamo/retry.ts), the one retry loop of the stores', () => {
  it('waits full jitter over a window that doubles with each failed attempt, up to its cap', () => {
    const policy = { baseDelayMs: 10, maxDelayMs: 100 };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 1))).toEqual([
      20, 40, 80, 100, 100,
    ]);
    expect(backoffMs(3, policy, () => 0.5)).toBe(40);
    expect(backoffMs(3, policy, () => 0)).toBe(0);
    // The defaults: 10 ms doubling, capped at 500 ms.
    expect([1, 6].map((n) => backoffMs(n, {}, () => 1))).toEqual([20, 500]);
  });

  it('answers what `exhausted` answers once every attempt failed, after maxAttempts - 1 waits', async () => {
    const waits: number[] = [];
    let calls = 0;
    const answer = await retryWithBackoff<string>(
      async (attempt) => {
        calls++;
        expect(attempt).toBe(calls);
        return { done: false };
      },
      { maxAttempts: 4, sleep: async (ms) => void waits.push(ms) },
      (attempts) => `gave up after ${attempts}`,
    );
    expect(answer).toBe('gave up after 4');
    expect(calls).toBe(4);
    expect(waits).toHaveLength(3);
  });

  it('throws what `exhausted` throws, and answers the first done value', async () => {
    await expect(
      retryWithBackoff(
        async () => ({ done: false }),
        { maxAttempts: 1 },
        () => {
          throw new Error('busy');
        },
      ),
    ).rejects.toThrow('busy');
    let calls = 0;
    const value = await retryWithBackoff(
      async () => attemptOf(++calls < 3 ? 'retry' : calls),
      { maxAttempts: 5, sleep: async () => undefined },
      () => -1,
    );
    expect([value, calls]).toEqual([3, 3]);
  });
});
