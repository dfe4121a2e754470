import type { Logger } from '../../lib/observability/logger.js';
import { runDueSchedules } from '../../lib/payments/connectors/tick.js';
import type { DummypaySettings } from '../../lib/payments/domain/connectors/dummypay-directory.js';
import type { StoresConfig } from '../../lib/payments/store/stores.js';

export interface ConnectorTimerOptions {
  stores: StoresConfig;
  /** How often due schedules are looked for. */
  intervalMs: number;
  logger: Logger;
  /** Where dummypay connectors may read. */
  dummypay: DummypaySettings;
}

/**
 * The local stand-in for the payments connectors' scheduler: the same run of a schedule the worker would do, on a
 * timer that does not keep the process alive. Returns a stop function that waits for a tick in progress.
 */
export function startConnectorTimer(options: ConnectorTimerOptions): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = runDueSchedules(options.stores, {
      fetch: globalThis.fetch,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      now: Date.now,
      dummypay: options.dummypay,
    })
      .then(
        (counts) => {
          if (counts.done + counts.more + counts.failed > 0)
            options.logger.log('info', 'connector schedules ran', { ...counts });
        },
        (err: unknown) =>
          options.logger.log('error', 'connector schedules failed', {
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
