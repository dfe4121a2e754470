import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../lib/observability/logger.js';
import { startScheduleTimer } from './schedule-timer.js';

afterEach(() => vi.useRealTimers());

const recordingLogger = () => {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const logger = {
    log: (level, message, fields) => lines.push([level, message, fields]),
  } as Logger;
  return { logger, lines };
};

describe('a local schedule timer', () => {
  it('runs one at a time: a tick during a run is skipped, and stop waits for the run in progress', async () => {
    vi.useFakeTimers();
    const { logger } = recordingLogger();
    let started = 0;
    let finish: () => void = () => {};
    const stop = startScheduleTimer({
      intervalMs: 100,
      logger,
      failure: 'failed',
      run: () => {
        started++;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    });
    await vi.advanceTimersByTimeAsync(350);
    expect(started).toBe(1);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toBe(1);
  });

  it('logs a failed run under its name and runs again at the next tick', async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    let runs = 0;
    const stop = startScheduleTimer({
      intervalMs: 100,
      logger,
      failure: 'sweep failed',
      run: async () => {
        runs++;
        if (runs === 1) throw new Error('throttled');
      },
    });
    await vi.advanceTimersByTimeAsync(250);
    await stop();
    expect(runs).toBe(2);
    expect(lines).toEqual([['error', 'sweep failed', { error: 'throttled' }]]);
  });
});
