/**
 * The fctl verbs a first session reaches for, run as subprocesses against the local platform:
 * `accounts show` (metadata and volumes by asset), `webhooks configs list|create|activate|deactivate|rotate` and
 * `webhooks deliveries list|show|replay` (one, or by filter).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../events/catalog.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform, until } from '../support/platform.js';
import { cliEnv, loginArgs, runCli, tempConfigHome } from './run-cli.js';

let platform: RunningPlatform;
let home: string;
const cli = (...args: string[]) => runCli(args, cliEnv(home));

beforeAll(async () => {
  // A platform of its own: a webhook config takes every transaction of the environment, and the deliveries test
  // waits for exactly its one delivery, which the other CLI files' transactions on the shared platform broke.
  platform = await startTestPlatform();
  home = await tempConfigHome();
  const login = await cli(...loginArgs(platform.baseUrl));
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await platform?.stop();
});

describe('platform accounts show', () => {
  it('prints the metadata and the volumes by asset; --json the answer', async () => {
    expect((await platformCall(platform, 'POST', '/api/ledger/v2/shown')).status).toBe(204);
    const tx = await platformCall(platform, 'POST', '/api/ledger/v2/shown/transactions', {
      postings: [
        { source: 'world', destination: 'users:001', amount: 250, asset: 'USD/2' },
        { source: 'users:001', destination: 'bank', amount: 50, asset: 'USD/2' },
      ],
      accountMetadata: { 'users:001': { tier: 'gold' } },
    });
    expect(tx.status).toBe(200);

    const shown = await cli('accounts', 'show', 'shown', 'users:001');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\n')).toEqual([
      'address   users:001',
      'metadata  tier=gold',
      'ASSET  INPUT  OUTPUT  BALANCE',
      'USD/2  250    50      200',
      '',
    ]);
    const json = await cli('--json', 'accounts', 'show', 'shown', 'users:001');
    expect(JSON.parse(json.stdout)).toEqual({
      address: 'users:001',
      metadata: { tier: 'gold' },
      volumes: { 'USD/2': { input: 250, output: 50, balance: 200 } },
      firstUsage: expect.any(String),
      insertionDate: expect.any(String),
      updatedAt: expect.any(String),
    });
    const listed = await cli('--json', 'accounts', 'shown', '--address', 'users:');
    expect(JSON.parse(listed.stdout).map((a: { address: string }) => a.address)).toEqual([
      'users:001',
    ]);
    const bad = await cli('accounts', 'show', 'shown', 'users::x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"users::x" is not an account address');
  });
});

describe('platform webhooks configs', () => {
  it("lists the event catalogue; --json with each kind's JSON Schema", async () => {
    const table = await cli('webhooks', 'event-types');
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EVENT +FROM +WHEN$/);
    expect(lines.map((l) => l.split(/ +/)[0])).toEqual(['EVENT', ...EVENT_KINDS]);
    const json = await cli('--json', 'webhooks', 'event-types');
    const kinds = JSON.parse(json.stdout) as Array<{ name: string; schema: Record<string, any> }>;
    expect(
      kinds.find((k) => k.name === 'webhooks.endpoint_recovered')!.schema.properties.type,
    ).toEqual({ const: 'webhooks.endpoint_recovered' });
  });

  it('creates, lists, deactivates, activates and rotates a config', async () => {
    const created = await cli(
      '--json',
      'webhooks',
      'configs',
      'create',
      'http://127.0.0.1:9/hooks',
      '--event',
      'ledger.committed_transactions',
      'ledger.reverted_transaction',
      '--name',
      'orders',
    );
    expect(created.code, created.stderr).toBe(0);
    const config = JSON.parse(created.stdout);
    expect(config).toMatchObject({
      name: 'orders',
      endpoint: 'http://127.0.0.1:9/hooks',
      eventTypes: ['ledger.committed_transactions', 'ledger.reverted_transaction'],
      active: true,
    });
    expect(config.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const table = await cli('webhooks', 'configs');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +NAME +ENDPOINT +EVENTS +ACTIVE$/);
    expect(table.stdout).toContain(
      `${config.id}  orders  http://127.0.0.1:9/hooks  ledger.committed_transactions,ledger.reverted_transaction  yes`,
    );

    const off = await cli('--json', 'webhooks', 'configs', 'deactivate', config.id);
    expect(JSON.parse(off.stdout).active).toBe(false);
    const on = await cli('--json', 'webhooks', 'configs', 'activate', config.id);
    expect(JSON.parse(on.stdout).active).toBe(true);

    const secret = 'V0bivxRWveaoz08afqjU6Ko/jwO0Cb+3';
    const rotated = await cli(
      '--json',
      'webhooks',
      'configs',
      'rotate',
      config.id,
      '--secret',
      secret,
    );
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout).secret).toBe(secret);

    const unknown = await cli('webhooks', 'configs', 'activate', 'not-an-id');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"not-an-id" is not a webhook config id');
    const missing = await cli(
      'webhooks',
      'configs',
      'activate',
      '00000000-0000-4000-8000-000000000000',
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND');
  });
});

describe('platform webhooks deliveries', () => {
  it('lists and shows a delivery, refuses to replay it while pending, and expedites it by filter', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    // A closed loopback port: every attempt fails, so the delivery stays pending between retries.
    const config = await platformCall(platform, 'POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/closed',
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status).toBe(200);
    const configId = config.body.data.id as string;
    expect((await platformCall(platform, 'POST', '/api/ledger/v2/hooked')).status).toBe(204);
    const tx = await platformCall(platform, 'POST', '/api/ledger/v2/hooked/transactions', {
      postings: [{ source: 'world', destination: 'users:001', amount: 1, asset: 'USD' }],
    });
    expect(tx.status).toBe(200);
    const listed = await until('the delivery and its first attempt', async () => {
      const run = await cli('--json', 'webhooks', 'deliveries', '--config', configId);
      const rows = JSON.parse(run.stdout) as { id: string; attemptCount: number }[];
      return rows.length === 1 && rows[0]!.attemptCount >= 1 ? rows : undefined;
    });
    expect(listed[0]).toMatchObject({
      configID: configId,
      eventType: 'ledger.committed_transactions',
      status: 'pending',
    });
    const id = listed[0]!.id;

    const shown = await cli('--json', 'webhooks', 'deliveries', 'show', id);
    expect(shown.code, shown.stderr).toBe(0);
    const delivery = JSON.parse(shown.stdout);
    expect(delivery.id).toBe(id);
    expect(JSON.parse(delivery.payload).type).toBe('ledger.committed_transactions');

    const one = await cli('webhooks', 'deliveries', 'replay', id);
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/^error: CONFLICT: .* \(HTTP 409\)\n$/);

    // An attempt in flight when the replay reads the delivery is skipped (the worker is sending it anyway), and
    // against a closed port attempts come every few seconds: ask again until one replay finds it between attempts.
    const bulk = await until('a replay that finds the delivery between attempts', async () => {
      const run = await cli(
        '--json',
        'webhooks',
        'deliveries',
        'replay',
        '--status',
        'pending',
        '--since',
        since,
        '--config',
        configId,
      );
      expect(run.code, run.stderr).toBe(0);
      const counts = JSON.parse(run.stdout) as { skipped: number };
      return counts.skipped === 0 ? counts : undefined;
    });
    expect(bulk).toMatchObject({ replayed: 0, expedited: 1, skipped: 0 });

    const usage = await cli('webhooks', 'deliveries', 'replay', '--status', 'failed');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('replay: a delivery id, or --since');
  });
});
