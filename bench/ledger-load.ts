/**
 * Ledger throughput and latency over HTTP on the local platform: closed-loop clients, each sending its next
 * single-posting transaction as soon as the previous one is answered, for a fixed time per scenario. Conflict
 * retries are the TransactionCanceledException answers DynamoDB Local gave the ledger writer meanwhile (each
 * one makes the writer read and decide again, or answer 503 after its last attempt), counted by the in-process
 * meter on the platform's own DynamoDB clients.
 */
import type { RunningPlatform } from '../infra/local/platform.js';
import type { DynamoMeter } from './dynamo-meter.js';
import { callJson, expectOk, fundingTransaction } from './http.js';
import { type LatencySummary, round, summarise } from './stats.js';

export interface LoadScenario {
  name: string;
  ledgers: number;
  clients: number;
}

export interface LoadRow extends LatencySummary {
  scenario: string;
  ledgers: number;
  clients: number;
  durationS: number;
  committed: number;
  committedPerSec: number;
  /** Answers other than 200, by status. */
  failures: Record<string, number>;
  conflictRetries: number;
  retriesPerCommit: number;
}

export interface LedgerLoadResult {
  source: string;
  rows: LoadRow[];
}

export const SCENARIOS: LoadScenario[] = [
  { name: '1 ledger, 1 client', ledgers: 1, clients: 1 },
  { name: '1 ledger, 8 clients', ledgers: 1, clients: 8 },
  { name: '1 ledger, 32 clients', ledgers: 1, clients: 32 },
  { name: '32 ledgers, 32 clients (one each)', ledgers: 32, clients: 32 },
];

export async function measureLedgerLoad(
  platform: RunningPlatform,
  token: string,
  meter: DynamoMeter,
  seconds: number,
  log: (l: string) => void,
): Promise<LedgerLoadResult> {
  const rows: LoadRow[] = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
    const ledgers = Array.from({ length: scenario.ledgers }, (_, i) => `load${index}-${i}`);
    for (const l of ledgers) {
      expectOk(
        await callJson(platform.baseUrl, token, 'POST', `/api/ledger/v2/${l}`),
        `create ledger ${l}`,
      );
      // Each client's account exists before timing starts, so every timed commit is the same shape.
      for (let c = 0; c < scenario.clients; c++) {
        if (c % scenario.ledgers === ledgers.indexOf(l)) {
          expectOk(
            await callJson(
              platform.baseUrl,
              token,
              'POST',
              `/api/ledger/v2/${l}/transactions`,
              fundingTransaction(`users:c${c}`),
            ),
            'warm-up',
          );
        }
      }
    }
    const latencies: number[] = [];
    const failures: Record<string, number> = {};
    meter.reset();
    const start = performance.now();
    const end = start + seconds * 1000;
    await Promise.all(
      Array.from({ length: scenario.clients }, async (_, c) => {
        const path = `/api/ledger/v2/${ledgers[c % scenario.ledgers]}/transactions`;
        while (performance.now() < end) {
          const res = await callJson(
            platform.baseUrl,
            token,
            'POST',
            path,
            fundingTransaction(`users:c${c}`),
          );
          if (res.status === 200) latencies.push(res.ms);
          else failures[res.status] = (failures[res.status] ?? 0) + 1;
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1000;
    const retries = meter.summary().transactionCancellations;
    const row: LoadRow = {
      scenario: scenario.name,
      ledgers: scenario.ledgers,
      clients: scenario.clients,
      durationS: round(elapsed, 1),
      committed: latencies.length,
      committedPerSec: round(latencies.length / elapsed, 1),
      ...summarise(latencies),
      failures,
      conflictRetries: retries,
      retriesPerCommit: round(latencies.length ? retries / latencies.length : 0, 2),
    };
    log(
      `  ${scenario.name}: ${row.committedPerSec} tx/s, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${retries} retries, failures ${JSON.stringify(failures)}`,
    );
    rows.push(row);
  }
  return {
    source: `HTTP (node:http, keep-alive) to the local platform (infra/local/platform.ts: DynamoDB Local + fauxqs + Hono apps), closed-loop clients in the same process, ${seconds} s per scenario`,
    rows,
  };
}
