import type { Logger } from '../../lib/observability/logger.js';
import type { WriteSignal } from './write-signal.js';

export interface DueTimerOptions {
  /** The shortest pause between two runs (and how soon after a write the next run comes). */
  intervalMs: number;
  /** The longest pause: a run comes at least this often even when nothing says it is due. */
  idleMaxMs: number;
  /** Each run answers when the next is due (ms since the epoch), or undefined when nothing is waiting. */
  run: () => Promise<number | undefined>;
  /** Every write may have made something due sooner: the next run comes within `intervalMs` of one. */
  wakeOn: WriteSignal;
  logger: Logger;
  failure: string;
  now?: () => number;
}

/**
 * A local stand-in for a schedule that sleeps until it has work: after each run it waits until the run's answer
 * (kept between `intervalMs` and `idleMaxMs` from now), and a write shortens a longer wait to `intervalMs`. Idle,
 * it costs one run per `idleMaxMs` instead of one per `intervalMs` (each run is DynamoDB Local requests, which an
 * idle platform should not spend). The first run is at once; one run at a time; a failed run is logged as `failure`
 * and retried after `intervalMs`. Returns a stop function that waits for a run in progress.
 */
export function startDueTimer(options: DueTimerOptions): () => Promise<void> {
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let wakeAtMs = Number.POSITIVE_INFINITY;
  let running: Promise<void> | undefined;
  let stopped = false;
  // A write during a run may have made something due that the run's answer missed.
  let writtenDuringRun = false;
  const wakeAt = (atMs: number) => {
    if (stopped) return;
    clearTimeout(timer);
    wakeAtMs = atMs;
    timer = setTimeout(tick, Math.max(0, atMs - now()));
    timer.unref();
  };
  const tick = () => {
    wakeAtMs = Number.POSITIVE_INFINITY;
    writtenDuringRun = false;
    running = options
      .run()
      .then((dueMs) => {
        const from = now();
        const earliest = from + options.intervalMs;
        const latest = writtenDuringRun ? earliest : from + options.idleMaxMs;
        wakeAt(Math.min(Math.max(dueMs ?? Number.POSITIVE_INFINITY, earliest), latest));
      })
      .catch((err: unknown) => {
        options.logger.log('error', options.failure, {
          error: err instanceof Error ? err.message : String(err),
        });
        wakeAt(now() + options.intervalMs);
      })
      .finally(() => {
        running = undefined;
      });
  };
  const unsubscribe = options.wakeOn.on(() => {
    // A run in progress schedules the next itself; a wait already short enough stays.
    if (running) writtenDuringRun = true;
    if (running || wakeAtMs <= now() + options.intervalMs) return;
    wakeAt(now() + options.intervalMs);
  });
  wakeAt(now());
  return async () => {
    stopped = true;
    unsubscribe();
    clearTimeout(timer);
    await running;
  };
}
