/**
 * Issue 30 item 7: a pipeline exporting a ledger's log to S3 (Parquet) on the local platform and its S3 emulator,
 * DynamoDB requests metered as in section 2 (every document client of this process: the embedded ledger's, the
 * pipeline worker's and its stream poller's).
 *
 * - backfill: a ledger with `logs` log entries gets its pipeline; logs/s until the last object is listed, and the
 *   DynamoDB requests and S3 PUTs per exported log (nothing else writes meanwhile);
 * - follow: one transaction at a time; commit (its answer) → the object holding its log entry listed in the bucket,
 *   p50/p99; the same commits again with the pipeline stopped, so that the export's own requests are the
 *   difference.
 * Then dollars per million exported logs on AWS, modelled from those counts (prices: cost-model.ts).
 * Run alone: `npm run bench -- --only export` (BENCH_EXPORT_LOGS, default 3000; BENCH_EXPORT_FOLLOW, default 40).
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startPlatform } from '../infra/local/platform.js';
import { LOCAL_S3_CREDENTIALS } from '../lib/config/env.js';
import { PRICES } from './cost-model.js';
import { installDynamoMeter } from './dynamo-meter.js';
import { fetchToken } from './http.js';
import { type LatencySummary, round, summarise } from './stats.js';

export interface ExportBenchResult {
  source: string;
  batchLogs: number;
  backfill: {
    logs: number;
    seconds: number;
    logsPerSecond: number;
    dynamoRequests: number;
    dynamoByOperation: Record<string, number>;
    readUnits: number;
    writeUnits: number;
    s3Puts: number;
  };
  follow: {
    commits: number;
    intervalMs: number;
    lag: LatencySummary;
    s3Puts: number;
    dynamoRequests: number;
    dynamoByOperation: Record<string, number>;
  };
  cost: ExportCost;
}

/** Assumptions of the AWS model, written out in the report. */
export const EXPORT_ASSUMPTIONS = {
  s3PutPerThousand: 0.005,
  pipelinesLambdaMemoryGb: 1,
  lambdaMsPerDrain: 100,
  /** SendMessage of the wake, the mapping's ReceiveMessage and DeleteMessageBatch, per drain (batches of 10 amortised). */
  sqsRequestsPerDrain: 1.2,
};

export interface ExportCost {
  /** Batches as the backfill sent them (a busy ledger): one drain sends up to 50; 10 assumed per drain here. */
  fullBatches: { perMillionLogs: Record<string, number>; total: number };
  /** As the follow phase sent them: a few commits per batch, one batch per drain (a quiet ledger). */
  followBatches: { perMillionLogs: Record<string, number>; total: number };
}

const LEDGER = 'exported';
const PREFIX = 'bench/';

/** The last log id of each object under the bench's prefix, with when this watcher first listed it. */
class BucketWatcher {
  readonly seen = new Map<number, number>();
  private stopped = false;
  private after: string | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly s3: S3Client) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.poll();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  }

  async poll(): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: 'exports',
          Prefix: PREFIX,
          ...(token ? { ContinuationToken: token } : this.after ? { StartAfter: this.after } : {}),
        }),
      );
      const now = performance.now();
      for (const o of page.Contents ?? []) {
        const last = Number(/-(\d+)\.parquet$/.exec(o.Key!)![1]);
        if (!this.seen.has(last)) this.seen.set(last, now);
        // Names sort in log order within a day: the next listing starts after the newest.
        if (!this.after || o.Key! > this.after) this.after = o.Key!;
      }
      token = page.NextContinuationToken;
    } while (token);
  }

  /** When the object holding log `id` was first listed (the smallest last id at or above it). */
  visibleAt(id: number): number | undefined {
    let best: number | undefined;
    for (const [last, at] of this.seen)
      if (last >= id && (best === undefined || at < best)) best = at;
    return best;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

function apiOf(baseUrl: string, token: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}/api/ledger/v2/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** The ledger's history: `logs` transactions in bulks of 100 (one log entry each). */
async function writeHistory(api: Api, logs: number): Promise<void> {
  await api('POST', LEDGER);
  for (let done = 0; done < logs; done += 100) {
    const elements = Array.from({ length: Math.min(100, logs - done) }, (_, i) => ({
      action: 'CREATE_TRANSACTION',
      data: {
        postings: [
          {
            source: 'world',
            destination: `users:${(done + i) % 50}`,
            amount: 100 + i,
            asset: 'USD/2',
          },
        ],
      },
    }));
    await api('POST', `${LEDGER}/_bulk`, elements);
  }
}

async function until(what: string, probe: () => Promise<boolean> | boolean, limitMs = 600_000) {
  const deadline = performance.now() + limitMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function measureExport(options: {
  logs: number;
  followCommits: number;
  log: (line: string) => void;
}): Promise<ExportBenchResult> {
  const { logs, followCommits, log } = options;
  const meter = installDynamoMeter();
  log('export: a local platform (embedded ledger, no dispatch), its S3 emulator');
  const platform = await startPlatform({
    port: 0,
    dispatch: false,
    resourcePrefix: 'bench-x-',
    variables: { LOG_LEVEL: 'silent' },
  });
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: platform.s3.endpoint,
    forcePathStyle: true,
    credentials: { ...LOCAL_S3_CREDENTIALS },
  });
  const watcher = new BucketWatcher(s3);
  try {
    const api = apiOf(platform.baseUrl, await fetchToken(platform.baseUrl));
    log(`export: writing ${logs} log entries`);
    await writeHistory(api, logs);
    // The history's stream records wake no pipeline (none yet): let the poller pass them before metering.
    await new Promise((r) => setTimeout(r, 3000));
    const { data: exporter } = await api('POST', '_/exporters', {
      driver: 's3',
      config: { bucket: 'exports', prefix: PREFIX },
    });
    watcher.start();
    meter.reset();
    const started = performance.now();
    const { data: pipeline } = await api('POST', `${LEDGER}/pipelines`, {
      exporterID: exporter.id,
    });
    await until('the backfill', () => watcher.seen.has(logs));
    const seconds = (performance.now() - started) / 1000;
    const summary = meter.summary();
    const backfillPuts = watcher.seen.size;
    log(
      `export: backfill of ${logs} in ${round(seconds, 1)} s; following ${followCommits} commits`,
    );
    meter.reset();
    const follow = await measureFollow(api, watcher, logs, followCommits);
    const withExport = meter.summary();
    const followPuts = watcher.seen.size - backfillPuts;
    // The same commits with the pipeline stopped: the ledger's own requests, to take away.
    await api('POST', `${LEDGER}/pipelines/${pipeline.id}/stop`);
    await new Promise((r) => setTimeout(r, 2000));
    meter.reset();
    await commitEvery(api, followCommits);
    await new Promise((r) => setTimeout(r, 2000));
    const ledgerOnly = meter.summary();
    const followSummary = {
      requests: withExport.requests - ledgerOnly.requests,
      readUnits: withExport.readUnits - ledgerOnly.readUnits,
      writeUnitsByRules: withExport.writeUnitsByRules - ledgerOnly.writeUnitsByRules,
      byOperation: Object.fromEntries(
        Object.entries(withExport.byOperation).map(([op, n]) => [
          op,
          n - (ledgerOnly.byOperation[op] ?? 0),
        ]),
      ),
    };
    return {
      source:
        'Local platform: DynamoDB Local, the S3 emulator (s3rver), the pipeline worker through its stream poller (1 s idle poll)',
      batchLogs: 100,
      backfill: {
        logs,
        seconds: round(seconds, 2),
        logsPerSecond: round(logs / seconds, 1),
        dynamoRequests: summary.requests,
        dynamoByOperation: summary.byOperation,
        readUnits: round(summary.readUnits, 1),
        writeUnits: round(summary.writeUnitsByRules, 1),
        s3Puts: backfillPuts,
      },
      follow: {
        ...follow,
        s3Puts: followPuts,
        dynamoRequests: followSummary.requests,
        dynamoByOperation: followSummary.byOperation,
      },
      cost: {
        fullBatches: modelExportCost({
          rruPerBatch: summary.readUnits / backfillPuts,
          wruPerBatch: summary.writeUnitsByRules / backfillPuts,
          logsPerBatch: logs / backfillPuts,
          batchesPerDrain: 10,
        }),
        followBatches: modelExportCost({
          rruPerBatch: followSummary.readUnits / followPuts,
          wruPerBatch: followSummary.writeUnitsByRules / followPuts,
          logsPerBatch: followCommits / followPuts,
          batchesPerDrain: 1,
        }),
      },
    };
  } finally {
    await watcher.stop();
    s3.destroy();
    await platform.stop();
  }
}

const FOLLOW_INTERVAL_MS = 250;

/** One commit every FOLLOW_INTERVAL_MS; when each was answered. */
async function commitEvery(api: Api, commits: number): Promise<number[]> {
  const committedAt: number[] = [];
  for (let i = 0; i < commits; i++) {
    await api('POST', `${LEDGER}/transactions`, {
      postings: [{ source: 'world', destination: 'users:follow', amount: 1, asset: 'USD/2' }],
    });
    committedAt.push(performance.now());
    await new Promise((r) => setTimeout(r, FOLLOW_INTERVAL_MS));
  }
  return committedAt;
}

/** Each log entry's commit → its object listed. */
async function measureFollow(api: Api, watcher: BucketWatcher, logs: number, commits: number) {
  const committedAt = await commitEvery(api, commits);
  await until('the followed commits', () => watcher.visibleAt(logs + commits) !== undefined);
  const lags = committedAt.map((at, i) => watcher.visibleAt(logs + i + 1)! - at);
  return { commits, intervalMs: FOLLOW_INTERVAL_MS, lag: summarise(lags) };
}

/** DynamoDB units per batch as measured, and how many log entries a batch and batches a drain hold. */
interface Regime {
  rruPerBatch: number;
  wruPerBatch: number;
  logsPerBatch: number;
  batchesPerDrain: number;
}

/**
 * Dollars per million exported logs: DynamoDB's units per batch as measured, one S3 PUT per batch, and the
 * pipelines function's invocations and SQS wakes by assumption (EXPORT_ASSUMPTIONS).
 */
export function modelExportCost(r: Regime): {
  perMillionLogs: Record<string, number>;
  total: number;
} {
  const a = EXPORT_ASSUMPTIONS;
  const batches = 1e6 / r.logsPerBatch;
  const drains = batches / r.batchesPerDrain;
  const lambdaPerDrain =
    (a.lambdaMsPerDrain / 1000) * a.pipelinesLambdaMemoryGb * PRICES.lambdaArmPerGbSecond +
    PRICES.lambdaPerMillionRequests / 1e6;
  const perMillionLogs = {
    dynamoReads: round((batches * r.rruPerBatch * PRICES.dynamoReadRequestUnitPerMillion) / 1e6, 4),
    dynamoWrites: round(
      (batches * r.wruPerBatch * PRICES.dynamoWriteRequestUnitPerMillion) / 1e6,
      4,
    ),
    s3Puts: round((batches * a.s3PutPerThousand) / 1000, 4),
    lambda: round(drains * lambdaPerDrain, 4),
    sqs: round((drains * a.sqsRequestsPerDrain * PRICES.sqsPerMillionRequests) / 1e6, 4),
  };
  const total = round(
    Object.values(perMillionLogs).reduce((x, y) => x + y, 0),
    4,
  );
  return { perMillionLogs, total };
}

export function renderExport(r: ExportBenchResult): string {
  const b = r.backfill;
  const perLog = (n: number) => round(n / b.logs, 3);
  const costRow = (name: string, c: { perMillionLogs: Record<string, number>; total: number }) =>
    `| ${name} | ${Object.values(c.perMillionLogs).join(' | ')} | **${c.total}** |`;
  return [
    '## Exporters: a ledger exported to S3 (issue 30 item 7)',
    '',
    `${r.source}. Batches of ${r.batchLogs} log entries (the default), Parquet.`,
    '',
    '| Measure | Value |',
    '|---|---|',
    `| Backfill: log entries / seconds | ${b.logs} / ${b.seconds} s |`,
    `| Backfill throughput | **${b.logsPerSecond} logs/s** |`,
    `| DynamoDB requests per exported log (${Object.entries(b.dynamoByOperation)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ')}) | ${perLog(b.dynamoRequests)} |`,
    `| RRU / WRU per exported log | ${perLog(b.readUnits)} / ${perLog(b.writeUnits)} |`,
    `| S3 PUTs per exported log | ${perLog(b.s3Puts)} (${b.s3Puts} objects) |`,
    `| Follow: commit → object listed, ${r.follow.commits} commits ${r.follow.intervalMs} ms apart | p50 ${r.follow.lag.p50Ms} ms, p99 ${r.follow.lag.p99Ms} ms, max ${r.follow.lag.maxMs} ms (${r.follow.s3Puts} objects) |`,
    `| Follow: DynamoDB requests per exported log (${Object.entries(r.follow.dynamoByOperation)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ')}) | ${round(r.follow.dynamoRequests / r.follow.commits, 2)} |`,
    '',
    'Modelled on AWS, dollars per million exported logs (DynamoDB units as measured per batch; S3 PUT $0.005 per',
    `1,000; the pipelines function ${EXPORT_ASSUMPTIONS.pipelinesLambdaMemoryGb} GB, ${EXPORT_ASSUMPTIONS.lambdaMsPerDrain} ms per drain, ${EXPORT_ASSUMPTIONS.sqsRequestsPerDrain} SQS requests per drain — assumptions):`,
    '',
    '| Regime | DynamoDB reads | DynamoDB writes | S3 PUTs | Lambda | SQS | Total |',
    '|---|---|---|---|---|---|---|',
    costRow(
      `backfill: ${round(b.logs / b.s3Puts, 0)} logs per batch, 10 batches per drain`,
      r.cost.fullBatches,
    ),
    costRow(
      `follow: ${round(r.follow.commits / r.follow.s3Puts, 2)} logs per batch, 1 batch per drain (a quiet ledger)`,
      r.cost.followBatches,
    ),
    '',
    "The follow figures are the same commits' requests with the pipeline running minus with it stopped; they include",
    "the local stream poller's checkpoint writes, which on AWS the event source mapping keeps for nothing.",
    '',
  ].join('\n');
}
