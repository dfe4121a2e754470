/**
 * Issue #28 item 3: does the local platform stay fast as it is used? One platform as `npm start` runs it
 * (DynamoDB Local on disk, the durability barrier, the stream pollers): the JVM's CPU while idle and one client's
 * world→any throughput, fresh (after an uncounted warm-up load); then a history of `transactions` committed (non-atomic bulks of 100 from a few
 * clients); then both again, on a fresh ledger of the used platform — what the platform's history costs, not a
 * ledger's. Run alone with BENCH_ONLY=history (BENCH_HISTORY_TRANSACTIONS sizes it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../infra/local/platform.js';
import { callJson, expectOk, fetchToken } from './http.js';
import { runScenario } from './ledger-scenarios.js';
import { processCpuSeconds } from './process-cpu.js';

export interface HistoryPhase {
  /** One client, world→any, a fresh ledger. */
  txPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The DynamoDB Local JVM's CPU over an idle window, in % of one core. */
  idleJvmCpuPercent: number;
}

export interface HistoryResult {
  transactions: number;
  fillSeconds: number;
  fillTxPerSecond: number;
  fresh: HistoryPhase;
  used: HistoryPhase;
  /** used / fresh one-client throughput. */
  throughputRatio: number;
}

const BULK_SIZE = 100;
const FILL_CLIENTS = 4;
const IDLE_WINDOW_MS = 10_000;
/** After the fill, the pollers drain the stream's backlog before the idle window starts. */
const SETTLE_MS = 20_000;

export async function measureLedgerHistory(options: {
  transactions: number;
  seconds: number;
  log: (line: string) => void;
}): Promise<HistoryResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
  const platform = await startPlatform({
    port: 0,
    dataDir,
    variables: { LOG_LEVEL: 'silent' },
    // As `npm start` runs it (infra/local/main.ts).
    dynamoCompiler: 'optimizing',
  });
  try {
    const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
    const jvm = Number(readFileSync(path.join(dataDir, 'dynamodb-local.pid'), 'utf8').trim());
    const phase = async (name: string): Promise<HistoryPhase> => {
      await sleepMs(SETTLE_MS);
      const idleJvmCpuPercent = await cpuPercent(jvm, IDLE_WINDOW_MS);
      const run = await runScenario(target, 'world-to-any', `history-${name}-${Date.now()}`, {
        clients: 1,
        stop: { seconds: options.seconds },
        hotSpendBudget: 0n,
      });
      options.log(
        `  ${name}: ${run.committedPerSec} tx/s at 1 client (p50 ${run.p50Ms} ms), idle JVM ${idleJvmCpuPercent} % of a core`,
      );
      return {
        txPerSecond: run.committedPerSec,
        p50Ms: run.p50Ms,
        p99Ms: run.p99Ms,
        idleJvmCpuPercent,
      };
    };
    // The JVM compiles as it serves: a first, uncounted load, so that "fresh" is not "cold".
    await runScenario(target, 'world-to-any', `history-warm-up-${Date.now()}`, {
      clients: 1,
      stop: { seconds: options.seconds },
      hotSpendBudget: 0n,
    });
    const fresh = await phase('fresh');
    const started = performance.now();
    await fill(target, options.transactions);
    const fillSeconds = (performance.now() - started) / 1000;
    options.log(`  committed ${options.transactions} transactions in ${Math.round(fillSeconds)} s`);
    const used = await phase('used');
    return {
      transactions: options.transactions,
      fillSeconds: round(fillSeconds),
      fillTxPerSecond: round(options.transactions / fillSeconds),
      fresh,
      used,
      throughputRatio: round(used.txPerSecond / fresh.txPerSecond),
    };
  } finally {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `transactions` world→users:<i> transactions on one ledger, in bulks of 100 from a few clients. */
async function fill(target: { baseUrl: string; token: string }, transactions: number) {
  const ledger = `history-fill-${Date.now()}`;
  expectOk(
    await callJson(target.baseUrl, target.token, 'POST', `/api/ledger/v2/${ledger}`),
    'create the history ledger',
  );
  let next = 0;
  const client = async () => {
    while (next < transactions) {
      const first = next;
      next = Math.min(transactions, next + BULK_SIZE);
      const elements = Array.from({ length: next - first }, (_, i) => ({
        action: 'CREATE_TRANSACTION',
        data: {
          postings: [
            {
              source: 'world',
              destination: `users:${(first + i) % 1000}`,
              amount: 1,
              asset: 'USD/2',
            },
          ],
        },
      }));
      expectOk(
        await callJson(
          target.baseUrl,
          target.token,
          'POST',
          `/api/ledger/v2/${ledger}/_bulk`,
          elements,
        ),
        `bulk from ${first}`,
      );
    }
  };
  await Promise.all(Array.from({ length: FILL_CLIENTS }, client));
}

/** A process's CPU (user + system, every thread) over `windowMs`, in % of one core. */
async function cpuPercent(pid: number, windowMs: number): Promise<number> {
  const before = processCpuSeconds(pid);
  await sleepMs(windowMs);
  return round(((processCpuSeconds(pid) - before) / (windowMs / 1000)) * 100);
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number) => Math.round(n * 100) / 100;

/** The report's target row for item 3: what, the figure, the verdict. */
export function ledgerHistoryTargetRow(r: HistoryResult | undefined): string[] {
  const label =
    'Local platform after 100,000 transactions: 1-client tx/s within 10 % of fresh; DynamoDB Local idle < 5 % of a core';
  if (!r) return [label, 'not measured', 'not measured'];
  const idleMet = r.fresh.idleJvmCpuPercent < 5 && r.used.idleJvmCpuPercent < 5;
  const met = r.transactions >= 100_000 && r.throughputRatio >= 0.9 && idleMet;
  return [
    label,
    `after ${r.transactions.toLocaleString('en-US')}: ${r.used.txPerSecond} vs ${r.fresh.txPerSecond} tx/s fresh (${Math.round(r.throughputRatio * 100)} %); idle JVM ${r.fresh.idleJvmCpuPercent} % fresh, ${r.used.idleJvmCpuPercent} % used`,
    met ? 'met' : '**missed**',
  ];
}

export function renderLedgerHistory(r: HistoryResult): string {
  const row = (name: string, p: HistoryPhase) =>
    `| ${name} | ${p.txPerSecond} | ${p.p50Ms} | ${p.p99Ms} | ${p.idleJvmCpuPercent} |`;
  return `## The local platform as it is used (issue #28 item 3)

One platform as \`npm start\` runs it (DynamoDB Local on disk, the durability barrier, the stream pollers), fresh,
then after ${r.transactions.toLocaleString('en-US')} world→any transactions committed in non-atomic bulks of ${BULK_SIZE}
from ${FILL_CLIENTS} clients (${r.fillSeconds} s, ${r.fillTxPerSecond} tx/s). Each phase: ${SETTLE_MS / 1000} s for the pollers
to drain, the JVM's CPU over ${IDLE_WINDOW_MS / 1000} s idle, then one client's world→any load on a fresh ledger of that
platform (what the platform's history costs, not a ledger's).

| Phase | tx/s (1 client) | p50 (ms) | p99 (ms) | Idle JVM CPU (% of a core) |
|---|---|---|---|---|
${row('fresh', r.fresh)}
${row(`after ${r.transactions.toLocaleString('en-US')} transactions`, r.used)}

Used / fresh throughput: ${Math.round(r.throughputRatio * 100)} %.
`;
}
