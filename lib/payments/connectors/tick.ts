import { scanSchedules } from '../store/schedule-store.js';
import { paymentsStores, type StoresConfig } from '../store/stores.js';
import { type RunnerDeps, type RunOutcome, runSchedule } from './runner.js';

/** Connectors whose schedules run at once: one slow provider holds one of these, never the others. */
const CONCURRENT_CONNECTORS = 8;

/**
 * One tick of the local timer: every due schedule of every environment runs once, connectors side by side and
 * each connector's schedules one after another. In AWS the scheduler starts `runSchedule` per schedule instead;
 * this walk (a Scan) is for one machine's data only.
 */
export async function runDueSchedules(
  config: StoresConfig,
  deps: RunnerDeps,
): Promise<Record<RunOutcome, number>> {
  const now = (config.now ?? Date.now)();
  const due = (await scanSchedules({ doc: config.doc, table: config.table })).filter(
    ({ schedule }) => schedule.nextRunAtMs <= now && schedule.pausedAt === undefined,
  );
  const byConnector = new Map<string, typeof due>();
  for (const entry of due) {
    const key = `${entry.environment}/${entry.schedule.connectorID}`;
    byConnector.set(key, [...(byConnector.get(key) ?? []), entry]);
  }
  const counts: Record<RunOutcome, number> = { skipped: 0, done: 0, more: 0, failed: 0 };
  const groups = [...byConnector.values()];
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const group = groups[next++]!;
      for (const { environment, schedule } of group) {
        const outcome = await runSchedule(paymentsStores(config, environment), schedule, deps);
        counts[outcome]++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CONNECTORS, groups.length) }, worker));
  return counts;
}
