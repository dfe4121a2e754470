/**
 * `platform webhooks tail` run as a subprocess against the local platform: a committed transaction reaches a
 * loopback receiver, and the tail prints its delivery and its attempt, once each, until it is interrupted.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/free-port.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform, until } from '../support/platform.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { cliEnv, finished, loginArgs, runCli, spawnCli, tempConfigHome } from './run-cli.js';

let platform: RunningPlatform;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let home: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  platform = await startTestPlatform();
  home = await tempConfigHome();
  const login = await runCli([...loginArgs(platform.baseUrl)], cliEnv(home));
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

describe('platform webhooks tail', () => {
  it('prints a delivery and its attempt once each, as JSON lines, until interrupted', async () => {
    const config = await platformCall(platform, 'POST', '/api/webhooks/configs', {
      endpoint: receiver.url,
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status).toBe(200);
    const configId = config.body.data.id as string;
    // From a moment before the transaction: what happens from then on is printed, whatever the poll timing.
    const since = new Date(Date.now() - 1000).toISOString();
    const tail = spawnCli(
      ['--json', 'webhooks', 'tail', '--since', since, '--config', configId, '--interval', '200'],
      cliEnv(home),
    );
    const done = finished(tail);
    let stdout = '';
    tail.stdout!.on('data', (s: string) => {
      stdout += s;
    });

    const ledger = `w${randomBytes(4).toString('hex')}`;
    expect((await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const tx = await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD' }],
    });
    expect(tx.status).toBe(200);

    // Waits (bounded) for the attempt line; the assertions are on what was printed, not on timing.
    await until('the attempt line', () => (stdout.includes('"kind":"attempt"') ? true : undefined));
    // Two more polls' worth of time: nothing may be printed twice.
    await new Promise((r) => setTimeout(r, 1000));
    tail.kill('SIGINT');
    const result = await done;
    expect(result.stderr).toBe('');

    const printed = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(printed).toHaveLength(2);
    const [delivery, attempt] = printed;
    expect(delivery).toMatchObject({
      kind: 'delivery',
      configID: configId,
      eventType: 'ledger.committed_transactions',
    });
    expect(delivery.id).toMatch(/^[0-9a-f]{32}$/);
    expect(attempt).toMatchObject({
      kind: 'attempt',
      deliveryID: delivery.id,
      attemptNumber: 1,
      statusCode: 200,
      outcome: 'succeeded',
      endpoint: receiver.url,
    });
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
      type: 'ledger.committed_transactions',
      payload: { ledger },
    });
  });

  it('without --since, prints only what happens after it started (human output)', async () => {
    const tail = spawnCli(['webhooks', 'tail', '--interval', '200'], cliEnv(home));
    const done = finished(tail);
    let stdout = '';
    let stderr = '';
    tail.stdout!.on('data', (s: string) => {
      stdout += s;
    });
    tail.stderr!.on('data', (s: string) => {
      stderr += s;
    });
    // Its first look (which takes the first test's delivery as seen) is done when it says it is following.
    await until('the tail to follow', () => (stderr.includes('following') ? true : undefined));
    const ledger = `w${randomBytes(4).toString('hex')}`;
    expect((await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const tx = await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:2', amount: 1, asset: 'USD' }],
    });
    expect(tx.status).toBe(200);
    await until('the attempt line', () => (/ attempt /.test(stdout) ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000));
    tail.kill('SIGINT');
    const result = await done;
    expect(result.stderr).toBe('following webhook deliveries (Ctrl+C to stop)\n');
    const printed = result.stdout.split('\n').filter(Boolean);
    expect(printed).toEqual([
      expect.stringMatching(
        /^\S+Z {2}delivery [0-9a-f]{32} {2}ledger\.committed_transactions {2}config [0-9a-f-]{36}$/,
      ),
      expect.stringMatching(
        new RegExp(
          `^\\S+Z {2}attempt {2}[0-9a-f]{32} #1 {2}HTTP 200 succeeded {2}\\d+ ms {2}${receiver.url}$`,
        ),
      ),
    ]);
    // The new delivery, not the first test's: it is the one the receiver got second.
    const deliveryId = printed[0]!.split(/ +/)[2];
    expect(printed[1]!.split(/ +/)[2]).toBe(deliveryId);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(deliveryId);
  });

  // Before: the CLI reads integers as bigints, and `0n === 0` is false, so this printed `HTTP 0`.
  it('prints an attempt that got no answer (a refused connection) as "no answer"', async () => {
    const closedPort = await freePort();
    const config = await platformCall(platform, 'POST', '/api/webhooks/configs', {
      endpoint: `http://127.0.0.1:${closedPort}/hook`,
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status).toBe(200);
    const configId = config.body.data.id as string;
    const since = new Date(Date.now() - 1000).toISOString();
    const tail = spawnCli(
      ['webhooks', 'tail', '--since', since, '--config', configId, '--interval', '200'],
      cliEnv(home),
    );
    const done = finished(tail);
    let stdout = '';
    tail.stdout!.on('data', (s: string) => {
      stdout += s;
    });
    const ledger = `w${randomBytes(4).toString('hex')}`;
    expect((await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const tx = await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:3', amount: 1, asset: 'USD' }],
    });
    expect(tx.status).toBe(200);
    await until('the attempt line', () => (/ attempt /.test(stdout) ? true : undefined));
    tail.kill('SIGINT');
    const result = await done;
    const attempt = result.stdout.split('\n').find((line) => / attempt /.test(line));
    expect(attempt).toMatch(
      new RegExp(
        `^\\S+Z {2}attempt {2}[0-9a-f]{32} #1 {2}no answer retryable_failure {2}\\d+ ms {2}http://127\\.0\\.0\\.1:${closedPort}/hook {2}\\S.*$`,
      ),
    );
    await platformCall(platform, 'DELETE', `/api/webhooks/configs/${configId}`);
  });
});
