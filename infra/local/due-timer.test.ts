import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../lib/observability/logger.js';
import { startDueTimer } from './due-timer.js';
import { WriteSignal } from './write-signal.js';

afterEach(() => vi.useRealTimers());

const INTERVAL_MS = 1_000;
const IDLE_MAX_MS = 60_000;

/** A due timer on fake time whose runs answer from `answers` in turn (then undefined), recording when each ran. */
function timerOn(answers: Array<(nowMs: number) => number | undefined>, run?: () => Promise<void>) {
  vi.useFakeTimers({ now: 0 });
  const lines: string[] = [];
  const logger = { log: (_level, message) => lines.push(message) } as Logger;
  const runsAtMs: number[] = [];
  const writes = new WriteSignal();
  const stop = startDueTimer({
    intervalMs: INTERVAL_MS,
    idleMaxMs: IDLE_MAX_MS,
    wakeOn: writes,
    logger,
    failure: 'sweep failed',
    run: async () => {
      runsAtMs.push(Date.now());
      await run?.();
      return answers.shift()?.(Date.now());
    },
  });
  return { runsAtMs, writes, stop, lines };
}

describe('a local due timer', () => {
  it('runs at once, then when each run says the next is due, kept between the interval and the idle maximum', async () => {
    const { runsAtMs, stop } = timerOn([
      (now) => now + 5_000,
      (now) => now - 10_000, // already due (not releasable yet): not a busy loop, one interval
      (now) => now + 200, // sooner than the interval: the interval
      () => undefined, // nothing waiting: the idle maximum
    ]);
    await vi.advanceTimersByTimeAsync(5_000 + 1_000 + 1_000 + IDLE_MAX_MS + 10);
    expect(runsAtMs).toEqual([0, 5_000, 6_000, 7_000, 7_000 + IDLE_MAX_MS]);
    await stop();
  });

  it('a write shortens a longer wait to one interval, and never postpones a shorter one', async () => {
    const { runsAtMs, writes, stop } = timerOn([() => undefined, (now) => now + 1_500]);
    await vi.advanceTimersByTimeAsync(10_000);
    writes.notify();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runsAtMs).toEqual([0, 11_000]);
    await vi.advanceTimersByTimeAsync(1_000);
    writes.notify(); // the wait ends at 12,500: a write asks for 13,000, later, so nothing moves
    await vi.advanceTimersByTimeAsync(600);
    expect(runsAtMs).toEqual([0, 11_000, 12_500]);
    await stop();
  });

  it('a write during a run caps the next wait at one interval, whatever the run answered', async () => {
    let finish: () => void = () => {};
    let hold = true;
    const { runsAtMs, writes, stop } = timerOn([() => undefined, () => undefined], () =>
      hold
        ? new Promise<void>((resolve) => {
            finish = resolve;
          })
        : Promise.resolve(),
    );
    await vi.advanceTimersByTimeAsync(100);
    writes.notify();
    hold = false;
    finish();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(runsAtMs).toEqual([0, 1_100]);
    await vi.advanceTimersByTimeAsync(IDLE_MAX_MS);
    expect(runsAtMs).toEqual([0, 1_100, 1_100 + IDLE_MAX_MS]);
    await stop();
  });

  it('logs a failed run under its name and runs again after one interval', async () => {
    const { runsAtMs, lines, stop } = timerOn([
      () => {
        throw new Error('throttled');
      },
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lines).toEqual(['sweep failed']);
    expect(runsAtMs).toEqual([0, 1_000]);
    await stop();
  });

  it('stop waits for the run in progress, and nothing runs after it', async () => {
    let finish: () => void = () => {};
    const { runsAtMs, writes, stop } = timerOn(
      [() => 0],
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    );
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    writes.notify();
    await vi.advanceTimersByTimeAsync(IDLE_MAX_MS * 2);
    expect(runsAtMs).toEqual([0]);
  });
});
