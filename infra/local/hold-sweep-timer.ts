import type { PlatformConfig } from '../../lib/config/env.js';
import { nextHoldDueMs, runHoldSweep } from '../../lib/ledger/worker/hold-sweep.js';
import { holdSweepDeps } from '../../lib/ledger/worker/hold-sweep-deps.js';
import type { Logger } from '../../lib/observability/logger.js';
import { startDueTimer } from './due-timer.js';
import type { WriteSignal } from './write-signal.js';

export interface HoldSweepTimerOptions {
  config: PlatformConfig;
  /** The shortest pause between two looks at the due index, and how soon after a write the next comes. */
  intervalMs: number;
  /** The longest pause while no hold is waiting (the stack's schedule runs every minute). */
  idleMaxMs: number;
  /**
   * The gateway's writes: one may have placed a hold that falls due before the current wait ends. The sweep's own
   * releases are told to it too (they wake the stream pollers as a gateway write does).
   */
  wakeOn: WriteSignal;
  /**
   * The embedded platform's writes that place or resolve a hold (`holdWritesOf`): the due index is looked at again
   * after those only. Without it, after every gateway write.
   */
  dueOn?: WriteSignal;
  logger: Logger;
}

/**
 * The local stand-in for the hold sweeper's schedule (functions/ledger-holds.ts): the same sweep, from the same
 * composition, run when the due index says a hold is due rather than every interval: each look reads when the next
 * hold falls due (one single-entry Query per index shard), sweeps if that is now, and sleeps until then. Idle, it
 * looks once per `idleMaxMs`. Returns a stop function that waits for a sweep in progress and then closes the
 * sweep's DynamoDB client, so nothing of it outlives the platform.
 */
export function startHoldSweepTimer(options: HoldSweepTimerOptions): () => Promise<void> {
  const deps = holdSweepDeps(options.config, options.logger);
  const stop = startDueTimer({
    intervalMs: options.intervalMs,
    idleMaxMs: options.idleMaxMs,
    wakeOn: options.dueOn ?? options.wakeOn,
    logger: options.logger,
    failure: 'hold sweep failed',
    run: async () => {
      const due = await nextHoldDueMs(deps);
      if (due === undefined || due > deps.now()) return due;
      const swept = await runHoldSweep(deps);
      if (swept.released > 0 || swept.failed > 0)
        options.logger.log('info', 'expired holds released', { ...swept });
      // Releases are writes the gateway never saw: the idle stream pollers are told, as of any write.
      if (swept.released > 0) options.wakeOn.notify();
      return nextHoldDueMs(deps);
    },
  });
  return async () => {
    await stop();
    deps.destroy();
  };
}
