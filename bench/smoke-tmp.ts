import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { startPlatform } from '../infra/local/platform.js';
import { fetchToken } from './http.js';
const dl = await startDynamoLocal();
const p = await startPlatform({ port: 0, dynamoEndpoint: dl.endpoint, resourcePrefix: 'smoke-', env: { LOG_LEVEL: 'warn', WRITER_DEBUG: '1' } as any, ledgerWorkers: Number(process.env.W ?? 8), dispatch: process.env.D !== '0' });
try {
  const token = await fetchToken(p.baseUrl);
  const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await fetch(`${p.baseUrl}/api/ledger/v2/smoke`, { method: 'POST', headers: h });
  const statuses: Record<string, number> = {};
  const lat: number[] = [];
  const end = Date.now() + Number(process.env.S ?? 5) * 1000;
  await Promise.all(Array.from({ length: Number(process.env.C ?? 16) }, async (_, c) => {
    let i = 0;
    while (Date.now() < end) {
      const t = performance.now();
      const r = await fetch(`${p.baseUrl}/api/ledger/v2/smoke/transactions`, { method: 'POST', headers: h, body: JSON.stringify({ postings: [{ source: 'world', destination: `users:${c}:${i++}`, amount: 1, asset: 'USD' }] }) });
      const text = await r.text();
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status !== 200 && (statuses[r.status] ?? 0) < 3) console.log(r.status, text.slice(0, 200));
      lat.push(performance.now() - t);
    }
  }));
  lat.sort((a, b) => a - b);
  console.log(JSON.stringify({ statuses, tps: lat.length / Number(process.env.S ?? 5), p50: lat[Math.floor(lat.length / 2)], p99: lat[Math.floor(lat.length * 0.99)] }));
} finally { await p.stop(); await dl.stop(); }
