/**
 * `npm run bench`: every benchmark in one run, then bench/results.json and bench/report.md.
 *
 * Order matters on a small machine: cold start and signing first (CPU only, before the DynamoDB Local JVM
 * starts), then the in-process cost measurements, then the local platform over HTTP. BENCH_SECONDS sets the
 * length of each timed load scenario (default 8).
 *
 * The ledger write-path matrix (ledger-matrix.ts) runs last, on platforms of its own; BENCH_LEDGER_MATRIX=quick|full
 * sizes it. BENCH_ONLY=ledger runs that matrix alone and writes its section and figures to the temporary
 * directory, leaving bench/report.md and bench/results.json as they are (a partial run must not replace them).
 * BENCH_ONLY=cold-start (or `npm run bench -- --only cold-start`) does the same with the cold-start section: a
 * minute, no DynamoDB Local, for checking bundle import times while changing them. BENCH_ONLY=beyond: issue #31's
 * cells alone (a write with a precondition, one that triggers a balance monitor, a hold's create, post and void,
 * beside a plain one; also in the full run). BENCH_ONLY=export:
 * issue 30's pipeline to the local S3 emulator (throughput, commit → object lag, requests and cost per exported log).
 * Any failed ledger invariant makes the run exit non-zero.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { startPlatform } from '../infra/local/platform.js';
import { startSqsLocal } from '../infra/local/sqs-local.js';
import { measureAuth } from './auth-load.js';
import { measureAwsSimulation, renderAwsSimulation } from './aws-sim/measure.js';
import { measureColdStart } from './cold-start.js';
import { modelCost } from './cost-model.js';
import { measureDynamoFloor, renderDynamoFloor } from './dynamo-floor.js';
import { installDynamoMeter } from './dynamo-meter.js';
import { measureExport, renderExport } from './export-pipeline.js';
import { type GroupCommitCostResult, measureGroupCommitCost } from './group-commit-cost.js';
import { fetchToken } from './http.js';
import {
  type BeyondCostResult,
  measureBeyondCosts,
  renderBeyondCosts,
} from './ledger-beyond-cost.js';
import { measureLedgerHistory, renderLedgerHistory } from './ledger-history.js';
import { measureLedgerLoad } from './ledger-load.js';
import {
  type LedgerScenariosResult,
  ledgerMatrixFromEnv,
  measureLedgerScenarios,
} from './ledger-matrix.js';
import { measureNumscript } from './numscript.js';
import { measureOperationCosts } from './operation-cost.js';
import {
  type BenchResults,
  cellName,
  renderColdStart,
  renderLedgerScenarios,
  renderReport,
} from './report.js';
import { measureSigning } from './signing.js';
import { measureWebhooks } from './webhook-latency.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
/** Seconds per cell of the AWS simulation (BENCH_AWS_SIM_SECONDS). */
const awsSimSeconds = Number(process.env.BENCH_AWS_SIM_SECONDS ?? 8);
/** Transactions the history part commits before measuring again (BENCH_HISTORY_TRANSACTIONS). */
const historyTransactions = Number(process.env.BENCH_HISTORY_TRANSACTIONS ?? 100_000);
const PARTS_ALONE = ['ledger', 'cold-start', 'aws-sim', 'history', 'floor', 'beyond', 'export'];
const only =
  parseArgs({ options: { only: { type: 'string' } } }).values.only ?? process.env.BENCH_ONLY;
if (only !== undefined && !PARTS_ALONE.includes(only))
  throw new Error(
    `BENCH_ONLY: "${only}" is not a part that runs alone (${PARTS_ALONE.join(', ')})`,
  );
const ledgerMatrix = ledgerMatrixFromEnv(process.env);
const out = new URL('.', import.meta.url);
const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function gitDirty(): boolean {
  try {
    return (
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
      }).trim() !== ''
    );
  } catch {
    return false;
  }
}

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${os.platform()} ${os.arch()}`,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  commit: gitCommit(),
  dirty: gitDirty(),
};

const machineAtEnd = () => ({
  ...machine,
  loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100),
  durationS: Math.round((Date.now() - started) / 1000),
});

log(
  `bench on ${machine.cpus} cores, Node ${machine.node}, load average ${machine.loadAverageAtStart.join(' ')}`,
);
if (only === 'ledger') await runLedgerOnly();
else if (only === 'cold-start') await runColdStartOnly();
else if (only === 'aws-sim') await runAwsSimulationOnly();
else if (only === 'history') await runHistoryOnly();
else if (only === 'floor') await runFloorOnly();
else if (only === 'beyond') await runBeyondOnly();
else if (only === 'export') await runExportOnly();
else await runAll();

/** Prints every failed ledger invariant and marks the run failed: a broken money rule must not pass as a figure. */
function failLoudly(ledger: LedgerScenariosResult): void {
  if (ledger.ok) return;
  for (const cell of ledger.cells) {
    for (const f of cell.invariants.invariants.filter((i) => !i.ok))
      log(`INVARIANT FAILED: ${cellName(cell)}: ${f.name}: ${f.detail}`);
  }
  process.exitCode = 1;
}

async function measureLedgerMatrix(): Promise<LedgerScenariosResult> {
  log(
    `ledger write-path scenarios and invariants (${ledgerMatrix.name} matrix, a fresh DynamoDB Local per worker count)`,
  );
  return measureLedgerScenarios(ledgerMatrix, log);
}

/** A part run alone: its results and section go to a temporary directory, never over bench/report.md. */
function writePartAlone(part: string, results: Record<string, unknown>, section: string): void {
  const dir = path.join(os.tmpdir(), `bench-${part}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'results.json'),
    `${JSON.stringify({ machine: machineAtEnd(), ...results }, null, 2)}\n`,
  );
  writeFileSync(path.join(dir, 'report.md'), section);
  process.stdout.write(`\n${section}\n`);
  log(
    `wrote ${dir}/report.md and results.json (bench/report.md and bench/results.json left as they are)`,
  );
}

async function runLedgerOnly(): Promise<void> {
  const ledgerScenarios = await measureLedgerMatrix();
  writePartAlone('ledger', { ledgerScenarios }, renderLedgerScenarios(ledgerScenarios));
  failLoudly(ledgerScenarios);
}

async function runColdStartOnly(): Promise<void> {
  log('cold start: building and importing bundles');
  const coldStart = await measureColdStart(log);
  writePartAlone('cold-start', { coldStart }, renderColdStart(coldStart));
}

async function runAwsSimulationOnly(): Promise<void> {
  const awsSimulation = await measureAwsSimulation(awsSimSeconds, log);
  writePartAlone('aws-sim', { awsSimulation }, renderAwsSimulation(awsSimulation));
}

async function measureHistory() {
  log(
    `the local platform as it is used: ${historyTransactions} transactions, 1 client before and after`,
  );
  return measureLedgerHistory({ transactions: historyTransactions, seconds, log });
}

async function runHistoryOnly(): Promise<void> {
  const ledgerHistory = await measureHistory();
  writePartAlone('history', { ledgerHistory }, renderLedgerHistory(ledgerHistory));
}

async function measureFloor() {
  log(
    "one client's floor on DynamoDB Local: a TransactWriteItems and the durability read, in sequence",
  );
  return measureDynamoFloor(log);
}

async function runFloorOnly(): Promise<void> {
  const dynamoFloor = await measureFloor();
  writePartAlone('floor', { dynamoFloor }, renderDynamoFloor(dynamoFloor));
}

function beyondRepetitions(): number {
  return Number(process.env.BENCH_BEYOND_REPETITIONS ?? 30);
}

/**
 * An in-process part measured against the run's first DynamoDB Local leaves the process's one meter without its
 * sizer: a sizer left behind reads item sizes from that DynamoDB Local for every later metered TransactWriteItems,
 * long after it stopped (the ECONNREFUSED that once crashed the ledger matrix). Fails the run at the part that left it.
 */
function meterLeftClean(part: string): void {
  if (installDynamoMeter().sizer !== undefined)
    throw new Error(
      `bench part "${part}" left the DynamoDB meter's sizer set (its DynamoDB client outlives it)`,
    );
}

/** Issue #31's cells (preconditions, monitors, holds) on a DynamoDB Local of their own. */
async function runBeyondOnly(): Promise<void> {
  const dynamo = await startDynamoLocal();
  try {
    const sqs = await startSqsLocal();
    try {
      log(
        'preconditions, monitors and holds beside a plain transaction (in-process, direct writes)',
      );
      const beyond = await measureBeyondCosts(dynamo.endpoint, sqs.endpoint, beyondRepetitions());
      meterLeftClean('beyond the reference');
      writePartAlone('beyond', { beyond }, renderBeyondCosts(beyond));
    } finally {
      await sqs.stop();
    }
  } finally {
    await dynamo.stop();
  }
}

/** Issue 30's export part: a pipeline to the S3 emulator, on a platform of its own. */
function measureExportPart() {
  log('exports: a pipeline to the local S3 emulator (backfill, then following commits)');
  return measureExport({
    logs: Number(process.env.BENCH_EXPORT_LOGS ?? 3000),
    followCommits: Number(process.env.BENCH_EXPORT_FOLLOW ?? 40),
    log,
  });
}

async function runExportOnly(): Promise<void> {
  const exported = await measureExportPart();
  writePartAlone('export', { export: exported }, renderExport(exported));
}

async function runAll(): Promise<void> {
  log('cold start: building and importing bundles');
  const coldStart = await measureColdStart(log);
  log('signing: project signer vs standardwebhooks');
  const signing = measureSigning();
  log('numscript: parse + check + run, cold and cached');
  const numscript = await measureNumscript();

  log('starting DynamoDB Local (in memory) and fauxqs');
  const dynamo = await startDynamoLocal();
  let results: Omit<BenchResults, 'machine' | 'ledgerScenarios'>;
  try {
    const sqs = await startSqsLocal();
    let operationCosts;
    let groupCommitCost: GroupCommitCostResult;
    let beyond: BeyondCostResult;
    try {
      log('cost per operation (in-process apps and workers)');
      operationCosts = await measureOperationCosts(dynamo.endpoint, sqs.endpoint);
      meterLeftClean('cost per operation');
      log('group commit: write units per transaction by batch size');
      groupCommitCost = await measureGroupCommitCost(
        dynamo.endpoint,
        sqs.endpoint,
        installDynamoMeter(),
      );
      meterLeftClean('group commit');
      log(
        'preconditions, monitors and holds beside a plain transaction (in-process, direct writes)',
      );
      beyond = await measureBeyondCosts(dynamo.endpoint, sqs.endpoint, beyondRepetitions());
      meterLeftClean('beyond the reference');
    } finally {
      await sqs.stop();
    }

    log('starting the local platform');
    const meter = installDynamoMeter();
    const platform = await startPlatform({
      port: 0,
      dynamoEndpoint: dynamo.endpoint,
      resourcePrefix: 'bench-p-',
      variables: { LOG_LEVEL: 'silent' },
    });
    let measured;
    try {
      const token = await fetchToken(platform.baseUrl);
      log('auth: token endpoint and verification');
      const auth = await measureAuth(platform, token, Math.min(seconds, 5));
      log('webhooks: commit → delivery latency and burst');
      const webhooks = await measureWebhooks(platform, token);
      log('ledger throughput and latency');
      const ledgerLoad = await measureLedgerLoad(platform, token, meter, seconds, log);
      const single = ledgerLoad.rows[0]!;
      const costModel = modelCost(
        operationCosts.operations,
        Math.ceil(single.p50Ms),
        'p50 latency of one client on the local platform (HTTP + DynamoDB Local): a stand-in, not a Lambda measurement',
      );
      measured = {
        coldStart,
        operationCosts,
        costModel,
        ledgerLoad,
        auth,
        webhooks,
        signing,
        numscript,
      };
    } finally {
      await platform.stop();
    }
    results = { ...measured, groupCommitCost: groupCommitCost!, beyond: beyond! };
  } finally {
    await dynamo.stop();
  }
  // On platforms and DynamoDB Locals of its own, after the shared ones are gone: nothing else competes with it.
  const dynamoFloor = await measureFloor();
  const ledgerScenarios = await measureLedgerMatrix();
  // In this process alone (no platform, no DynamoDB Local): the engine's CPU is all that runs.
  const awsSimulation = await measureAwsSimulation(awsSimSeconds, log);
  const exported = await measureExportPart();
  // Last: its platform on disk commits the most and would slow whatever ran beside it.
  const ledgerHistory = await measureHistory();
  const all: BenchResults = {
    ...results,
    machine: machineAtEnd(),
    ledgerScenarios,
    dynamoFloor,
    awsSimulation,
    export: exported,
    ledgerHistory,
  };

  writeFileSync(new URL('results.json', out), `${JSON.stringify(all, null, 2)}\n`);
  writeFileSync(new URL('report.md', out), renderReport(all));
  log(`wrote bench/report.md and bench/results.json in ${all.machine.durationS} s`);
  failLoudly(all.ledgerScenarios);
}
