/**
 * Where the Node.js side's CPU goes in the Lambda-faithful mode (`npx tsx bench/profile-platform.ts [workers]`,
 * default 32): a local platform with a ledger worker process per client, as Lambda scales, world→any from as many
 * clients for 15 s after a warm-up. V8's sampling profiler runs in every ledger worker and the writer (`--cpu-prof`)
 * and in this process's main thread (the gateway, the other services and the SQS emulator; the load runs in a
 * thread of its own); every process's samples are counted within the measured load only (profiles share the
 * machine's monotonic clock). Prints tx/s, CPU-ms per committed transaction by
 * process, and each kind of process's self time by place (npm package, project folder, Node.js module), bundled
 * code traced back through its source maps. DynamoDB Local's side: bench/profile-dynamodb-local.ts.
 * Not part of `npm run bench`: a profiler slows what it measures (sampling every 4 ms, ≈ 10 % here).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { temporaryFunctionBundles } from '../infra/local/lambda/function-bundles.js';
import { startPlatform } from '../infra/local/platform.js';
import { startSqsLocal } from '../infra/local/sqs-local.js';
import { addInto, type CpuProfile, SourceMaps, selfMsByPlace } from './cpu-profile-summary.js';
import { fetchToken } from './http.js';
import { cpuSecondsByRole } from './process-tree.js';
import { runScenarioInThread } from './scenario-thread.js';

const workers = Number(process.argv[2] ?? 32);
const MEASURED_SECONDS = 15;
const SAMPLING_INTERVAL_US = 4000;
const TOP_PLACES = 14;

const dir = mkdtempSync(path.join(os.tmpdir(), 'platform-profile-'));
const bundles = await temporaryFunctionBundles();
const dynamo = await startDynamoLocal({ compiler: 'optimizing' });
const sqs = await startSqsLocal();
const tag = Date.now().toString(36);
const platform = await startPlatform({
  port: 0,
  variables: { LOG_LEVEL: 'silent' },
  dynamoEndpoint: dynamo.endpoint,
  sqsEndpoint: sqs.endpoint,
  resourcePrefix: `profile-${tag}-`,
  ledgerWorkers: workers,
  functionBundles: bundles.bundles,
  cpuProfileDir: dir,
});
const byKind = new Map<string, Map<string, number>>();
let window: { fromUs: number; toUs: number } | undefined;
try {
  const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
  // Every container serves before the measure (a worker's first requests run cold code).
  for (const scenario of ['world-to-any', 'hot-pair'] as const)
    await runScenarioInThread(target, scenario, `warm-up-${scenario}-${tag}`, {
      clients: workers,
      stop: { seconds: 5 },
      hotSpendBudget: 1n,
    });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  await session.post('Profiler.start');
  const cpuBefore = cpuSecondsByRole();
  const run = await runScenarioInThread(target, 'world-to-any', `profiled-${tag}`, {
    clients: workers,
    stop: { seconds: MEASURED_SECONDS },
    hotSpendBudget: 1n,
  });
  const cpuAfter = cpuSecondsByRole();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const committed = run.record.acknowledged.length;
  console.log(
    `${workers} workers and clients, world→any: ${run.committedPerSec} tx/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms`,
  );
  const cpuLine = [...cpuAfter]
    .map(
      ([role, s]) =>
        `${role} ${(((s - (cpuBefore.get(role) ?? 0)) * 1000) / committed).toFixed(1)}`,
    )
    .join(', ');
  console.log(`CPU-ms per committed transaction: ${cpuLine}`);
  window = { fromUs: profile.startTime, toUs: profile.endTime };
  byKind.set(
    'gateway (this process, main thread)',
    selfMsByPlace(profile as CpuProfile, new SourceMaps()),
  );
} finally {
  await platform.stop();
  await sqs.stop();
  await dynamo.stop();
}
// Written as the workers stopped; read before the bundles (and their source maps) go.
const maps = new SourceMaps();
for (const file of readdirSync(dir)) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const kind = profile.nodes.some((n) => n.callFrame.url.includes('ledger-writer'))
    ? 'ledger writer'
    : 'ledger workers';
  if (!byKind.has(kind)) byKind.set(kind, new Map());
  addInto(byKind.get(kind)!, selfMsByPlace(profile, maps, window));
}
bundles.remove();
rmSync(dir, { recursive: true, force: true });
for (const [kind, places] of byKind) {
  const total = [...places.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${kind}: ${(total / 1000).toFixed(1)} s of samples, self time by place`);
  for (const [place, ms] of [...places].sort((a, b) => b[1] - a[1]).slice(0, TOP_PLACES))
    console.log(`  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${place}`);
}
process.exit(0);
