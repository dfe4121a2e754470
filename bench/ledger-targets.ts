/**
 * The write engine's throughput targets (one ledger, a fresh ledger per cell, single-transaction requests,
 * closed-loop clients): the embedded default of `npm start` per scenario and client count, and the Lambda-faithful
 * mode (worker processes, the ingress queue). Each row says the figure and whether it is met.
 */
import type { LedgerCell } from './ledger-matrix.js';
import { BULK_CLIENTS, BULK_SCENARIO } from './ledger-scenarios.js';

/** tx/s at least, p50 / p99 at most (ms), per client count, for the embedded ledger. */
const EMBEDDED_TARGETS: ReadonlyArray<{
  clients: number;
  txPerSec: number;
  p50Ms?: number;
  p99Ms?: number;
}> = [
  { clients: 1, txPerSec: 100, p50Ms: 10 },
  { clients: 8, txPerSec: 300 },
  { clients: 32, txPerSec: 500, p99Ms: 250 },
];
const EMBEDDED_SCENARIOS = ['world-to-any', 'any-to-any', 'hot-pair'] as const;
/** Lambda-faithful: at least this many tx/s at 32 clients, never falling as clients rise. */
const WORKERS_TX_PER_SEC = 150;

const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
const noServerError = (c: LedgerCell) => !Object.keys(c.statuses).some((k) => k.startsWith('5'));

export function engineTargetRows(cells: readonly LedgerCell[]): string[][] {
  const plain = cells.filter((c) => c.writerKills === undefined && !c.keyed);
  const rows: string[][] = [];
  for (const scenario of EMBEDDED_SCENARIOS) {
    for (const t of EMBEDDED_TARGETS) {
      const cell = plain.find(
        (c) => c.workers === 'embedded' && c.scenario === scenario && c.clients === t.clients,
      );
      const limits = [
        `≥ ${t.txPerSec} tx/s`,
        ...(t.p50Ms !== undefined ? [`p50 ≤ ${t.p50Ms} ms`] : []),
        ...(t.p99Ms !== undefined ? [`p99 ≤ ${t.p99Ms} ms`] : []),
      ].join(', ');
      rows.push([
        `Embedded ledger (\`npm start\`), ${scenario}, ${t.clients} client${t.clients === 1 ? '' : 's'}: ${limits}`,
        cell
          ? `${cell.committedPerSec} tx/s, p50 ${cell.p50Ms} ms, p99 ${cell.p99Ms} ms, ${cell.cpuMsPerTx} CPU-ms and ${cell.dynamoRequestsPerTx?.total ?? '?'} DynamoDB requests per tx${coresBusy(cell)}`
          : 'not measured',
        cell
          ? mark(
              cell.committedPerSec >= t.txPerSec &&
                (t.p50Ms === undefined || cell.p50Ms <= t.p50Ms) &&
                (t.p99Ms === undefined || cell.p99Ms <= t.p99Ms) &&
                noServerError(cell),
            )
          : 'not measured',
      ]);
    }
  }
  rows.push(bulkRow(plain));
  rows.push(workersRow(plain));
  return rows;
}

/** Atomic bulks of 50 any→any from 32 clients on the embedded default: at least this many transactions a second. */
const BULK_TX_PER_SEC = 1000;

function bulkRow(cells: readonly LedgerCell[]): string[] {
  const cell = cells.find(
    (c) => c.workers === 'embedded' && c.scenario === BULK_SCENARIO && !c.keyed,
  );
  return [
    `Embedded ledger (\`npm start\`), atomic bulks of 50 any→any, ${BULK_CLIENTS} clients: ≥ ${BULK_TX_PER_SEC} tx/s`,
    cell
      ? `${cell.committedPerSec} tx/s, bulk p50 ${cell.p50Ms} ms, p99 ${cell.p99Ms} ms, ${cell.cpuMsPerTx} CPU-ms and ${cell.dynamoRequestsPerTx?.total ?? '?'} DynamoDB requests per tx${coresBusy(cell)}`
      : 'not measured',
    cell ? mark(cell.committedPerSec >= BULK_TX_PER_SEC && noServerError(cell)) : 'not measured',
  ];
}

/** Each core's busy share during the cell. */
const coresBusy = (c: LedgerCell) => `; cores ${c.coreBusyPercent.join(' / ')} % busy`;

/** Every process's DynamoDB and SQS requests per transaction, when counted at the emulators' ports. */
const portRequests = (c: LedgerCell) =>
  c.portRequestsPerTx
    ? `, ${c.portRequestsPerTx.dynamodb.total} DynamoDB and ${c.portRequestsPerTx.sqs.total} SQS requests per tx`
    : '';

/** CPU-ms per transaction by process, largest first. */
const cpuByProcess = (c: LedgerCell) =>
  Object.entries(c.cpuMsPerTxByProcess)
    .sort((a, b) => b[1] - a[1])
    .map(([role, ms]) => `${role} ${ms}`)
    .join(', ');

/**
 * A worker process per client (as Lambda scales): world-to-any tx/s at each client count, whether it never fell,
 * and where a transaction's CPU went at 32 clients. Without that row, the best fixed worker count at 32 clients.
 */
function workersRow(cells: readonly LedgerCell[]): string[] {
  const scaled = cells.filter((c) => c.scaled).sort((a, b) => a.clients - b.clients);
  const at32 = scaled.find((c) => c.clients === 32);
  if (at32) {
    const rising = scaled.every(
      (c, i) => i === 0 || c.committedPerSec >= scaled[i - 1]!.committedPerSec,
    );
    return [
      `Lambda-faithful (a worker process per client, as Lambda scales), world-to-any: ≥ ${WORKERS_TX_PER_SEC} tx/s at 32 clients, never falling as clients rise`,
      `${scaled.map((c) => `${c.committedPerSec} at ${c.clients}`).join(', ')} tx/s; at 32: p99 ${at32.p99Ms} ms, ${at32.cpuMsPerTx} CPU-ms per tx on the machine (${cpuByProcess(at32)})${portRequests(at32)}${coresBusy(at32)}`,
      mark(at32.committedPerSec >= WORKERS_TX_PER_SEC && rising && noServerError(at32)),
    ];
  }
  return fixedWorkersRow(cells);
}

/** The best worker count at 32 clients, and whether its world-to-any tx/s never fell as clients rose. */
function fixedWorkersRow(cells: readonly LedgerCell[]): string[] {
  const byWorkers = new Map<number, LedgerCell[]>();
  for (const c of cells)
    if (typeof c.workers === 'number' && !c.scaled && c.scenario === 'world-to-any')
      byWorkers.set(c.workers, [...(byWorkers.get(c.workers) ?? []), c]);
  const best = [...byWorkers.entries()]
    .map(([workers, row]) => ({
      workers,
      row: [...row].sort((a, b) => a.clients - b.clients),
      at32: row.find((c) => c.clients === 32),
    }))
    .filter((w) => w.at32)
    .sort((a, b) => b.at32!.committedPerSec - a.at32!.committedPerSec)[0];
  const label = `Lambda-faithful (worker processes), world-to-any: ≥ ${WORKERS_TX_PER_SEC} tx/s at 32 clients, never falling as clients rise`;
  if (!best) return [label, 'not measured', 'not measured'];
  const rising = best.row.every(
    (c, i) => i === 0 || c.committedPerSec >= best.row[i - 1]!.committedPerSec,
  );
  return [
    label,
    `best ${best.workers} workers: ${best.row.map((c) => `${c.committedPerSec} at ${c.clients}`).join(', ')} tx/s`,
    mark(best.at32!.committedPerSec >= WORKERS_TX_PER_SEC && rising && noServerError(best.at32!)),
  ];
}
