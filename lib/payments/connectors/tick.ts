import { forEachLimited } from '../../async/for-each-limited.js';
import { ConflictError } from '../../errors/index.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { startTask } from '../commands/connectors.js';
import { redriveInitiation } from '../commands/initiation-recovery.js';
import { DUE, processInitiation } from '../commands/payment-initiations.js';
import type { Schedule } from '../domain/connectors/tasks.js';
import { sortableCreatedAt } from '../domain/input.js';
import { scanScheduledInitiations } from '../store/initiation-scan.js';
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
  return runGrouped(config, deps, due);
}

/**
 * Runs due schedules, connectors side by side (at most CONCURRENT_CONNECTORS at once) and each connector's
 * schedules one after another: the local timer's walk and the worker's index both end here.
 */
export async function runGrouped(
  config: StoresConfig,
  deps: RunnerDeps,
  due: ReadonlyArray<{ environment: string; schedule: Schedule }>,
): Promise<Record<RunOutcome, number>> {
  const byConnector = new Map<string, Array<{ environment: string; schedule: Schedule }>>();
  for (const entry of due) {
    const key = `${entry.environment}/${entry.schedule.connectorID}`;
    byConnector.set(key, [...(byConnector.get(key) ?? []), entry]);
  }
  const counts: Record<RunOutcome, number> = { skipped: 0, done: 0, more: 0, failed: 0 };
  const groups = [...byConnector.values()];
  await forEachLimited(groups, CONCURRENT_CONNECTORS, async (group) => {
    for (const { environment, schedule } of group) {
      const outcome = await runSchedule(paymentsStores(config, environment), schedule, deps);
      counts[outcome]++;
    }
  });
  return counts;
}

/**
 * The timer's second walk: every initiation scheduled for a time now past is sent, each once (the write that
 * moves it to PROCESSING is conditional on it still being scheduled); every sending whose sender died (past its
 * lease, `redriveInitiation`) is sent again. Answers how many were sent.
 */
export async function runDueInitiations(config: StoresConfig, deps: RunnerDeps): Promise<number> {
  const now = formatInstant(instantFromMs((config.now ?? Date.now)()));
  const due = (await scanScheduledInitiations({ doc: config.doc, table: config.table })).filter(
    (i) => sortableCreatedAt(i.dueAt) <= sortableCreatedAt(now),
  );
  let sent = 0;
  for (const { environment, id } of due)
    if (await sendDueInitiation(config, deps, environment, id)) sent++;
  return sent;
}

/** Sends one initiation found due (scheduled, or abandoned by its sender): whether it was sent now. */
export async function sendDueInitiation(
  config: StoresConfig,
  deps: RunnerDeps,
  environment: string,
  id: string,
): Promise<boolean> {
  const stores = paymentsStores(config, environment);
  const pi = await stores.initiations.get(id);
  if (!pi) return false;
  if (pi.sendingSince !== undefined) return redriveInitiation(stores, id, deps);
  const task =
    (pi.taskID ? await stores.tasks.get(pi.taskID) : undefined) ??
    (await startTask(stores, pi.connectorID));
  try {
    await processInitiation(stores, id, task, deps, DUE);
    return true;
  } catch (err) {
    // Sent meanwhile by another tick: nothing to do.
    if (!(err instanceof ConflictError)) throw err;
    return false;
  }
}
