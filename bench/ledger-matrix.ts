/**
 * The ledger write-path matrix: scenario × ledger worker processes × clients, each cell on a fresh ledger,
 * followed by the invariant check of that ledger through the public API. BENCH_LEDGER_MATRIX picks the size:
 * `quick` (default; a few seconds per cell, fewer cells) while developing, `full` for the issue's matrix.
 *
 * Rows: `embedded` is `npm start`'s default (the ledger's group commit in the platform's process); a number N is
 * the Lambda-faithful mode, `ledgerWorkers: N` worker processes with the ledger writer fed by the ingress queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import {
  type PlatformOptions,
  type RunningPlatform,
  startPlatform,
} from '../infra/local/platform.js';
import { startSqsLocal } from '../infra/local/sqs-local.js';
import { type CallSummary, installDynamoMeter } from './dynamo-meter.js';
import { fetchToken } from './http.js';
import {
  checkInvariants,
  type InvariantReport,
  type UncertainRequest,
} from './ledger-invariants.js';
import {
  BULK_CLIENTS,
  BULK_SCENARIO,
  SCENARIO_NAMES,
  type ScenarioName,
  type ScenarioRun,
  type StopRule,
} from './ledger-scenarios.js';
import { readLedgerSnapshot } from './ledger-snapshot.js';
import { coreBusyPercent, coreTicks, machineBusySeconds } from './process-cpu.js';
import { cpuSecondsByRole } from './process-tree.js';
import { cellName } from './report.js';
import { type RequestCounter, startRequestCounter } from './request-counter.js';
import { runScenarioInThread } from './scenario-thread.js';

export interface LedgerMatrix {
  name: 'quick' | 'full';
  scenarios: readonly ScenarioName[];
  clients: number[];
  /** `embedded`: the platform's default (`npm start`), the ledger in its process, on disk with the barrier. */
  workers: Array<number | 'embedded'>;
  /**
   * Client counts of the row with a worker process per client (world→any): Lambda runs a container per request in
   * flight, so "N clients" on the Lambda-faithful mode means N workers — the issue's item-5 row.
   */
  scaledClients: number[];
  /**
   * The length of those cells: longer than the others, since each starts on a fresh ledger whose first second is
   * every container's direct attempt meeting the others' before it relays (the issue's own check ran 20 s a cell).
   * 20 s in both matrices: in 10 s cells those attempts were 0.08 TransactGetItems and 0.06 cancelled commits a
   * transaction at 64 containers, and the cell's figure moved 78–113 tx/s between runs.
   */
  scaledStop: StopRule;
  /**
   * The length of the embedded default's cells (the targets' row): the issue's own load check ran 20 s a cell on
   * a fresh ledger, and a short cell measures mostly that ledger's first seconds, when world→any creates an
   * account in nearly every transaction (1,000 accounts: about 63 % of them by the 1,000th transaction).
   */
  embeddedStop: StopRule;
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
      // Every client count the targets name (1, 8, 32) on the default and on the Lambda-faithful mode.
      clients: [1, 8, 32],
      workers: ['embedded', 8],
      scaledClients: [1, 8, 32, 64],
      scaledStop: { seconds: 20 },
      embeddedStop: { seconds: 20 },
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
      workers: ['embedded', 1, 8, 32],
      scaledClients: [1, 8, 32, 64],
      scaledStop: { seconds: 20 },
      embeddedStop: { seconds: 20 },
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
  /** Ledger worker processes, or `embedded` when the platform runs the ledger in its own process. */
  workers: number | 'embedded';
  /** The row with a worker process per client (`LedgerMatrix.scaledClients`). */
  scaled?: boolean;
  /** Every request sent with an Idempotency-Key (an idempotency record per request in the commit). */
  keyed?: boolean;
  /**
   * CPU milliseconds per committed transaction by process: the bench's own (the gateway and, in a thread of its
   * own, the load), DynamoDB Local, the ledger worker processes, the writer.
   */
  cpuMsPerTxByProcess: Record<string, number>;
  /**
   * Each core's busy share during the load, in percent (/proc/stat): whether the machine was the bound. A target
   * missed with a core well below 100 % is the design's, not the machine's.
   */
  coreBusyPercent: number[];
  /** CPU milliseconds of the whole machine per committed transaction (cpuSeconds / committed). */
  cpuMsPerTx: number;
  /**
   * DynamoDB requests per committed transaction made in this process, by operation (embedded cells: every request
   * of the ledger; with worker processes only the gateway's own).
   */
  dynamoRequestsPerTx?: { total: number; byOperation: Record<string, number> };
  /**
   * With worker processes: the requests of every process, counted at the emulators' ports (request-counter.ts),
   * per committed transaction, by operation (`<operation>!<error>` for a refused one).
   */
  portRequestsPerTx?: {
    dynamodb: { total: number; byOperation: Record<string, number> };
    sqs: { total: number; byOperation: Record<string, number> };
  };
  acknowledged: number;
  uncertain: number;
  /** Every request left without a definite answer, by its tag (its Idempotency-Key when keyed). */
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

/** Every row of the matrix (startMatrixPlatform says on which platform), each cell on a fresh ledger. */
export async function measureLedgerScenarios(
  matrix: LedgerMatrix,
  log: (line: string) => void,
): Promise<LedgerScenariosResult> {
  const cells: LedgerCell[] = [];
  const runTag = Date.now().toString(36);
  let workerProcesses = false;
  for (const requested of matrix.workers) {
    await onWarmPlatform(requested, runTag, 8, async (target, running, workers) => {
      workerProcesses ||= typeof workers === 'number';
      for (const scenario of matrix.scenarios) {
        for (const clients of matrix.clients) {
          cells.push(
            await measureCell(
              target,
              running,
              { scenario, clients, workers, requested, runTag, matrix },
              log,
            ),
          );
        }
      }
      // Atomic bulks of 50 any→any from 32 clients: the embedded default's bulk target (issue #28 item 5).
      if (requested === 'embedded')
        cells.push(
          await measureCell(
            target,
            running,
            { scenario: BULK_SCENARIO, clients: BULK_CLIENTS, workers, requested, runTag, matrix },
            log,
          ),
        );
      // The targets' requests carry no Idempotency-Key (as the issue's load check sent none); what keys cost the
      // embedded engine: the hot pair at 32 clients again, every request keyed.
      if (requested === 'embedded')
        cells.push(
          await measureCell(
            target,
            running,
            { scenario: 'hot-pair', clients: 32, workers, requested, runTag, matrix, keyed: true },
            log,
          ),
        );
      // The same load with the writer killed again and again mid-batch: nothing acknowledged lost, nothing doubled.
      if (requested === matrix.crashWorkers)
        cells.push(
          await measureCell(
            target,
            running,
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
    });
  }
  // As many clients as workers in the warm-up too: every container has served (a worker's first requests run
  // cold code).
  for (const clients of matrix.scaledClients) {
    await onWarmPlatform(
      clients,
      `${runTag}-s${clients}`,
      clients,
      async (target, running, workers) => {
        workerProcesses = true;
        const spec = {
          scenario: 'world-to-any' as const,
          clients,
          workers,
          requested: clients,
          matrix: { ...matrix, stop: matrix.scaledStop },
        };
        cells.push(
          await measureCell(target, running, { ...spec, runTag: `${runTag}-s`, scaled: true }, log),
        );
      },
    );
  }
  const stopText = (rule: StopRule) =>
    'seconds' in rule ? `${rule.seconds} s per cell` : `${rule.requests} requests per cell`;
  const stop = `${stopText(matrix.embeddedStop)} on the embedded default, ${stopText(matrix.stop)} on the other rows (${stopText(matrix.scaledStop)} with a worker per client)`;
  return {
    matrix: matrix.name,
    source: `HTTP (node:http, keep-alive) to the local platform on DynamoDB Local, closed-loop clients in a thread of their own in the bench process, after an uncounted warm-up per platform (${WARM_UP_SCENARIOS.join(', ')}, 8 clients, ${WARM_UP_SECONDS} s each), a fresh ledger per cell, ${stop} (hot-spend: until the account is empty); invariants read back through the v2 list routes`,
    workerProcesses,
    hotSpendBudget: String(matrix.hotSpendBudget),
    cells,
    ok: cells.every((c) => c.invariants.ok),
  };
}

/** A row's platform, started, warmed up with `warmClients` clients, handed to `body`, then stopped. */
async function onWarmPlatform(
  requested: number | 'embedded',
  runTag: string,
  warmClients: number,
  body: (
    target: { baseUrl: string; token: string },
    running: RunningPlatform,
    workers: number | 'embedded',
  ) => Promise<void>,
): Promise<void> {
  const platform = await startMatrixPlatform(requested, runTag);
  try {
    const workers =
      requested === 'embedded' ? 'embedded' : (reportedWorkers(platform.running) ?? 'embedded');
    const target = {
      baseUrl: platform.running.baseUrl,
      token: await fetchToken(platform.running.baseUrl),
    };
    await warmUp(target, runTag, warmClients);
    await body(target, platform.running, workers);
  } finally {
    await platform.stop();
  }
}

/**
 * A fresh platform's first seconds are not its steady state: DynamoDB Local's JVM compiles its hot code as it
 * serves, and Node's does too. After 4 s of each warm-up load its C2 compiler thread still took ≈ 45 % of a core
 * in the cell that followed, after 20 s of each 5–17 %, and the hot pair at 32 clients went from 311–349 to
 * 392–401 tx/s. Each row's cells follow an uncounted load on ledgers of their own, as the issue's measurement ran
 * "after a warm-up".
 */
async function warmUp(
  target: { baseUrl: string; token: string },
  runTag: string,
  clients = 8,
): Promise<void> {
  for (const scenario of WARM_UP_SCENARIOS)
    await runScenarioInThread(target, scenario, `warm-up-${scenario}-${runTag}`, {
      clients,
      stop: { seconds: WARM_UP_SECONDS },
      hotSpendBudget: 1n,
    });
}

const WARM_UP_SECONDS = 15;
/** Every target scenario's code paths (any→any's refusals among them) compiled before the cells. */
const WARM_UP_SCENARIOS = ['world-to-any', 'any-to-any', 'hot-pair'] as const;

/**
 * The platform of one row: `embedded` as `npm start` runs it (its own DynamoDB Local on disk, the durability
 * barrier, the ledger in its process); a worker count on a DynamoDB Local of its own, started fresh, in memory —
 * one JVM that has absorbed the earlier rows' tables and streams answers several times slower.
 */
async function startMatrixPlatform(
  requested: number | 'embedded',
  runTag: string,
): Promise<{ running: RunningPlatform; stop(): Promise<void> }> {
  const base: Pick<PlatformOptions, 'port' | 'variables'> = {
    port: 0,
    variables: { LOG_LEVEL: 'silent' },
  };
  if (requested === 'embedded') {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
    // Compiled as `npm start` compiles it (infra/local/main.ts).
    const running = await startPlatform({ ...base, dataDir, dynamoCompiler: 'optimizing' });
    return {
      running,
      stop: async () => {
        await running.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const dynamo = await startDynamoLocal({ compiler: 'optimizing' });
  const sqs = await startSqsLocal();
  const counters = {
    dynamodb: await startRequestCounter(dynamo.endpoint),
    sqs: await startRequestCounter(sqs.endpoint),
  };
  const stopBackends = async () => {
    await Promise.all([counters.dynamodb.stop(), counters.sqs.stop()]);
    await Promise.all([dynamo.stop(), sqs.stop()]);
  };
  const options: PlatformOptions = {
    ...base,
    dynamoEndpoint: counters.dynamodb.endpoint,
    sqsEndpoint: counters.sqs.endpoint,
    resourcePrefix: `bench-lw${requested}-${runTag}-`,
    ledgerWorkers: requested,
  };
  const running = await startPlatform(options).catch(async (err) => {
    await stopBackends();
    throw err;
  });
  portCounters.set(running, counters);
  return {
    running,
    stop: async () => {
      await running.stop();
      await stopBackends();
    },
  };
}

/** The request counters in front of a worker platform's emulators. */
const portCounters = new WeakMap<
  RunningPlatform,
  { dynamodb: RequestCounter; sqs: RequestCounter }
>();

interface CellSpec {
  scenario: ScenarioName;
  clients: number;
  workers: number | 'embedded';
  requested: number | 'embedded';
  runTag: string;
  matrix: LedgerMatrix;
  killWriter?: boolean;
  scaled?: boolean;
  keyed?: boolean;
}

async function measureCell(
  target: { baseUrl: string; token: string },
  platform: RunningPlatform,
  spec: CellSpec,
  log: (line: string) => void,
): Promise<LedgerCell> {
  const { scenario, clients, workers, requested, runTag, matrix } = spec;
  const ledger = `${scenario}-w${requested}-c${clients}${spec.killWriter ? '-killed' : ''}${spec.keyed ? '-keyed' : ''}-${runTag}`;
  const cpuBefore = machineBusySeconds();
  const coresBefore = coreTicks();
  const byRoleBefore = cpuSecondsByRole();
  const meter = installDynamoMeter();
  meter.reset();
  const counters = portCounters.get(platform);
  counters?.dynamodb.reset();
  counters?.sqs.reset();
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
  const { record, ...run } = await runScenarioInThread(target, scenario, ledger, {
    clients,
    stop: requested === 'embedded' && !spec.scaled ? matrix.embeddedStop : matrix.stop,
    hotSpendBudget: matrix.hotSpendBudget,
    ...(spec.keyed ? { keyed: true } : {}),
  }).finally(() => {
    running = false;
  });
  await killing;
  const cpuSeconds = Math.round((machineBusySeconds() - cpuBefore) * 100) / 100;
  const busyByCore = coreBusyPercent(coresBefore, coreTicks());
  const byRoleAfter = cpuSecondsByRole();
  const calls = meter.summary();
  meter.reset();
  const atPorts = counters && {
    dynamodb: counters.dynamodb.counts(),
    sqs: counters.sqs.counts(),
  };
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
    coreBusyPercent: busyByCore,
    committedPerCpuSecond: cpuSeconds > 0 ? Math.round((committed / cpuSeconds) * 10) / 10 : 0,
    cpuMsPerTx: committed > 0 ? Math.round((cpuSeconds * 1000 * 10) / committed) / 10 : 0,
    cpuMsPerTxByProcess: Object.fromEntries(
      [...byRoleAfter].map(([role, seconds]) => [
        role,
        committed > 0
          ? Math.round(((seconds - (byRoleBefore.get(role) ?? 0)) * 1000 * 10) / committed) / 10
          : 0,
      ]),
    ),
    ...(spec.scaled ? { scaled: true } : {}),
    ...(spec.keyed ? { keyed: true } : {}),
    ...(committed > 0 ? { dynamoRequestsPerTx: perTransaction(calls, committed) } : {}),
    ...(atPorts && committed > 0
      ? {
          portRequestsPerTx: {
            dynamodb: countedPerTransaction(atPorts.dynamodb, committed),
            sqs: countedPerTransaction(atPorts.sqs, committed),
          },
        }
      : {}),
    ...(spec.killWriter ? { writerKills } : {}),
  };
  const failed = invariants.invariants.filter((i) => !i.ok);
  log(
    `  ${cellName(cell)}${spec.killWriter ? ` (writer killed ${writerKills}×)` : ''}: ${run.committedPerSec} tx/s, ${cell.committedPerCpuSecond} tx per CPU-second, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ` +
      `${JSON.stringify(run.statuses)}, invariants ${failed.length ? `FAILED: ${failed.map((f) => `${f.name}: ${f.detail}`).join('; ')}` : 'ok'}`,
  );
  return cell;
}

/** Requests counted at an emulator's port, per committed transaction: in total and by operation. */
function countedPerTransaction(
  counts: ReadonlyMap<string, number>,
  committed: number,
): { total: number; byOperation: Record<string, number> } {
  const per = (n: number) => Math.round((n / committed) * 100) / 100;
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  return {
    total: per(sorted.reduce((sum, [, n]) => sum + n, 0)),
    byOperation: Object.fromEntries(sorted.map(([operation, n]) => [operation, per(n)])),
  };
}

/** Requests per committed transaction, in total and by operation (two decimals). */
function perTransaction(
  calls: CallSummary,
  committed: number,
): { total: number; byOperation: Record<string, number> } {
  const per = (n: number) => Math.round((n / committed) * 100) / 100;
  return {
    total: per(calls.requests),
    byOperation: Object.fromEntries(
      Object.entries(calls.byOperation).map(([operation, n]) => [operation, per(n)]),
    ),
  };
}
