import type { PlatformConfig } from '../../lib/config/env.js';
import { runHoldSweep } from '../../lib/ledger/worker/hold-sweep.js';
import { holdSweepDeps } from '../../lib/ledger/worker/hold-sweep-deps.js';
import type { Logger } from '../../lib/observability/logger.js';

export interface HoldSweepTimerOptions {
  config: PlatformConfig;
  /** How often due holds are looked for. */
  intervalMs: number;
  logger: Logger;
}

/**
 * The local stand-in for the hold sweeper's schedule (functions/ledger-holds.ts): the same sweep, from the same
 * composition, on a timer that does not keep the process alive. Returns a stop function that waits for a sweep in
 * progress and then closes the sweep's DynamoDB client, so nothing of it outlives the platform.
 */
export function startHoldSweepTimer(options: HoldSweepTimerOptions): () => Promise<void> {
  const deps = holdSweepDeps(options.config, options.logger);
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = runHoldSweep(deps)
      .then(
        (swept) => {
          if (swept.released > 0 || swept.failed > 0)
            options.logger.log('info', 'expired holds released', { ...swept });
        },
        (err: unknown) =>
          options.logger.log('error', 'hold sweep failed', {
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
    deps.destroy();
  };
}
