import type { Logger } from '../../lib/observability/logger.js';
import { runDueInitiations, runDueSchedules } from '../../lib/payments/connectors/tick.js';
import type { DummypaySettings } from '../../lib/payments/domain/connectors/dummypay-directory.js';
import type { StoresConfig } from '../../lib/payments/store/stores.js';
import { startScheduleTimer } from './schedule-timer.js';

export interface ConnectorTimerOptions {
  stores: StoresConfig;
  /** How often due schedules are looked for. */
  intervalMs: number;
  logger: Logger;
  /** Where dummypay connectors may read. */
  dummypay: DummypaySettings;
  /** The platform's own URL: connectors' ledger links reach auth and the ledger there. */
  publicBaseUrl: string;
}

/**
 * The local stand-in for the payments connectors' scheduler: the same run of a schedule the worker would do, on a
 * timer that does not keep the process alive. Returns a stop function that waits for a tick in progress.
 */
export function startConnectorTimer(options: ConnectorTimerOptions): () => Promise<void> {
  return startScheduleTimer({
    intervalMs: options.intervalMs,
    logger: options.logger,
    failure: 'connector schedules failed',
    run: async () => {
      const deps = {
        fetch: globalThis.fetch,
        sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
        // The stores' clock, when one is given (a test's faster one), or the machine's.
        now: options.stores.now ?? Date.now,
        dummypay: options.dummypay,
        publicBaseUrl: options.publicBaseUrl,
      };
      const counts = await runDueSchedules(options.stores, deps);
      const initiations = await runDueInitiations(options.stores, deps);
      if (counts.done + counts.more + counts.failed > 0)
        options.logger.log('info', 'connector schedules ran', { ...counts });
      if (initiations > 0)
        options.logger.log('info', 'scheduled payment initiations sent', { initiations });
    },
  });
}
