import { type DynamoFloorResult, renderDynamoFloor } from './dynamo-floor.js';
import { type ExportBenchResult, renderExport } from './export-pipeline.js';
import { type BeyondCostResult, renderBeyondCosts } from './ledger-beyond-cost.js';
/** Renders bench/results.json as bench/report.md: every figure with what produced it, targets met or missed. */

import { withoutEnvironment } from '../lib/environments/key-scope.js';
import type { AuthResult } from './auth-load.js';
import {
  type AwsSimulationResult,
  awsSimulationTargetRow,
  renderAwsSimulation,
} from './aws-sim/measure.js';
import { type ColdStartResult, MAX_BUNDLE_BYTES, MAX_IMPORT_RATIO } from './cold-start.js';
import type { CostModel } from './cost-model.js';
import type { GroupCommitCostResult } from './group-commit-cost.js';
import {
  type HistoryResult,
  ledgerHistoryTargetRow,
  renderLedgerHistory,
} from './ledger-history.js';
import type { LedgerLoadResult } from './ledger-load.js';
import type { LedgerCell, LedgerScenariosResult } from './ledger-matrix.js';
import { engineTargetRows } from './ledger-targets.js';
import type { NumscriptBenchResult } from './numscript.js';
import type { OperationCostResult } from './operation-cost.js';
import { MIN_SIGNING_RATIO, type SigningResult } from './signing.js';
import { MAX_P50_DELIVERY_MS, type WebhookResult } from './webhook-latency.js';

export interface BenchResults {
  machine: {
    date: string;
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
    commit: string;
    /** The working tree had uncommitted changes to tracked files when the bench ran. */
    dirty: boolean;
    durationS: number;
  };
  coldStart: ColdStartResult;
  operationCosts: OperationCostResult;
  costModel: CostModel;
  ledgerLoad: LedgerLoadResult;
  auth: AuthResult;
  webhooks: WebhookResult;
  signing: SigningResult;
  /** Absent in results written before Numscript existed. */
  numscript?: NumscriptBenchResult;
  ledgerScenarios: LedgerScenariosResult;
  groupCommitCost: GroupCommitCostResult;
  /** Absent in results written before the AWS simulation existed. */
  awsSimulation?: AwsSimulationResult;
  /** Absent in results written before the history part existed. */
  ledgerHistory?: HistoryResult;
  /** Absent in results written before the floor part existed. */
  dynamoFloor?: DynamoFloorResult;
  /** Absent in results written before the export part was in the full run. */
  export?: ExportBenchResult;
  /** Absent in results written before the beyond-the-reference part was in the full run. */
  beyond?: BeyondCostResult;
}

/** What an item is, from its key (docs/data-model.md). */
export function itemKind(scopedPk: string, sk: string): string {
  // Environment data's keys start `E#<environment>#`: the kind is in what follows.
  const pk = withoutEnvironment(scopedPk);
  if (sk === 'HEAD') return 'ledger HEAD (sequencer)';
  if (pk.startsWith('EVENT#')) return 'event (outbox)';
  if (pk.startsWith('DELIVERY#'))
    return sk.startsWith('ATTEMPT#') ? 'delivery attempt' : 'delivery';
  if (pk.startsWith('DELIVERIES#')) return 'delivery list index';
  const rules: Array<[RegExp, string]> = [
    [/#LOG$/, 'log entry'],
    [/#TX(#[0-9]+)?$/, 'transaction'],
    [/#MV#/, 'move page (8 moves of a pair)'],
    [/#MVL#/, 'late move (back-dated)'],
    [/#TMD#/, 'transaction metadata index'],
    [/#SEG#/, 'address segment index'],
    [/#IK#/, 'idempotency record'],
    [/#REF#/, 'reference'],
    [/#TXMH#/, 'transaction metadata revision'],
    [/#AMD#/, 'account metadata index'],
  ];
  for (const [re, name] of rules) if (re.test(pk)) return name;
  if (/#A#/.test(pk))
    return sk.startsWith('V#')
      ? 'volumes (balance, move buffer)'
      : sk.startsWith('MH#')
        ? 'account metadata revision'
        : 'account';
  return pk.split('#')[0] ?? pk;
}

export const MAX_ROUND_TRIPS = 2;
export const MAX_BATCH_WRITE_UNITS = 7;
export const MAX_WRITE_UNITS = 12;

function countKinds(actions: Array<{ pk: string; sk: string }>): string {
  const counts = new Map<string, number>();
  for (const a of actions)
    counts.set(itemKind(a.pk, a.sk), (counts.get(itemKind(a.pk, a.sk)) ?? 0) + 1);
  return [...counts].map(([k, n]) => (n > 1 ? `${n} ${k}` : k)).join(', ');
}

const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const table = (head: string[], rows: Array<Array<string | number>>) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** Section 1 on its own: also what `BENCH_ONLY=cold-start` prints. */
export function renderColdStart(cs: ColdStartResult): string {
  const coldRows = cs.bundles.map((b) => [
    b.name,
    kb(b.bytes),
    kb(b.laterBytes),
    b.importMedianMs,
    `${b.importMinMs}–${b.importMaxMs}`,
    `${b.ratioToReference}×`,
    mark(b.sizeOk),
    mark(b.importOk),
    b.exportsHandler ? 'yes' : '**no**',
  ]);
  coldRows.unshift([
    'reference (Hono + DynamoDB document client)',
    kb(cs.reference.bytes),
    kb(cs.reference.laterBytes),
    cs.reference.importMedianMs,
    `${cs.reference.importMinMs}–${cs.reference.importMaxMs}`,
    '1×',
    '',
    '',
    'yes',
  ]);

  return `## 1. Cold start

${cs.source}. Import time is the \`import()\` of the bundle alone (module evaluation included: the
functions build their clients and apps at import), with a function-like environment and fake credentials.
Bundles are split (infra/bundling.ts): *Size* is what a cold start loads (the entry and the chunks it imports
statically); *Later* is in chunks loaded at a first use through \`import()\` (the ledger's Numscript and SQS relay,
the SDK's event streams), or never.

${table(['Bundle', 'Size', 'Later', 'Import median (ms)', 'min–max (ms)', 'vs reference', 'Size target', 'Import target', 'Exports handler'], coldRows)}`;
}

export function renderReport(r: BenchResults): string {
  const m = r.machine;
  const cs = r.coldStart;
  const ops = r.operationCosts.operations;
  const tx1 = ops.find((o) => o.operation === 'create transaction, 1 posting, existing accounts')!;
  const tx1New = ops.find(
    (o) => o.operation === 'create transaction, 1 posting, new destination account',
  )!;
  const slowBundles = cs.bundles.filter((b) => !b.importOk);
  const bigBundles = cs.bundles.filter((b) => !b.sizeOk);
  const load = r.ledgerLoad.rows;
  const one = load[0]!;
  const cost = r.costModel;
  const dynamoShare = (lines: CostModel['ledgerOnly']) =>
    Math.round(
      (100 *
        lines.lines
          .filter((l) => l.component.startsWith('DynamoDB'))
          .reduce((s, l) => s + l.dollarsPerMillion, 0)) /
        lines.total,
    );
  const writeShare = Math.round(
    (100 *
      cost.withOneWebhook.lines
        .filter((l) => l.component.startsWith('DynamoDB writes'))
        .reduce((s, l) => s + l.dollarsPerMillion, 0)) /
      cost.withOneWebhook.total,
  );
  const sig = r.signing.rows;
  const kinds = countKinds(tx1.transactWriteActions ?? []);
  const deliveryOps = ops.filter(
    (o) =>
      (o.operation.startsWith('webhook dispatch') && o.operation.includes('warm')) ||
      o.operation.startsWith('webhook delivery'),
  );
  const deliveryWru = deliveryOps.reduce((t, o) => t + o.writeUnitsByRules, 0);
  const overKb = ops
    .flatMap((o) => o.transactWriteActions ?? [])
    .filter((a) => a.bytes > 1024 && a.bytes <= 1124);

  const gcFull = r.groupCommitCost.batches.at(-1);
  const targets = table(
    ['Target', 'Figure', 'Result'],
    [
      [
        `Import time ≤ ${MAX_IMPORT_RATIO}× the reference bundle (median)`,
        `${cs.bundles.length} bundles, ratios ${Math.min(...cs.bundles.map((b) => b.ratioToReference))}–${Math.max(...cs.bundles.map((b) => b.ratioToReference))}×`,
        slowBundles.length
          ? `**missed** by ${slowBundles.map((b) => b.name).join(', ')}`
          : 'met by every bundle',
      ],
      [
        `Bundle ≤ 600 KB (${MAX_BUNDLE_BYTES.toLocaleString('en')} bytes)`,
        `largest ${kb(Math.max(...cs.bundles.map((b) => b.bytes)))}`,
        bigBundles.length
          ? `**missed** by ${bigBundles.map((b) => b.name).join(', ')}`
          : 'met by every bundle',
      ],
      [
        `1-posting transaction: ≤ ${MAX_ROUND_TRIPS} DynamoDB round trips`,
        `${tx1.requests} (${Object.entries(tx1.byOperation)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')})`,
        mark(tx1.requests <= MAX_ROUND_TRIPS),
      ],
      [
        `1-posting transaction: ≤ ${MAX_WRITE_UNITS} write units, everything included`,
        `${tx1.writeUnitsByRules} WRU by DynamoDB's rules (${tx1.transactWriteActions?.length ?? '?'} items); DynamoDB Local reports ${tx1.writeUnits}`,
        mark(tx1.writeUnitsByRules <= MAX_WRITE_UNITS),
      ],
      [
        `Webhook commit → first delivery p50 ≤ ${MAX_P50_DELIVERY_MS} ms`,
        `p50 ${r.webhooks.latency.p50Ms} ms, p99 ${r.webhooks.latency.p99Ms} ms`,
        mark(r.webhooks.latency.ok),
      ],
      [
        `Group commit: ≤ ${MAX_BATCH_WRITE_UNITS} WRU per transaction in full batches`,
        `${gcFull?.wruPerTransaction ?? '?'} WRU per transaction at ${gcFull?.k ?? '?'} per commit (the most that fit); ${r.groupCommitCost.batches.map((b) => `${b.wruPerTransaction} at ${b.k}`).join(', ')}`,
        mark((gcFull?.wruPerTransaction ?? Infinity) <= MAX_BATCH_WRITE_UNITS),
      ],
      ...engineTargetRows(r.ledgerScenarios.cells),
      awsSimulationTargetRow(r.awsSimulation),
      ledgerHistoryTargetRow(r.ledgerHistory),
      [
        'Ledger money invariants hold after every load run',
        `${r.ledgerScenarios.cells.filter((c) => c.invariants.ok).length}/${r.ledgerScenarios.cells.length} runs (${r.ledgerScenarios.matrix} matrix)`,
        r.ledgerScenarios.ok ? 'met' : '**FAILED** (see section 6)',
      ],
      ...(r.beyond?.pendingMoney
        ? [
            [
              'Money invariants over held money (pending transfers), after the holds cells',
              `${r.beyond.pendingMoney.openHolds} holds open, ${r.beyond.pendingMoney.heldTotal} held${r.beyond.pendingMoney.ok ? '' : `: ${r.beyond.pendingMoney.failures.join('; ')}`}`,
              r.beyond.pendingMoney.ok ? 'met' : '**FAILED**',
            ],
          ]
        : []),
      [
        `Signing ≥ ${MIN_SIGNING_RATIO}× standardwebhooks`,
        sig.map((s) => `${s.ratio}× at ${s.payloadBytes} B`).join(', '),
        sig.every((s) => s.ok)
          ? 'met at every size'
          : `**missed** at ${sig
              .filter((s) => !s.ok)
              .map((s) => `${s.payloadBytes} B`)
              .join(', ')}`,
      ],
    ],
  );

  const opRows = ops.map((o) => [
    o.operation,
    o.outcome,
    o.requests,
    Object.entries(o.byOperation)
      .map(([k, v]) => `${v} ${k}`)
      .join(', '),
    o.readUnits,
    o.writeUnits,
    o.writeUnitsByRules,
    o.sqsRequests ?? '',
  ]);

  const costRows = (lines: CostModel['ledgerOnly']['lines']) =>
    lines.map((l) => [l.component, l.units, `$${l.dollarsPerMillion.toFixed(3)}`, l.basis]);

  return `# Benchmarks

Written by \`npm run bench\` (\`bench/run.ts\`) on ${m.date} from commit \`${m.commit}\`${m.dirty ? ' plus uncommitted changes in the working tree' : ''}, in ${m.durationS} s.
Raw figures: [\`results.json\`](results.json).

**Machine:** ${m.cpus} cores (\`os.cpus().length\`, ${m.cpuModel}), ${m.memoryGb} GB, ${m.platform}, Node.js ${m.node}.
Load average at start ${m.loadAverageAtStart.join(' / ')}, at end ${m.loadAverageAtEnd.join(' / ')} (1/5/15 min): the machine
is shared, so absolute timings carry that noise; ratios measured side by side in one run are the sturdier figures.

> **This is not AWS.** Latency and throughput come from the *local platform* (\`infra/local/platform.ts\`):
> DynamoDB Local (one JVM, in memory), the fauxqs SQS emulator and the Hono apps behind one Node HTTP server, with
> the load generator in the same process, all on the ${m.cpus} cores above. DynamoDB Local does not model
> DynamoDB's latency, partitions or throttling. Capacity units are DynamoDB Local's own accounting
> (\`ReturnConsumedCapacity\`) except where marked *by DynamoDB's rules*. Dollar figures are a model.

## Targets

${targets}

${renderColdStart(cs)}

## 2. Cost per operation

${r.operationCosts.source}. Warm container: signing keys, JWKS and the ledger record are cached by earlier calls.
The ledger has the default features (all on). "WRU reported" is what DynamoDB Local returned; for
\`TransactWriteItems\` it is wrong — DynamoDB Local adds up the sizes of all items a transaction writes to a table
and rounds once (three 100-byte items → 2 units), where DynamoDB charges each item 2 × ceil(size / 1 KB). "WRU by
DynamoDB's rules" therefore *computes* each \`TransactWriteItems\` from the item sizes read before and after it
(larger of the two; +1 × ceil(size / 1 KB) for an item in the global index) and keeps the reported figure for every
other request. Read units and all other write units are measured (DynamoDB Local's figures match the rules for
single-item and batch operations). Failed requests report no capacity.

${table(['Operation', 'Outcome', 'Round trips', 'Requests', 'RRU', 'WRU reported', 'WRU by DynamoDB rules', 'SQS requests'], opRows)}

What the \`TransactWriteItems\` of a 1-posting transaction between existing accounts, of a warm dispatch and of a
delivery write, item by item, by DynamoDB's rules (an item over 1,024 bytes costs two blocks):

${breakdown('create transaction, 1 posting, existing accounts')}

${renderGroupCommitCost(r.groupCommitCost)}

${breakdown('webhook dispatch of 1 event, 1 subscribed config (config cache warm)')}

${breakdown('webhook delivery of 1 message (signed POST, 204 answer)')}

A first transaction to a new account costs ${tx1New.writeUnitsByRules} WRU; with 5 postings, see the table above.

### Modelled dollars per million single-posting transactions

Prices as used, ${cost.prices.region}, as of ${cost.prices.asOf}:
${cost.prices.notes.map((n) => `- ${n}`).join('\n')}

Assumptions (not measured): ledger Lambda ${cost.assumptions.ledgerLambdaMemoryGb} GB for ${cost.assumptions.ledgerLambdaMs} ms
(${cost.assumptions.ledgerLambdaMsBasis}); dispatch ${cost.assumptions.dispatchLambdaMemoryGb} GB, ${cost.assumptions.dispatchMsPerInvocation} ms per
invocation of ${cost.assumptions.dispatchEventsPerInvocation} events; deliver ${cost.assumptions.deliverLambdaMemoryGb} GB, ${cost.assumptions.deliverMsPerInvocation} ms per
invocation of ${cost.assumptions.deliverMessagesPerInvocation} messages; DynamoDB Streams reads by Lambda are free. DynamoDB units are the measured
(write: by DynamoDB's rules) figures above: the 1-posting transaction between existing accounts, a warm dispatch and one delivery.

Ledger transaction alone — **$${cost.ledgerOnly.total.toFixed(2)} per million**:

${table(['Component', 'Units per transaction', '$ per million', 'Basis'], costRows(cost.ledgerOnly.lines))}

With one webhook subscriber delivered once — **$${cost.withOneWebhook.total.toFixed(2)} per million**:

${table(['Component', 'Units per transaction', '$ per million', 'Basis'], costRows(cost.withOneWebhook.lines))}

## 3. Ledger throughput and latency

${r.ledgerLoad.source}. Every request is a single-posting transaction from \`world\` to the client's own account.
"Conflict retries" are \`TransactionCanceledException\` answers to the writer's \`TransactGetItems\`/\`TransactWriteItems\`
(each makes it read and decide again; after 10 attempts it answers 503).

${table(
  [
    'Scenario',
    'Committed',
    'tx/s',
    'p50 (ms)',
    'p99 (ms)',
    'max (ms)',
    'Conflict retries',
    'Retries per commit',
    'Non-200 answers',
  ],
  load.map((x) => [
    x.scenario,
    x.committed,
    x.committedPerSec,
    x.p50Ms,
    x.p99Ms,
    x.maxMs,
    x.conflictRetries,
    x.retriesPerCommit,
    Object.keys(x.failures).length
      ? Object.entries(x.failures)
          .map(([k, v]) => `${v}× ${k}`)
          .join(', ')
      : 'none',
  ]),
)}

## 4. Auth

${r.auth.source}.

${table(
  ['Measure', 'Figure'],
  [
    [
      'Token endpoint throughput',
      `${r.auth.tokenEndpoint.requestsPerSec} tokens/s (${r.auth.tokenEndpoint.count} in ${r.auth.tokenEndpoint.durationS} s, ${r.auth.tokenEndpoint.clients} clients)`,
    ],
    [
      'Token endpoint latency',
      `p50 ${r.auth.tokenEndpoint.p50Ms} ms, p99 ${r.auth.tokenEndpoint.p99Ms} ms`,
    ],
    [
      'Token endpoint non-200 answers',
      Object.keys(r.auth.tokenEndpoint.failures).length
        ? JSON.stringify(r.auth.tokenEndpoint.failures)
        : 'none',
    ],
    [
      'GET /api/ledger/_health (no token)',
      `p50 ${r.auth.verification.httpWithoutAuth.p50Ms} ms, p99 ${r.auth.verification.httpWithoutAuth.p99Ms} ms`,
    ],
    [
      'GET /api/ledger/_info (bearer verified)',
      `p50 ${r.auth.verification.httpWithAuth.p50Ms} ms, p99 ${r.auth.verification.httpWithAuth.p99Ms} ms`,
    ],
    ['Added by verification over HTTP (p50 difference)', `${r.auth.verification.addedP50Ms} ms`],
    [
      'TokenVerifier.verify in-process (median, keys cached)',
      `${r.auth.verification.verifyInProcessMedianUs} µs`,
    ],
  ],
)}

## 5. Webhooks

${r.webhooks.source}. Deliveries carried both signature header sets: ${r.webhooks.signedHeaders ? 'yes' : '**no**'}.
The burst's end-to-end deliveries/s is bounded by the commit rate when delivery keeps pace; when a backlog is left
after the last commit, its drain rate is the pipeline's own (the local queue poller hands \`deliver\` one batch of
up to 10 messages at a time).

${table(
  ['Measure', 'Figure'],
  [
    [
      'Commit → first delivery',
      `p50 ${r.webhooks.latency.p50Ms} ms, p99 ${r.webhooks.latency.p99Ms} ms, max ${r.webhooks.latency.maxMs} ms (${r.webhooks.latency.count} transactions, ${r.webhooks.latency.undelivered} undelivered) — target p50 ≤ ${MAX_P50_DELIVERY_MS} ms ${mark(r.webhooks.latency.ok)}`,
    ],
    [
      'Burst: commits',
      `${r.webhooks.burst.transactions} transactions from ${r.webhooks.burst.clients} clients (one ledger each) in ${r.webhooks.burst.commitS} s: ${r.webhooks.burst.commitsPerSec} commits/s`,
    ],
    [
      'Burst: deliveries',
      `${r.webhooks.burst.delivered}/${r.webhooks.burst.transactions} delivered, last one ${r.webhooks.burst.lagAfterLastCommitS} s after the last commit: ${r.webhooks.burst.deliveriesPerSec} deliveries/s from the first commit to the last delivery`,
    ],
    [
      'Burst: backlog drain',
      r.webhooks.burst.drainAfterCommitsPerSec === null
        ? 'no backlog (delivery kept pace with the commits)'
        : `${r.webhooks.burst.drainAfterCommitsPerSec} deliveries/s after the last commit (the delivery pipeline's own rate while it had a backlog)`,
    ],
  ],
)}

Signing: ${r.signing.source}.

${table(
  [
    'Payload',
    'Project signer (ops/s)',
    'standardwebhooks (ops/s)',
    'Ratio',
    `Target ≥ ${MIN_SIGNING_RATIO}×`,
  ],
  sig.map((s) => [
    `${s.payloadBytes} B`,
    s.projectOpsPerSec.toLocaleString('en'),
    s.libraryOpsPerSec.toLocaleString('en'),
    `${s.ratio}×`,
    mark(s.ok),
  ]),
)}

${r.numscript ? renderNumscript(r.numscript) : ''}

${renderLedgerScenarios(r.ledgerScenarios)}
${r.dynamoFloor ? renderDynamoFloor(r.dynamoFloor) : ''}
${r.awsSimulation ? renderAwsSimulation(r.awsSimulation) : ''}
${r.beyond ? renderBeyondCosts(r.beyond) : ''}
${r.export ? renderExport(r.export) : ''}
${r.ledgerHistory ? renderLedgerHistory(r.ledgerHistory) : ''}

## 7. Reading

${reading()}
`;

  function breakdown(name: string): string {
    const op = ops.find((o) => o.operation === name);
    if (!op?.transactWriteActions) return `(${name}: no TransactWriteItems)`;
    return `*${name}* — ${op.transactWriteActions.reduce((t, a) => t + a.units, 0)} WRU:\n\n${table(
      ['Action', 'Item', 'Key (pk / sk)', 'Bytes', 'WRU'],
      op.transactWriteActions.map((a) => [
        a.action,
        itemKind(a.pk, a.sk),
        `\`${a.pk}\` / \`${a.sk}\``,
        a.bytes,
        a.units,
      ]),
    )}`;
  }

  /** The matrix in one sentence: best throughput per worker count, and the crash cell. */
  function matrixSummary(): string {
    const cells = r.ledgerScenarios.cells;
    const byWorkers = [...new Set(cells.map((c) => c.workers))].map((w) => {
      const best = cells
        .filter((c) => c.workers === w && c.writerKills === undefined)
        .sort((a, b) => b.committedPerSec - a.committedPerSec)[0]!;
      return `${w} worker${w === 1 ? '' : 's'}: best ${best.committedPerSec} tx/s (${best.scenario}, ${best.clients} client${best.clients === 1 ? '' : 's'}, p99 ${best.p99Ms} ms)`;
    });
    const crash = cells.find((c) => c.writerKills !== undefined);
    return `${byWorkers.join('; ')}${crash ? `; with the writer killed ${crash.writerKills}× during the load, ${crash.committedPerSec} tx/s, ${answers(crash.statuses)}, invariants ${crash.invariants.ok ? 'intact' : 'BROKEN'}` : ''}; every invariant held in ${cells.filter((c) => c.invariants.ok).length}/${cells.length} runs`;
  }

  function bestPerCpu(): number {
    return Math.max(...r.ledgerScenarios.cells.map((c) => c.committedPerCpuSecond ?? 0));
  }

  function reading(): string {
    const single = load.filter((x) => x.ledgers === 1);
    const first =
      deliveryWru > tx1.writeUnitsByRules ? 'the webhook delivery path' : 'the ledger commit';
    return [
      `Time: a single-posting commit is ${tx1.requests} DynamoDB round trips and ${one.p50Ms} ms at p50 with one client on this loaded ${m.cpus}-core machine.`,
      `Every commit of a ledger passes its HEAD item, so one ledger commits one DynamoDB transaction at a time. The platform's default 4 ledger workers`,
      `give one ledger ${single.map((x) => `${x.clients} → ${x.committedPerSec} tx/s`).join(', ')} (section 5); the write-path matrix (section 6) runs 1, 8 and 32 independent worker processes:`,
      `${matrixSummary()}.`,
      `That is far from 1,000 tx/s, and the bound is this machine, not the protocol: DynamoDB Local spends about 1 ms of CPU per item it writes in a`,
      `TransactWriteItems (stream and index included) and several ms per request under concurrency, so with both cores shared by the JVM, the workers, the writer and`,
      `the load generator, the whole machine commits ${bestPerCpu()} transactions per busy CPU-second at best (\`bench/profile-dynamodb-local.ts\` samples the emulator: mostly JSON and HTTP handling);`,
      `group commit then saves items per transaction (${r.groupCommitCost.batches.map((b) => `${b.wruPerTransaction} WRU at ${b.k}`).join(', ')})`,
      `but not enough emulator time to pay for the relay's extra requests (an SQS message, ~1.5 result reads, a result write per transaction).`,
      `On AWS the same design is bounded by DynamoDB's transaction latency instead: at about 30–60 ms per 100-item TransactWriteItems (an estimate: not measured on AWS from here),`,
      `${r.groupCommitCost.largestBatch} transactions per commit (one log page, the transactions in pages written after the commit) give roughly ${Math.round((r.groupCommitCost.largestBatch * 1000) / 60)}–${Math.round((r.groupCommitCost.largestBatch * 1000) / 30)} tx/s per ledger.`,
      `Webhooks add p50 ${r.webhooks.latency.p50Ms} ms after the commit, much of it the pollers' cadence (the stream is polled every 200 ms when idle);`,
      r.webhooks.burst.drainAfterCommitsPerSec === null
        ? `in a burst, delivery kept pace with ${r.webhooks.burst.commitsPerSec} commits/s.`
        : `in a burst of ${r.webhooks.burst.commitsPerSec} commits/s delivery fell behind and drained at ${r.webhooks.burst.drainAfterCommitsPerSec} deliveries/s, one batch of 10 at a time.`,
      `The project's signer is ${sig.map((x) => `${x.ratio}×`).join(' / ')} the standardwebhooks library at ${sig.map((x) => `${x.payloadBytes}`).join(' / ')}-byte payloads${sig.every((x) => x.ok) ? '' : `, under the ${MIN_SIGNING_RATIO}× target for the smallest, where fixed per-call costs weigh most`}.`,
      `Money: DynamoDB is ${dynamoShare(cost.withOneWebhook)} % of the modelled $${cost.withOneWebhook.total.toFixed(2)} per million transactions with one webhook, write units alone ${writeShare} %.`,
      `The commit writes ${tx1.transactWriteActions?.length ?? '?'} items (${kinds}) at 2 WRU or more each: ${tx1.writeUnitsByRules} WRU against the target of ${MAX_WRITE_UNITS}${tx1.writeUnitsByRules > MAX_WRITE_UNITS ? ', missed' : ''};`,
      `one delivery (dispatch + deliver) writes another ${deliveryWru} WRU${overKb.length ? `, partly because ${[...new Set(overKb.map((a) => itemKind(a.pk, a.sk)))].join(' and ')} items are just over 1 KB (${[...new Set(overKb.map((a) => a.bytes))].join(', ')} bytes), which doubles their blocks` : ''}.`,
      `The next lever is the number and size of items per write, starting with ${first}: index and history items that are written synchronously on every commit or delivery`,
      `(the delivery list indexes; the ledger's account index and moves history now ride in its volume items) cost 2 WRU each and could be written by a stream consumer instead;`,
      `keeping records under 1 KB (the delivery's body could stay in the event) halves theirs.`,
    ].join(' ');
  }
}

/** Numscript: the interpreter alone (pure CPU), per operation. */
export function renderNumscript(n: NumscriptBenchResult): string {
  const row = (name: string, t: NumscriptBenchResult['cold']) => [
    name,
    t.p50Micros,
    t.p99Micros,
    t.meanMicros,
    t.samples,
  ];
  return `Numscript (\`lib/numscript\`, pure CPU, in this process): a 3-destination script (${n.postingsPerRun} postings per run) with variables, a
portion and \`remaining\`. *Cold* compiles from text every time; *cached* takes the program from the cache by text, as a
ledger container does for a script it has seen.

${table(['Operation', 'p50 (µs)', 'p99 (µs)', 'mean (µs)', 'Samples'], [row('parse + check + run (cold)', n.cold), row('run, program cached', n.cached), row('parse + check only', n.compileOnly)])}`;
}

/** Write units per transaction of group commit, by batch size. */
export function renderGroupCommitCost(g: GroupCommitCostResult): string {
  return `### Group commit: write units per transaction by batch size

${g.source}; by DynamoDB's rules (each TransactWriteItems computed item by item; the writes after it — the new
transactions' items by BatchWriteItem, the result items, HEAD's settle mark — as reported, which for single-item and
batch writes matches the rules). The commit holds HEAD, one log page, the volumes and move pages. The largest batch
one TransactWriteItems holds (100 actions) is **${g.largestBatch}** 1-posting transactions.

${table(
  [
    'Transactions per commit',
    'Items in the TransactWriteItems',
    'WRU per transaction',
    'of which the commit',
    'of which after it (transaction, result, settle)',
    'RRU per transaction',
  ],
  g.batches.map((b) => [
    b.k,
    b.items,
    b.wruPerTransaction,
    b.commitWruPerTransaction,
    b.afterCommitWruPerTransaction ??
      (b as { resultWruPerTransaction?: number }).resultWruPerTransaction,
    b.rruPerTransaction,
  ]),
)}`;
}

/** How a ledger matrix cell is named in the bench's log and the report. */
export const cellName = (
  c: Pick<LedgerCell, 'scenario' | 'workers' | 'clients'> & {
    writerKills?: number;
    scaled?: boolean;
    keyed?: boolean;
  },
) =>
  `${c.scenario}${c.writerKills !== undefined ? ' (writer killed)' : ''}${c.keyed ? ' (Idempotency-Key on every request)' : ''}, ${c.workers === 'embedded' ? 'embedded ledger' : `${c.workers} workers${c.scaled ? ' (one per client)' : ''}`}, ${c.clients} client${c.clients === 1 ? '' : 's'}`;

const answers = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${n}× ${k}`)
    .join(', ') || 'none';

/** The ledger write-path section: one row per scenario × workers × clients, then every invariant across the runs. */
export function renderLedgerScenarios(l: LedgerScenariosResult): string {
  const names = [...new Set(l.cells.flatMap((c) => c.invariants.invariants.map((i) => i.name)))];
  const invariantRows = names.map((name) => {
    const checked = l.cells
      .map((c) => ({ cell: c, result: c.invariants.invariants.find((i) => i.name === name) }))
      .filter((x) => x.result);
    const failed = checked.filter((x) => !x.result!.ok);
    return [
      name,
      `${checked.length - failed.length}/${checked.length}`,
      failed.length
        ? failed.map((x) => `**${cellName(x.cell)}:** ${x.result!.detail}`).join('<br>')
        : 'none',
    ];
  });
  const hot = l.cells
    .filter((c) => c.scenario === 'hot-spend')
    .map(
      (c) =>
        `${cellName(c)}: ${c.invariants.invariants.find((i) => i.name.startsWith('hot-spend'))?.detail}`,
    );
  const uncertain = l.cells.filter((c) => c.uncertain > 0);
  return `## 6. Ledger write path: scenarios and invariants

${l.source}. Matrix \`${l.matrix}\` (\`BENCH_LEDGER_MATRIX=quick|full\`). ${
    l.workerProcesses
      ? "Workers: *embedded* is `npm start`'s default (the ledger in the platform's process, every write through its group commit, DynamoDB Local on disk with the durability barrier); a number is the Lambda-faithful mode (that many worker processes, the ledger writer fed by the ingress queue, DynamoDB Local in memory); *one per client* rows start as many worker processes as clients, as Lambda runs a container per request in flight."
      : 'Every row ran the embedded ledger.'
  }
Scenarios: *world-to-any* (\`world → users:<1 of 1000>\`, 1–100 cents of USD/2); *any-to-any* (200 accounts funded with
10,000 each, then random transfers of 1–100 between them, one in ten for more than all of them hold, which must be refused
with \`400 INSUFFICIENT_FUND\`); *hot-pair* (\`world → bank\` on every transaction, the reference's worst case); *hot-spend* (one account funded with exactly ${l.hotSpendBudget}, every client spending 1–5 from it
until it is empty); *writer killed*: world-to-any while the ledger writer process is killed (SIGKILL) every 1.5 s.
"tx per CPU-second" divides committed transactions by the busy CPU time of the whole machine during the load (both
cores, /proc/stat: DynamoDB Local, the ledger workers and writer, the gateway and the load generator together); "CPU-ms per
tx" is its inverse, and "by process" splits it: the bench process (the gateway, the in-process services and pollers,
and the load generator's thread), DynamoDB Local's JVM, the ledger worker processes, the writer. "DynamoDB requests per tx" counts the requests this process's clients made during the load (for the
embedded ledger, all of its requests, the durability barrier and the stream pollers' checkpoints included; with worker
processes only the gateway's own), per committed transaction. With worker processes, "requests per tx at the
emulators' ports" counts every process's requests to DynamoDB Local and the SQS emulator, through a counting proxy in
front of each (in the bench process, whose CPU includes the proxies'), by operation; \`!Error\` marks refused ones.
tx/s and latency count acknowledged (2xx) requests of the timed phase only; no request was retried, and none carried
an \`Idempotency-Key\`, as the issue's load check sent none; the *Idempotency-Key on every request* cell sends a unique key
with each, which adds an idempotency record (an item) per request to the commit. "Unanswered, committed" counts requests
answered 503/504 or lost to a network error whose transaction exists nevertheless (found by its key on its log, or without
one by its postings).

${table(
  [
    'Scenario',
    'Workers',
    'Clients',
    'Requests',
    'Committed',
    'tx/s',
    'tx per CPU-second',
    'CPU-ms per tx',
    'CPU-ms per tx by process',
    'Cores busy (%)',
    'DynamoDB requests per tx (this process)',
    "Requests per tx at the emulators' ports",
    'p50 (ms)',
    'p99 (ms)',
    'Answers',
    'Unanswered, committed',
    'Invariants',
  ],
  l.cells.map((c) => [
    c.writerKills !== undefined ? `${c.scenario}, writer killed ${c.writerKills}×` : c.scenario,
    c.scaled ? `${c.workers} (one per client)` : c.workers,
    c.clients,
    c.requests,
    c.committed,
    c.committedPerSec,
    c.committedPerCpuSecond ?? '—',
    c.cpuMsPerTx ?? '—',
    Object.entries(c.cpuMsPerTxByProcess)
      .map(([role, ms]) => `${role} ${ms}`)
      .join(', '),
    c.coreBusyPercent.join(' / '),
    c.dynamoRequestsPerTx
      ? `${c.dynamoRequestsPerTx.total} (${Object.entries(c.dynamoRequestsPerTx.byOperation)
          .map(([op, n]) => `${op} ${n}`)
          .join(', ')})`
      : '—',
    c.portRequestsPerTx
      ? (['dynamodb', 'sqs'] as const)
          .map(
            (service) =>
              `${service === 'sqs' ? 'SQS' : 'DynamoDB'} ${c.portRequestsPerTx![service].total} (${Object.entries(
                c.portRequestsPerTx![service].byOperation,
              )
                .map(([op, n]) => `${op} ${n}`)
                .join(', ')})`,
          )
          .join('; ')
      : '—',
    c.p50Ms,
    c.p99Ms,
    answers(c.statuses),
    c.uncertain
      ? `${Object.values(c.invariants.committedAfterUncertain).reduce((a, b) => a + b, 0)} of ${c.uncertain} (${answers(c.invariants.committedAfterUncertain)})`
      : '—',
    c.invariants.ok ? 'ok' : '**FAILED**',
  ]),
)}

Invariants, checked after each run through the public API only (transactions, accounts with volumes, aggregated
balances, logs; exact big-integer JSON), against what the clients were told:

${table(['Invariant', 'Runs ok', 'First counter-example'], invariantRows)}

Hot spend: ${hot.length ? hot.join('; ') : 'not run'}.
${uncertain.length ? `Runs with unanswered requests: ${uncertain.map((c) => `${cellName(c)}: ${c.uncertain}`).join('; ')}.` : 'Every request got a definite answer (no 503, 504 or network error).'}
**Verdict: ${l.ok ? 'every invariant held in every run' : 'AT LEAST ONE INVARIANT FAILED — the run exits non-zero'}.**`;
}
