import type { PlatformConfig } from '../../lib/config/env.js';
import { runHoldSweep } from '../../lib/ledger/worker/hold-sweep.js';
import { holdSweepDeps } from '../../lib/ledger/worker/hold-sweep-deps.js';
import type { Logger } from '../../lib/observability/logger.js';
import { startScheduleTimer } from './schedule-timer.js';

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
  const stop = startScheduleTimer({
    intervalMs: options.intervalMs,
    logger: options.logger,
    failure: 'hold sweep failed',
    run: async () => {
      const swept = await runHoldSweep(deps);
      if (swept.released > 0 || swept.failed > 0)
        options.logger.log('info', 'expired holds released', { ...swept });
    },
  });
  return async () => {
    await stop();
    deps.destroy();
  };
}
