import type { Logger } from '../../lib/observability/logger.js';

/**
 * A scheduled function's local stand-in: `run` every `intervalMs` on a timer that does not keep the process
 * alive, one run at a time (a tick that finds the previous run still going is skipped), a failure logged as
 * `failure` and the next tick tried as usual. Returns a stop function that waits for a run in progress.
 */
export function startScheduleTimer(options: {
  intervalMs: number;
  run: () => Promise<void>;
  logger: Logger;
  failure: string;
}): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = options
      .run()
      .catch((err: unknown) =>
        options.logger.log('error', options.failure, {
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
