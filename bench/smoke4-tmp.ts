import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { startPlatform } from '../infra/local/platform.js';
import { runScenario } from './ledger-scenarios.js';
import { fetchToken } from './http.js';
const dl = await startDynamoLocal();
const p = await startPlatform({ port: 0, dynamoEndpoint: dl.endpoint, resourcePrefix: 'smoke-', env: { LOG_LEVEL: 'warn' }, ledgerWorkers: 6 });
try {
  const target = { baseUrl: p.baseUrl, token: await fetchToken(p.baseUrl) };
  const run = await runScenario(target, 'hot-spend', 'hs', { clients: 12, stop: { requests: 400 }, hotSpendBudget: 150n });
  console.log(JSON.stringify(run.statuses), run.record.uncertain.length);
} finally { await p.stop(); await dl.stop(); }
