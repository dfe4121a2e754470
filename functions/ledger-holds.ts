// The hold sweeper: started every minute by an EventBridge schedule, it releases the holds (pending transfers) of
// every ledger that are past their expiry, found on the ledger tables' `due` index (lib/ledger/worker/hold-sweep.ts).
import { platformConfigFromVariables } from '../lib/config/env.js';
import { runHoldSweep } from '../lib/ledger/worker/hold-sweep.js';
import { holdSweepDeps } from '../lib/ledger/worker/hold-sweep-deps.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createLogger } from '../lib/observability/logger.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const config = platformConfigFromVariables();
const logger = createLogger(config.logLevel, undefined, config.logFormat);
const deps = holdSweepDeps(config, logger);

/**
 * Scheduled (EventBridge): one sweep. A sweep repeated or overlapping another is harmless (each release is decided
 * by the ledger's writer). A ledger whose sweep failed fails the invocation once the others are swept, so the
 * function's error alarm sees it; its holds stay due for the next minute.
 */
export const handler = withObservability(async () => {
  const tick = await runHoldSweep(deps);
  logger.log('info', 'hold sweep', { ...tick });
  if (tick.failed > 0) throw new Error(`the hold sweep failed for ${tick.failed} ledger(s)`);
  return tick;
});
