/**
 * `platform balance-history` (cli/commands/balance-history.ts) run as a subprocess against the local platform:
 * an account's balance per transaction and sampled per interval, as a table and as JSON, exact integers; and
 * `platform monitors` (cli/commands/monitors.ts) and `platform pipelines` / `exporters` (cli/commands/pipelines.ts)
 * on the same platform; `platform holds` (cli/commands/holds.ts) too.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SharedPlatform, sharedTestPlatform, testClientToken } from '../support/platform.js';
import { cliEnv, lines, loginArgs, runCli, tempConfigHome } from './run-cli.js';

let platform: SharedPlatform;
let home: string;
const cli = (...args: string[]) => runCli(args, cliEnv(home));
const ledger = `h${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  platform = await sharedTestPlatform();
  home = await tempConfigHome();
  const token = await testClientToken(platform);
  const post = (path: string, body?: unknown) =>
    fetch(`${platform.baseUrl}/api/ledger/v2/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  expect((await post(ledger)).status).toBe(204);
  for (const [source, destination, amount, timestamp] of [
    ['world', 'users:ann', 700, '2026-03-01T09:00:00Z'],
    ['users:ann', 'shop', 200, '2026-03-01T15:00:00Z'],
    ['world', 'users:ann', 50, '2026-03-02T08:00:00Z'],
  ] as const) {
    const res = await post(`${ledger}/transactions`, {
      postings: [{ source, destination, amount, asset: 'EUR/2' }],
      timestamp,
    });
    expect(res.status, await res.text()).toBe(200);
  }
  const login = await cli(...loginArgs(platform.baseUrl));
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await platform?.stop();
});

describe('platform balance-history', () => {
  it('prints a row per transaction, and samples per interval', async () => {
    const every = await cli('balance-history', ledger, 'users:ann', '--asset', 'EUR/2');
    expect(every.code, every.stderr).toBe(0);
    expect(lines(every.stdout).map((l) => l.trim().split(/ +/))).toEqual([
      ['TIME', 'TX', 'INPUT', 'OUTPUT', 'BALANCE'],
      ['2026-03-01T09:00:00Z', '1', '700', '0', '700'],
      ['2026-03-01T15:00:00Z', '2', '700', '200', '500'],
      ['2026-03-02T08:00:00Z', '3', '750', '200', '550'],
    ]);
    const daily = await cli(
      '--json',
      'balance-history',
      ledger,
      'users:ann',
      '--asset',
      'EUR/2',
      '--from',
      '2026-03-01T00:00:00Z',
      '--to',
      '2026-03-03T00:00:00Z',
      '--interval',
      '1d',
    );
    expect(daily).toEqual({
      code: 0,
      stdout:
        '[{"timestamp":"2026-03-01T00:00:00Z","input":0,"output":0,"balance":0},\n' +
        '{"timestamp":"2026-03-02T00:00:00Z","txId":2,"input":700,"output":200,"balance":500},\n' +
        '{"timestamp":"2026-03-03T00:00:00Z","txId":3,"input":750,"output":200,"balance":550}]\n',
      stderr: '',
    });
  });

  it('refuses a bad address or asset before any request, exit 2', async () => {
    const bad = await cli('balance-history', ledger, 'users ann', '--asset', 'EUR/2');
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
      2,
      'error: "users ann" is not an account address',
    ]);
    const asset = await cli('balance-history', ledger, 'users:ann', '--asset', 'eur');
    expect([asset.code, asset.stderr.split('\n')[0]]).toEqual([
      2,
      'error: --asset "eur" is not an asset',
    ]);
  });
});

// On this suite's platform (one platform per CLI file is what the suites can afford): the monitors command.
describe('platform monitors', () => {
  it('creates, lists (table and JSON) and deletes balance monitors', async () => {
    const created = await cli(
      '--json',
      'monitors',
      'create',
      ledger,
      '--account',
      'users:*',
      '--asset',
      'EUR/2',
      '--below',
      '-100',
      '--meta',
      'team=risk',
    );
    expect(created.code, created.stderr).toBe(0);
    const monitor = JSON.parse(created.stdout) as { id: string; createdAt: string };
    expect(JSON.parse(created.stdout)).toEqual({
      id: monitor.id,
      account: 'users:*',
      asset: 'EUR/2',
      condition: { type: 'below', amount: -100 },
      metadata: { team: 'risk' },
      createdAt: monitor.createdAt,
    });
    const changes = await cli(
      'monitors',
      'create',
      ledger,
      '--account',
      'users:ann',
      '--asset',
      'EUR/2',
      '--changes',
      '--available',
    );
    expect(changes.code, changes.stderr).toBe(0);
    const table = await cli('monitors', 'list', ledger);
    const rows = lines(table.stdout).map((l) => l.trim().split(/ +/));
    expect(rows.map((r) => r.slice(1, -1))).toEqual([
      ['ACCOUNT', 'ASSET', 'CONDITION'],
      ['users:*', 'EUR/2', 'below', '-100'],
      ['users:ann', 'EUR/2', 'available', 'changes'],
    ]);
    expect(rows[1]![0]).toBe(monitor.id);
    expect(await cli('monitors', 'delete', ledger, monitor.id)).toEqual({
      code: 0,
      stdout: `deleted monitor ${monitor.id}\n`,
      stderr: '',
    });
    const left = await cli('--json', 'monitors', 'list', ledger);
    expect((JSON.parse(left.stdout) as Array<{ account: string }>).map((m) => m.account)).toEqual([
      'users:ann',
    ]);
    const two = await cli('monitors', 'create', ledger, '--account', 'a', '--asset', 'EUR/2');
    expect([two.code, two.stderr.split('\n')[0]]).toEqual([
      2,
      'error: give exactly one of --below <n>, --above <n>, --negative, --changes',
    ]);
    const gone = await cli('monitors', 'delete', ledger, monitor.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NOT_FOUND');
  });
});

describe('platform pipelines and exporters', () => {
  it("lists a ledger's pipelines (table and JSON), stops, starts and resets one, lists exporters", async () => {
    const token = await testClientToken(platform);
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${platform.baseUrl}/api/ledger/v2/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    // A receiver that refuses every connection: the pipeline never exports, so nothing races the assertions.
    const exporter = await post('_/exporters', {
      driver: 'http',
      config: { url: 'http://127.0.0.1:9/refused' },
    });
    const id = await post(`${ledger}/pipelines`, { exporterID: exporter });

    const stopped = await cli('pipelines', 'stop', ledger, id);
    expect(stopped).toEqual({ code: 0, stdout: `stopped pipeline ${id}\n`, stderr: '' });
    const table = await cli('pipelines', 'list', ledger);
    const rows = lines(table.stdout).map((l) => l.trim().split(/ +/));
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ['ID', 'STATE', 'EXPORTED', 'EXPORTER'],
      [id, 'stopped', '-', exporter],
    ]);
    const started = await cli('--json', 'pipelines', 'start', ledger, id);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ id, exporterID: exporter, enabled: true });
    expect(await cli('pipelines', 'reset', ledger, id)).toEqual({
      code: 0,
      stdout: `reset pipeline ${id}\n`,
      stderr: '',
    });
    const again = await cli('pipelines', 'start', ledger, id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already started');

    const exporters = await cli('--json', 'exporters', 'list');
    const listed = JSON.parse(exporters.stdout) as Array<{ id: string; driver: string }>;
    expect(listed.find((e) => e.id === exporter)?.driver).toBe('http');
  });
});

describe('platform holds', () => {
  it('creates a hold, posts part of it, lists by status (table and JSON), voids the rest', async () => {
    const token = await testClientToken(platform);
    const holdsLedger = `${ledger}p`;
    const res = await fetch(`${platform.baseUrl}/api/ledger/v2/${holdsLedger}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ features: { PENDING_TRANSFERS: 'ON' } }),
    });
    expect(res.status).toBe(204);
    const funded = await cli('tx', 'send', holdsLedger, '--posting', 'world card:1 100 EUR/2');
    expect(funded.code, funded.stderr).toBe(0);
    const created = await cli(
      '--json',
      'holds',
      'create',
      holdsLedger,
      'card:1',
      'shop',
      '80',
      'EUR/2',
      '--timeout',
      '3600',
      '--meta',
      'auth=A1',
    );
    expect(created.code, created.stderr).toBe(0);
    const hold = JSON.parse(created.stdout) as { id: number; status: string; metadata: object };
    expect([hold.id, hold.status, hold.metadata]).toEqual([2, 'PENDING', { auth: 'A1' }]);
    const posted = await cli('holds', 'post', holdsLedger, '2', '--amount', '30');
    expect(posted.code, posted.stderr).toBe(0);
    expect(lines(posted.stdout).at(-1)).toBe('transaction 2');
    const table = await cli('holds', 'list', holdsLedger, '--status', 'PENDING');
    expect(lines(table.stdout).map((l) => l.trim().split(/ +/))).toEqual([
      ['ID', 'STATUS', 'POSTINGS', '(POSTED/AMOUNT)', 'EXPIRES'],
      ['2', 'PENDING', 'card:1->shop', '30/80', 'EUR/2', expect.stringMatching(/^\d{4}-/)],
    ]);
    const voided = await cli('--json', 'holds', 'void', holdsLedger, '2');
    expect(JSON.parse(voided.stdout)).toMatchObject({
      status: 'VOIDED',
      postings: [{ posted: 30, voided: 50, remaining: 0 }],
    });
    const none = await cli('holds', 'list', holdsLedger, '--status', 'PENDING');
    expect(none.stdout).toBe('no holds\n');
    const again = await cli('holds', 'void', holdsLedger, '2');
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('PENDING_RESOLVED')]);
    const bad = await cli('holds', 'create', holdsLedger, 'a', 'b', '1.5', 'EUR/2');
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
      2,
      'error: amount "1.5" is not a whole amount',
    ]);
  });
});
