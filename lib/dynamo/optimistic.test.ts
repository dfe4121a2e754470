import { describe, expect, it } from 'vitest';
import { DependencyThrottledError } from '../errors/index.js';
import { retryRaces } from './optimistic.js';

/** A step that loses `losses` races, then commits. */
const losing = (losses: number) => {
  let calls = 0;
  return {
    step: async () =>
      ++calls > losses ? { done: true as const, value: calls } : { done: false as const },
    calls: () => calls,
  };
};

describe('retryRaces', () => {
  it('keeps its default backoff for existing callers: windows of 20, 40, ... ms, capped at 500', async () => {
    const sleeps: number[] = [];
    const { step } = losing(7);
    expect(
      await retryRaces(step, {
        maxAttempts: 10,
        sleep: async (ms) => void sleeps.push(ms),
        busy: 'busy',
      }),
    ).toBe(8);
    expect(sleeps).toHaveLength(7);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeLessThanOrEqual(Math.min(500, 10 * 2 ** (i + 1)));
    });
  });

  it('takes a window and a cap of its own, and gives up after maxAttempts with a 503 error', async () => {
    const sleeps: number[] = [];
    const { step, calls } = losing(100);
    const err = await retryRaces(step, {
      maxAttempts: 64,
      baseDelayMs: 1,
      maxDelayMs: 3,
      sleep: async (ms) => void sleeps.push(ms),
      busy: 'try later',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyThrottledError);
    expect((err as Error).message).toBe('try later');
    expect(calls()).toBe(64);
    expect(sleeps).toHaveLength(63);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeLessThanOrEqual(Math.min(3, 2 ** (i + 1)));
    });
  });

  it('starts no attempt past its time budget', async () => {
    let clock = 0;
    const { step, calls } = losing(100);
    const err = await retryRaces(step, {
      maxAttempts: 1000,
      baseDelayMs: 100,
      maxDelayMs: 100,
      budgetMs: 1000,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      busy: 'busy',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyThrottledError);
    expect(clock).toBeLessThan(1000);
    expect(calls()).toBeGreaterThan(1);
  });
});
