import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform } from '../infra/local/platform.js';
import { fetchToken } from '../bench/http.js';
import { runScenario } from '../bench/ledger-scenarios.js';
import { installDynamoMeter } from '../bench/dynamo-meter.js';

const meter = installDynamoMeter();
const dataDir = mkdtempSync(join(tmpdir(), 'quick-'));
const workers = process.env.W ? Number(process.env.W) : undefined;
const platform = await startPlatform({ port: 0, dataDir, env: { LOG_LEVEL: 'silent' }, ...(workers ? { ledgerWorkers: workers } : {}) });
const target = { baseUrl: platform.baseUrl, token: await fetchToken(platform.baseUrl) };
for (const scenario of (process.env.S ?? 'world-to-any').split(',')) for (const clients of (process.env.C ?? '1,8,32').split(',').map(Number)) {
  const ledger = `${scenario}-${clients}-${Date.now()}`;
  const before = meter.summary?.() ;
  meter.reset?.();
  const run = await runScenario(target, scenario as never, ledger, { clients, stop: { seconds: Number(process.env.T ?? 6) }, hotSpendBudget: 3000n });
  const calls = meter.summary?.();
  console.log(scenario, clients, run.committedPerSec, 'tx/s p50', run.p50Ms, 'p99', run.p99Ms, JSON.stringify(run.statuses), calls ? JSON.stringify({ perTx: (calls.requests / run.committed).toFixed(2), by: calls.byOperation }) : '');
}
await platform.stop();
process.exit(0);
