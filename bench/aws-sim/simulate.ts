/**
 * The ledger's write engine on a model of AWS (bench/aws-sim): the real group commit (EmbeddedGroupCommit, the
 * sequencer, decisions, items, conditions) over the in-memory port wrapped in AWS's latencies and per-partition
 * limits, driven by many concurrent Lambda-like callers in closed loops on one ledger.
 *
 * What a caller's write goes through, each hop drawn from the latency model: SQS send of the intent, the
 * writer's receive, the writer's batch (its DynamoDB calls through ModeledLedgerTable), and the answer on a reply
 * channel. The writer is one per ledger and gathers the next batch while one commits, as the embedded engine does.
 * Not modelled: Lambda cold starts, API Gateway, the writer's CPU beyond this process's own (it runs here, for
 * real), SQS's own throttling.
 */
import type { LedgerOperation } from '../../lib/ledger/commands/operations.js';
import type { LedgerRecord } from '../../lib/ledger/domain/change.js';
import { DEFAULT_FEATURES } from '../../lib/ledger/domain/features.js';
import { headFromItem } from '../../lib/ledger/store/head.js';
import { DEFAULT_TRANSACTION_KEYS, ledgerKeys } from '../../lib/ledger/store/keys.js';
import { MemoryLedgerTable } from '../../lib/ledger/store/memory-ledger-table.js';
import { idRange } from '../../lib/ledger/store/transaction-pages.js';
import { EmbeddedGroupCommit } from '../../lib/ledger/write/embedded.js';
import { percentile } from '../stats.js';
import { CapacityModel } from './capacity-model.js';
import { LatencyModel, seededRandom } from './latency-model.js';
import { ModeledLedgerTable } from './modeled-ledger-table.js';

export const SIMULATED_SCENARIOS = ['hot-pair', 'world-to-any', 'any-to-any'] as const;
export type SimulatedScenario = (typeof SIMULATED_SCENARIOS)[number];

const ASSET = 'USD/2';
/** Accounts any→any moves money between, funded before the load with this much each. */
const ANY_ACCOUNTS = 1_000;
const FUNDING = 100n;

export interface SimulationCell {
  scenario: SimulatedScenario;
  engine: SimulatedEngine;
  callers: number;
  seconds: number;
  committed: number;
  refused: number;
  /** Writes not decided before their deadline (8 s): the caller is told nothing was written. */
  expired: number;
  /** Writes answered "unknown" (the engine gave up on their batch after its retries). */
  unknown: number;
  txPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU of this process per committed transaction: the engine's own work (deciding, hashing, building items)
   * plus the model's bookkeeping — on AWS the writer's Lambda pays the first part.
   */
  cpuMsPerTx: number;
  /** DynamoDB requests per committed transaction, by operation. */
  requestsPerTx: Record<string, number>;
  throttledRequests: number;
  /** Write units per second of the partition keys that took the most (the next limit to bind). */
  hottestWriteKeys: Array<{ key: string; unitsPerSec: number }>;
  invariants: { gaplessIds: boolean; sumPerAssetZero: boolean };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function ledgerRecord(name: string): LedgerRecord {
  return {
    environment: 'sim',
    id: 1,
    name,
    bucket: '_default',
    metadata: {},
    features: { ...DEFAULT_FEATURES },
    addedAt: new Date().toISOString(),
    // A ledger as created now: transactions in blocks of ids, the time index in shards.
    transactionKeys: DEFAULT_TRANSACTION_KEYS,
  };
}

const create = (source: string, destination: string, amount: bigint): LedgerOperation => ({
  kind: 'create',
  input: { postings: [{ source, destination, amount, asset: ASSET }] },
  options: { dryRun: false, force: false },
});

function nextOperation(scenario: SimulatedScenario, random: () => number): LedgerOperation {
  if (scenario === 'hot-pair') return create('world', 'bank', 1n);
  if (scenario === 'world-to-any')
    return create('world', `users:${Math.floor(random() * 1_000_000)}`, 1n);
  const from = Math.floor(random() * ANY_ACCOUNTS);
  const to = (from + 1 + Math.floor(random() * (ANY_ACCOUNTS - 1))) % ANY_ACCOUNTS;
  // Amounts up to the funding: some moves overdraw their source and are refused, as the scenario wants.
  return create(`users:${from}`, `users:${to}`, BigInt(1 + Math.floor(random() * 40)));
}

/**
 * `pipelined`: the embedded engine as it runs in one process (new transactions' items in the commit, the next
 * batch decided while one commits or the returning group gathered into one, as the line measures). `writer`: the AWS writer's protocol (those items and the results put after
 * each commit, HEAD told the batch is settled, one batch at a time).
 */
export type SimulatedEngine = 'pipelined' | 'writer';

export async function simulateCell(
  scenario: SimulatedScenario,
  callers: number,
  seconds: number,
  engineKind: SimulatedEngine = 'pipelined',
  seed = 1,
): Promise<SimulationCell> {
  const random = seededRandom(seed);
  const ledger = ledgerRecord(`sim-${scenario}-${callers}`);
  const memory = MemoryLedgerTable.withHead(ledger);
  const latency = new LatencyModel(random);
  const capacity = new CapacityModel(() => performance.now());
  const table = new ModeledLedgerTable(memory, ledger, latency, capacity, random, sleep);
  const engine = new EmbeddedGroupCommit({
    tableFor: () => 'modeled',
    tableOf: () => table,
    writerProtocol: engineKind === 'writer',
  });
  if (scenario === 'any-to-any') await fund(engine, ledger);
  const before = { ...table.counters.requests };
  const consumedBefore = new Map(capacity.consumed);
  const throttledBefore = table.counters.throttledRequests;

  const latencies: number[] = [];
  const statuses = { committed: 0, refused: 0, expired: 0, unknown: 0 };
  const stopAt = performance.now() + seconds * 1000;
  const caller = async () => {
    while (performance.now() < stopAt) {
      const started = performance.now();
      await sleep(latency.sampleMs('SQS.SendMessage'));
      await sleep(latency.sampleMs('SQS.ReceiveMessage'));
      const answer = await engine.submit(ledger, nextOperation(scenario, random));
      await sleep(latency.sampleMs('Reply'));
      latencies.push(performance.now() - started);
      if (answer.status === 'committed') statuses.committed++;
      else if (answer.status === 'refused') statuses.refused++;
      else if (answer.status === 'expired') statuses.expired++;
      else statuses.unknown++;
    }
  };
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: callers }, caller));
  const elapsedSec = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);

  return {
    scenario,
    engine: engineKind,
    callers,
    seconds: round(elapsedSec),
    ...statuses,
    txPerSec: round(statuses.committed / elapsedSec),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    cpuMsPerTx: round((cpu.user + cpu.system) / 1000 / Math.max(1, statuses.committed), 2),
    requestsPerTx: perTx(before, table.counters.requests, statuses.committed),
    throttledRequests: table.counters.throttledRequests - throttledBefore,
    hottestWriteKeys: hottest(consumedBefore, capacity.consumed, elapsedSec, ledger.name),
    invariants: checkInvariants(memory, ledger),
  };
}

/** Each any→any account gets FUNDING from world, in bulks outside the measurement. */
async function fund(engine: EmbeddedGroupCommit, ledger: LedgerRecord): Promise<void> {
  const operations = Array.from({ length: ANY_ACCOUNTS }, (_, n) =>
    create('world', `users:${n}`, FUNDING),
  );
  for (let i = 0; i < operations.length; i += 100)
    await engine.submitGroup(ledger, operations.slice(i, i + 100), { stopOnFailure: false })
      .answers;
}

function perTx(
  before: Record<string, number>,
  after: Record<string, number>,
  committed: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [operation, n] of Object.entries(after)) {
    const delta = n - (before[operation] ?? 0);
    if (delta > 0) out[operation] = round(delta / Math.max(1, committed), 3);
  }
  return out;
}

function hottest(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  elapsedSec: number,
  ledgerName: string,
): SimulationCell['hottestWriteKeys'] {
  return [...after]
    .filter(([key]) => key.startsWith('write|'))
    .map(([key, n]) => ({
      // The environment and ledger prefix says nothing here; what follows it names the partition.
      key: key.slice('write|'.length).split(`#L#${ledgerName}`).pop() || 'HEAD',
      unitsPerSec: round((n - (before.get(key) ?? 0)) / elapsedSec),
    }))
    .sort((a, b) => b.unitsPerSec - a.unitsPerSec)
    .slice(0, 4);
}

/** Ids 1..N without gaps in the HEAD, and every asset's volumes summing to zero over all accounts. */
function checkInvariants(
  memory: MemoryLedgerTable,
  ledger: LedgerRecord,
): SimulationCell['invariants'] {
  const head = headFromItem(memory.get(ledgerKeys.head(ledger))!);
  // Transaction items and pages, in whichever partitions the ledger's layout puts them (`#TX`, or blocks `#TX#<n>`).
  const txItems = [...memory.items.values()].filter(
    (i) =>
      /#TX(#[0-9]+)?$/.test(String(i.pk)) &&
      ledgerKeys.transaction(ledger, Number(String(i.sk))).pk === i.pk,
  );
  // A page holds consecutive ids (transaction-pages.ts).
  const ids = txItems
    .flatMap((i) => {
      const { first, last } = idRange(i);
      return Array.from({ length: last - first + 1 }, (_, n) => first + n);
    })
    .sort((a, b) => a - b);
  const gaplessIds = ids.length === head.lastTxId && ids.every((id, n) => id === n + 1);
  const sums = new Map<string, bigint>();
  for (const item of memory.items.values()) {
    if (!String(item.sk).startsWith('V#')) continue;
    const asset = String(item.sk).slice(2);
    sums.set(
      asset,
      (sums.get(asset) ?? 0n) + BigInt(item.input as bigint) - BigInt(item.output as bigint),
    );
  }
  return { gaplessIds, sumPerAssetZero: [...sums.values()].every((s) => s === 0n) };
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
