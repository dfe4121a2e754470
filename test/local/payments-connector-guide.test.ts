import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/free-port.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from '../support/platform.js';
import { readmeBlock, runBash } from '../support/readme.js';

/**
 * The payments guide's connector walkthrough (docs/guides/payments.md), run as written: terminal 2 starts the fake
 * provider (`npm run fake-provider`), terminal 1 installs the generic connector against it with a ledger link, waits
 * for its tasks to bring accounts, balances and payments (and the payments into the linked ledger), pools two
 * accounts, and approves a transfer initiation (which reaches the ledger too). The guide's port
 * 8090 is replaced by a free one (the machine may be running other things), nothing else.
 */
let platform: RunningPlatform;

/** How much faster than the machine's the connectors' clock runs here. */
const CONNECTOR_CLOCK_RATE = 10;

beforeAll(async () => {
  // The walkthrough waits for a first run and for the next one a polling period (30 s, the least allowed) later.
  // Here the connectors' timer looks for due schedules every second instead of npm start's 10 s, and its clock
  // runs ten times faster than the machine's, so that period passes in 3 s: every step and output is the same,
  // without 30 s of waiting. (A run that finds a balance unchanged extends its period, so the extra runs before
  // the transfer add none.)
  const startedAtMs = Date.now();
  platform = await startTestPlatform({
    connectorTimerIntervalMs: 1_000,
    connectorClock: () => startedAtMs + (Date.now() - startedAtMs) * CONNECTOR_CLOCK_RATE,
  });
});

afterAll(async () => {
  await platform?.stop();
});

/** Starts terminal 2's command and resolves once it says where it listens; `stop` ends its process group. */
async function startProvider(script: string) {
  const child = spawn('bash', ['-c', script], { stdio: 'pipe', detached: true });
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('fake provider on ')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`the fake provider exited (${code}): ${printed}`)),
    );
  });
  return {
    printed: () => printed,
    stop: () => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    },
  };
}

describe('payments guide: a provider connected end to end', () => {
  it('installs the generic connector, sees accounts, balances and payments arrive, pools them, approves a transfer', async () => {
    const port = String(await freePort());
    const providerBlock = readmeBlock('fake-provider');
    expect(providerBlock.split('8090')).toHaveLength(2);
    const provider = await startProvider(providerBlock.replace('8090', port));
    try {
      expect(provider.printed()).toContain(
        `fake provider on http://127.0.0.1:${port} (API key demo-key)`,
      );
      const walkthrough = readmeBlock('payments-connector');
      expect(walkthrough.split('127.0.0.1:8090')).toHaveLength(2);
      const out = await runBash(walkthrough.replace('127.0.0.1:8090', `127.0.0.1:${port}`), {
        BASE: platform.baseUrl,
      });
      expect(out.replaceAll(port, '<port>')).toMatchInlineSnapshot(`
        "{"name":"demo-bank","endpoint":"http://127.0.0.1:<port>","apiKey":"********","pollingPeriod":"30s"}
        {"ledger":"bank-mirror","clientID":"local-dev","clientSecret":"********","accounts":{"internal":"bank:{account}","world":"world"},"statuses":["SUCCEEDED"]}
        fetch-accounts
        fetch-external-accounts
        fetch-payments
        {"reference":"acc-main","type":"INTERNAL","name":"Main account"}
        {"reference":"acc-savings","type":"INTERNAL","name":"Savings"}
        {"reference":"ben-supplier","type":"EXTERNAL","name":"Acme Supplies"}
        {"asset":"EUR/2","balance":1000000}
        {"reference":"tx-0001","type":"PAY-IN","status":"SUCCEEDED","amount":250000,"asset":"EUR/2"}
        {"postings":[{"source":"world","destination":"bank:acc-main","amount":250000,"asset":"EUR/2"}],"link":"settlement"}
        {"asset":"EUR/2","amount":1500000}
        WAITING_FOR_VALIDATION
        SUCCEEDED
        PROCESSED
        1
        {"type":"TRANSFER","status":"SUCCEEDED","amount":100000}
        {"asset":"EUR/2","balance":600000}
        {"asset":"EUR/2","amount":1500000}
        {"source":"bank:acc-main","destination":"bank:acc-savings","amount":100000,"asset":"EUR/2"}
        {"EUR/2":{"input":250000,"output":100000,"balance":150000}}
        "
      `);
    } finally {
      provider.stop();
    }
  });
});
