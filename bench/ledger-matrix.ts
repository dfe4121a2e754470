/**
 * The ledger write-path matrix: scenario × ledger worker processes × clients, each cell on a fresh ledger,
 * followed by the invariant check of that ledger through the public API. BENCH_LEDGER_MATRIX picks the size:
 * `quick` (default; a few seconds per cell, fewer cells) while developing, `full` for the issue's matrix.
 *
 * Worker processes: the platform gets `ledgerWorkers: N`. A platform that runs them reports the number it runs
 * as `ledgerWorkers` on the running platform; one that does not (today's in-process ledger) ignores the option,
 * and the matrix then runs once, recorded as in-process, since every N would measure the same thing.
 */
import { startPlatform, type PlatformOptions, type RunningPlatform } from '../infra/local/platform.js';
import { fetchToken } from './http.js';
import { cellName } from './report.js';
import { checkInvariants, type InvariantReport, type UncertainRequest } from './ledger-invariants.js';
import { runScenario, SCENARIO_NAMES, type ScenarioName, type ScenarioRun, type StopRule } from './ledger-scenarios.js';
import { readLedgerSnapshot } from './ledger-snapshot.js';

export interface LedgerMatrix {
  name: 'quick' | 'full';
  scenarios: readonly ScenarioName[];
  clients: number[];
  workers: number[];
  stop: StopRule;
  hotSpendBudget: bigint;
}

export function ledgerMatrixFromEnv(env: NodeJS.ProcessEnv): LedgerMatrix {
  const name = env.BENCH_LEDGER_MATRIX ?? 'quick';
  if (name === 'quick') return { name, scenarios: SCENARIO_NAMES, clients: [1, 8], workers: [1, 8], stop: { seconds: 3 }, hotSpendBudget: 300n };
  if (name === 'full') {
    return { name, scenarios: SCENARIO_NAMES, clients: [1, 8, 32, 64], workers: [1, 8, 32], stop: { seconds: Number(env.BENCH_SECONDS ?? 8) }, hotSpendBudget: 3000n };
  }
  throw new Error(`BENCH_LEDGER_MATRIX: "${name}" is neither quick nor full`);
}

/** One cell's figures: the scenario run without its record (which can be large), and the invariant verdict. */
export interface LedgerCell extends Omit<ScenarioRun, 'record'> {
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

export async function measureLedgerScenarios(dynamoEndpoint: string, matrix: LedgerMatrix, log: (line: string) => void): Promise<LedgerScenariosResult> {
  const cells: LedgerCell[] = [];
  const runTag = Date.now().toString(36);
  let workerProcesses = false;
  for (const requested of matrix.workers) {
    // The option is passed whether or not this platform knows it yet (see above): hence the widened type.
    const options: PlatformOptions & { ledgerWorkers: number } = { port: 0, dynamoEndpoint, resourcePrefix: `bench-lw${requested}-${runTag}-`, env: { LOG_LEVEL: 'silent' }, ledgerWorkers: requested };
    const platform = await startPlatform(options);
    const reported = reportedWorkers(platform);
    workerProcesses ||= reported !== undefined;
    const workers = reported ?? 'in-process';
    try {
      const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
      for (const scenario of matrix.scenarios) {
        for (const clients of matrix.clients) {
          const ledger = `${scenario}-w${requested}-c${clients}-${runTag}`;
          const { record, ...run } = await runScenario(target, scenario, ledger, { clients, stop: matrix.stop, hotSpendBudget: matrix.hotSpendBudget });
          const invariants = checkInvariants(await readLedgerSnapshot(target, ledger), record);
          const unanswered = record.uncertain.map(({ postings: _, ...request }) => request);
          const cell: LedgerCell = { ...run, workers, acknowledged: record.acknowledged.length, uncertain: unanswered.length, unanswered, invariants };
          cells.push(cell);
          const failed = invariants.invariants.filter((i) => !i.ok);
          log(
            `  ${cellName(cell)}: ${run.committedPerSec} tx/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ` +
              `${JSON.stringify(run.statuses)}, invariants ${failed.length ? `FAILED: ${failed.map((f) => `${f.name}: ${f.detail}`).join('; ')}` : 'ok'}`,
          );
        }
      }
    } finally {
      await platform.stop();
    }
    if (reported === undefined) break;
  }
  const stop = 'seconds' in matrix.stop ? `${matrix.stop.seconds} s per cell` : `${matrix.stop.requests} requests per cell`;
  return {
    matrix: matrix.name,
    source: `HTTP (Node fetch) to the local platform on DynamoDB Local, closed-loop clients in the bench process, a fresh ledger per cell, ${stop} (hot-spend: until the account is empty); invariants read back through the v2 list routes`,
    workerProcesses,
    hotSpendBudget: String(matrix.hotSpendBudget),
    cells,
    ok: cells.every((c) => c.invariants.ok),
  };
}
