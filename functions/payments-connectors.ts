// The payments connectors' worker: started every minute by an EventBridge schedule, it runs the connectors' due
// schedules (fetch accounts, balances, payments, from their cursors) and sends the initiations due, found on the
// payments table's `due` index (lib/payments/connectors/worker.ts).
import { platformConfigFromVariables } from '../lib/config/env.js';
import { createDocumentClient } from '../lib/dynamo/client.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { recordMetric } from '../lib/observability/metrics.js';
import { runWorkerTick } from '../lib/payments/connectors/worker.js';
import { dummypaySettings } from '../lib/payments/domain/connectors/dummypay-directory.js';
import { createRuntime } from '../lib/runtime/runtime.js';

const runtime = createRuntime(platformConfigFromVariables());
const stores = {
  doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
  table: runtime.config.tables.payments,
  eventsTable: runtime.config.tables.events,
};
const deps = {
  fetch: globalThis.fetch,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  now: Date.now,
  dummypay: dummypaySettings(runtime.config),
  publicBaseUrl: runtime.config.publicBaseUrl,
};

/** Scheduled (EventBridge): one tick. Runs hold leases, so two ticks at once run each schedule once. */
export const handler = withObservability(async () => {
  const tick = await runWorkerTick(stores, deps);
  for (const [outcome, count] of Object.entries(tick.schedules))
    if (count > 0) recordMetric('ConnectorRuns', { outcome }, count);
  recordMetric('ConnectorLag', {}, tick.lagMs);
  runtime.logger.log('info', 'connectors tick', {
    ...tick.schedules,
    initiations: tick.initiations,
    lagMs: tick.lagMs,
  });
  return tick;
});
