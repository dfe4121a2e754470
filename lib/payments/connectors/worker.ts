import { queryDue } from '../store/due-index.js';
import type { StoresConfig } from '../store/stores.js';
import { paymentsStores } from '../store/stores.js';
import type { RunnerDeps, RunOutcome } from './runner.js';
import { runGrouped, sendDueInitiation } from './tick.js';

/** What one tick of the worker finds due at most: the rest is the next tick's (a minute later). */
export const MAX_DUE_PER_TICK = 500;

export interface WorkerTick {
  schedules: Record<RunOutcome, number>;
  initiations: number;
  /** How late the most overdue item found was (0 when nothing was due): the connectors' lag. */
  lagMs: number;
}

/**
 * One tick of the connectors' worker in AWS (functions/payments-connectors.ts, started every minute by an
 * EventBridge schedule): the same runs as the local timer, found on the payments table's `due` index rather than
 * by a Scan. Each schedule is read again before it runs (the index is eventually consistent; the run's lease
 * decides), so an item seen twice or late runs once.
 */
export async function runWorkerTick(config: StoresConfig, deps: RunnerDeps): Promise<WorkerTick> {
  const nowMs = (config.now ?? Date.now)();
  const { items, oldestDueMs } = await queryDue(config.doc, config.table, nowMs, MAX_DUE_PER_TICK);
  const schedules = [];
  for (const item of items) {
    if (item.kind !== 'schedule') continue;
    const stores = paymentsStores(config, item.environment);
    const schedule = await stores.schedules.get(item.connectorID, item.scheduleID);
    if (schedule && schedule.nextRunAtMs <= nowMs && schedule.pausedAt === undefined)
      schedules.push({ environment: item.environment, schedule });
  }
  const counts = await runGrouped(config, deps, schedules);
  let initiations = 0;
  for (const item of items) {
    if (item.kind !== 'initiation') continue;
    if (await sendDueInitiation(config, deps, item.environment, item.id)) initiations++;
  }
  return {
    schedules: counts,
    initiations,
    lagMs: oldestDueMs === undefined ? 0 : Math.max(0, nowMs - oldestDueMs),
  };
}
