/**
 * Where the machine's CPU goes under one-ledger load (`npx tsx bench/profile-dynamodb-local.ts`): the local
 * platform with 8 ledger workers, 32 clients of world-to-any for 15 s, with Java Flight Recorder sampling
 * DynamoDB Local's JVM (JDK 17's `jcmd`/`jfr`, no extra install). Prints committed tx/s, the machine's and the
 * JVM's CPU per committed transaction, and the JVM's samples by package (inclusive) — the evidence behind the
 * bench report's "bound by the emulator" reading. Not part of `npm run bench`: it needs a JDK's tools on PATH.
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { startPlatform } from '../infra/local/platform.js';
import { fetchToken } from './http.js';
import { runScenario } from './ledger-scenarios.js';
import { machineBusySeconds, processCpuSeconds } from './process-cpu.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ddb-profile-'));
const recording = path.join(dir, 'dynamodb-local.jfr');
const dynamo = await startDynamoLocal();
const jvm = Number(execSync('pgrep -f DynamoDBLocal.jar | head -1').toString().trim());
const platform = await startPlatform({
  port: 0,
  dynamoEndpoint: dynamo.endpoint,
  resourcePrefix: 'profile-',
  variables: { LOG_LEVEL: 'silent' },
  ledgerWorkers: 8,
});
try {
  const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
  await runScenario(target, 'world-to-any', 'warm-up', {
    clients: 8,
    stop: { requests: 200 },
    hotSpendBudget: 1n,
  });
  execFileSync('jcmd', [
    String(jvm),
    'JFR.start',
    'name=bench',
    'settings=profile',
    `filename=${recording}`,
  ]);
  const [machine0, jvm0] = [machineBusySeconds(), processCpuSeconds(jvm)];
  const run = await runScenario(target, 'world-to-any', 'profiled', {
    clients: 32,
    stop: { seconds: 15 },
    hotSpendBudget: 1n,
  });
  const committed = run.record.acknowledged.length;
  const [machineCpu, jvmCpu] = [machineBusySeconds() - machine0, processCpuSeconds(jvm) - jvm0];
  execFileSync('jcmd', [String(jvm), 'JFR.stop', 'name=bench']);
  console.log(
    `${run.committedPerSec} tx/s; CPU per committed transaction: machine ${((machineCpu * 1000) / committed).toFixed(1)} ms, DynamoDB Local ${((jvmCpu * 1000) / committed).toFixed(1)} ms`,
  );
  const samples = execFileSync('jfr', ['print', '--events', 'jdk.ExecutionSample', recording], {
    maxBuffer: 256 * 1024 * 1024,
  })
    .toString()
    .split('jdk.ExecutionSample')
    .slice(1);
  const byPackage = new Map<string, number>();
  for (const sample of samples) {
    const packages = new Set(
      [...sample.matchAll(/^\s+([\w$.<>]+)\(/gm)].map((m) =>
        m[1]!.split('.').slice(0, 3).join('.'),
      ),
    );
    for (const p of packages) byPackage.set(p, (byPackage.get(p) ?? 0) + 1);
  }
  console.log(`DynamoDB Local, ${samples.length} samples, inclusive by package:`);
  for (const [p, n] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`  ${((100 * n) / samples.length).toFixed(1)}% ${p}`);
} finally {
  await platform.stop();
  await dynamo.stop();
}
