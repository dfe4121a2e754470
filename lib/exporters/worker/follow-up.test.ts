import { describe, expect, it } from 'vitest';
import { followUpOf } from './follow-up.js';

const NOW = 1_000_000;

describe('the drain that follows a drain', () => {
  it('goes on at once with more, after the back-off on a failure, never after caught-up, stopped or gone', () => {
    expect(followUpOf('wake', { state: 'more', lastLogId: 50 }, NOW)).toEqual({
      kind: 'wake',
      delaySeconds: 0,
    });
    expect(followUpOf('wake', { state: 'failed', error: 'x', retryAtMs: NOW + 1500 }, NOW)).toEqual(
      {
        kind: 'retry',
        delaySeconds: 2,
      },
    );
    for (const outcome of [
      { state: 'caught-up' },
      { state: 'stopped' },
      { state: 'gone' },
    ] as const)
      expect(followUpOf('retry', outcome, NOW)).toBeUndefined();
  });

  it('a wake within the back-off queues nothing; an early retry waits another hop of at most 15 minutes', () => {
    expect(followUpOf('wake', { state: 'waiting', retryAtMs: NOW + 4000 }, NOW)).toBeUndefined();
    expect(followUpOf('retry', { state: 'waiting', retryAtMs: NOW + 4000 }, NOW)).toEqual({
      kind: 'retry',
      delaySeconds: 4,
    });
    expect(
      followUpOf('retry', { state: 'failed', error: 'x', retryAtMs: NOW + 3_600_000 }, NOW),
    ).toEqual({
      kind: 'retry',
      delaySeconds: 900,
    });
  });
});
