/**
 * The ledger write-path matrix: scenario × ledger worker processes × clients, each cell on a fresh ledger,
 * followed by the invariant check of that ledger through the public API. BENCH_LEDGER_MATRIX picks the size:
 * `quick` (default; a few seconds per cell, fewer cells) while developing, `full` for the issue's matrix.
 *
 * Worker processes: the platform gets `ledgerWorkers: N`. A platform that runs them reports the number it runs
 * as `ledgerWorkers` on the running platform; one that does not (today's in-process ledger) ignores the option,
 * and the matrix then runs once, recorded as in-process, since every N would measure the same thing.
 */
import { readFileSync } from 'node:fs';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import {
  type PlatformOptions,
  type RunningPlatform,
  startPlatform,
} from '../infra/local/platform.js';
import { fetchToken } from './http.js';
import {
  checkInvariants,
  type InvariantReport,
  type UncertainRequest,
} from './ledger-invariants.js';
import {
  runScenario,
  SCENARIO_NAMES,
  type ScenarioName,
  type ScenarioRun,
  type StopRule,
} from './ledger-scenarios.js';
import { readLedgerSnapshot } from './ledger-snapshot.js';
import { cellName } from './report.js';

export interface LedgerMatrix {
  name: 'quick' | 'full';
  scenarios: readonly ScenarioName[];
  clients: number[];
  workers: number[];
  stop: StopRule;
  hotSpendBudget: bigint;
  /** The worker count and clients of the cell that kills the ledger writer during its load. */
  crashWorkers: number;
  crashClients: number;
}

export function ledgerMatrixFromEnv(env: NodeJS.ProcessEnv): LedgerMatrix {
  const name = env.BENCH_LEDGER_MATRIX ?? 'quick';
  if (name === 'quick')
    return {
      name,
      scenarios: SCENARIO_NAMES,
      clients: [1, 8],
      workers: [1, 8],
      stop: { seconds: 3 },
      hotSpendBudget: 300n,
      crashWorkers: 8,
      crashClients: 8,
    };
  if (name === 'full') {
    return {
      name,
      scenarios: SCENARIO_NAMES,
      clients: [1, 8, 32, 64],
      workers: [1, 8, 32],
      stop: { seconds: Number(env.BENCH_SECONDS ?? 8) },
      hotSpendBudget: 3000n,
      crashWorkers: 8,
      crashClients: 32,
    };
  }
  throw new Error(`BENCH_LEDGER_MATRIX: "${name}" is neither quick nor full`);
}

/** One cell's figures: the scenario run without its record (which can be large), and the invariant verdict. */
export interface LedgerCell extends Omit<ScenarioRun, 'record'> {
  /** Busy CPU seconds of the whole machine (every core, /proc/stat) during the load: DynamoDB Local, workers, writer, load. */
  cpuSeconds: number;
  /** Committed transactions per busy CPU second of the machine. */
  committedPerCpuSecond: number;
  /** The ledger writer processes killed (SIGKILL) during the load, in the crash cell. */
  writerKills?: number;
  /** Ledger worker processes, or `in-process` when the platform runs the ledger in its own process. */
  workers: number | 'in-process';
  acknowledged: number;
  uncertain: number;
  /** Every request left without a definite answer, by the key it was sent with: a client could retry these. */
  unanswered: Array<Omit<UncertainRequest, 'postings'>>;
  invariants: InvariantReport;
}

export interface LedgerScenariosResult {
  matrix: LedgerMatrix['name'];
  source: string;
  workerProcesses: boolean;
  hotSpendBudget: string;
  cells: LedgerCell[];
  ok: boolean;
}

/** The number of ledger workers a running platform reports, if it runs any. */
function reportedWorkers(platform: RunningPlatform): number | undefined {
  const n = (platform as RunningPlatform & { ledgerWorkers?: unknown }).ledgerWorkers;
  return typeof n === 'number' ? n : undefined;
}

/**
 * Each worker count runs on a DynamoDB Local of its own, started fresh: one JVM that has absorbed the earlier
 * phases' tables and streams answers several times slower, and the cells must compare the protocol, not the
 * history of the emulator.
 */
export async function measureLedgerScenarios(
  matrix: LedgerMatrix,
  log: (line: string) => void,
): Promise<LedgerScenariosResult> {
  const cells: LedgerCell[] = [];
  const runTag = Date.now().toString(36);
  let workerProcesses = false;
  for (const requested of matrix.workers) {
    // The option is passed whether or not this platform knows it yet (see above): hence the widened type.
    const dynamo = await startDynamoLocal();
    const options: PlatformOptions & { ledgerWorkers: number } = {
      port: 0,
      dynamoEndpoint: dynamo.endpoint,
      resourcePrefix: `bench-lw${requested}-${runTag}-`,
      env: { LOG_LEVEL: 'silent' },
      ledgerWorkers: requested,
    };
    const platform = await startPlatform(options).catch(async (err) => {
      await dynamo.stop();
      throw err;
    });
    const reported = reportedWorkers(platform);
    workerProcesses ||= reported !== undefined;
    const workers = reported ?? 'in-process';
    try {
      const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
      for (const scenario of matrix.scenarios) {
        for (const clients of matrix.clients) {
          cells.push(
            await measureCell(
              target,
              platform,
              { scenario, clients, workers, requested, runTag, matrix },
              log,
            ),
          );
        }
      }
      // The same load with the writer killed again and again mid-batch: nothing acknowledged lost, nothing doubled.
      if (requested === matrix.crashWorkers)
        cells.push(
          await measureCell(
            target,
            platform,
            {
              scenario: 'world-to-any',
              clients: matrix.crashClients,
              workers,
              requested,
              runTag,
              matrix,
              killWriter: true,
            },
            log,
          ),
        );
    } finally {
      await platform.stop();
      await dynamo.stop();
    }
    if (reported === undefined) break;
  }
  const stop =
    'seconds' in matrix.stop
      ? `${matrix.stop.seconds} s per cell`
      : `${matrix.stop.requests} requests per cell`;
  return {
    matrix: matrix.name,
    source: `HTTP (Node fetch) to the local platform on DynamoDB Local, closed-loop clients in the bench process, a fresh ledger per cell, ${stop} (hot-spend: until the account is empty); invariants read back through the v2 list routes`,
    workerProcesses,
    hotSpendBudget: String(matrix.hotSpendBudget),
    cells,
    ok: cells.every((c) => c.invariants.ok),
  };
}

interface CellSpec {
  scenario: ScenarioName;
  clients: number;
  workers: number | 'in-process';
  requested: number;
  runTag: string;
  matrix: LedgerMatrix;
  killWriter?: boolean;
}

async function measureCell(
  target: { baseUrl: string; token: string },
  platform: RunningPlatform,
  spec: CellSpec,
  log: (line: string) => void,
): Promise<LedgerCell> {
  const { scenario, clients, workers, requested, runTag, matrix } = spec;
  const ledger = `${scenario}-w${requested}-c${clients}${spec.killWriter ? '-killed' : ''}-${runTag}`;
  const cpuBefore = machineBusySeconds();
  let running = true;
  let writerKills = 0;
  const killed = new Set<number>();
  const killer = async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 1_500));
      if (!running) break;
      for (const pid of platform.ledgerPids().writers.filter((p) => !killed.has(p))) {
        killed.add(pid);
        try {
          process.kill(pid, 'SIGKILL');
          writerKills++;
        } catch {
          // exited meanwhile
        }
      }
    }
  };
  const killing = spec.killWriter ? killer() : Promise.resolve();
  const { record, ...run } = await runScenario(target, scenario, ledger, {
    clients,
    stop: matrix.stop,
    hotSpendBudget: matrix.hotSpendBudget,
  }).finally(() => {
    running = false;
  });
  await killing;
  const cpuSeconds = Math.round((machineBusySeconds() - cpuBefore) * 100) / 100;
  const invariants = checkInvariants(await readLedgerSnapshot(target, ledger), record);
  const unanswered = record.uncertain.map(({ postings: _, ...request }) => request);
  const committed = record.acknowledged.length;
  const cell: LedgerCell = {
    ...run,
    workers,
    acknowledged: committed,
    uncertain: unanswered.length,
    unanswered,
    invariants,
    cpuSeconds,
    committedPerCpuSecond: cpuSeconds > 0 ? Math.round((committed / cpuSeconds) * 10) / 10 : 0,
    ...(spec.killWriter ? { writerKills } : {}),
  };
  const failed = invariants.invariants.filter((i) => !i.ok);
  log(
    `  ${cellName(cell)}${spec.killWriter ? ` (writer killed ${writerKills}×)` : ''}: ${run.committedPerSec} tx/s, ${cell.committedPerCpuSecond} tx per CPU-second, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ` +
      `${JSON.stringify(run.statuses)}, invariants ${failed.length ? `FAILED: ${failed.map((f) => `${f.name}: ${f.detail}`).join('; ')}` : 'ok'}`,
  );
  return cell;
}

/** Busy CPU time of the whole machine so far, in seconds (every core; /proc/stat counts in 1/100 s). */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // Every field but idle (4th) and iowait (5th) is busy time.
  const busy = fields.slice(0, 8).reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
  return busy / 100;
}
