/**
 * `platform` (bin/platform.mjs) run as a subprocess against the local platform: login and its profile, ledgers,
 * transactions from postings and from a Numscript file, balances exact beyond 2^53, accounts, API errors, logout.
 */
import { randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../lib/json/bigint-json.js';
import { type SharedPlatform, sharedTestPlatform, testClientToken } from '../support/platform.js';
import { cliEnv, lines, runCli, tempConfigHome } from './run-cli.js';

/** Beyond 2^53 (9007199254740992): a float would round it. */
const HUGE = 9007199254740993123n;

let platform: SharedPlatform;
let home: string;
const cli = (...args: string[]) => runCli(args, cliEnv(home));
const profile = () => join(home, 'platform', 'config.json');
const ledger = `c${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  platform = await sharedTestPlatform();
  home = await tempConfigHome();
});

afterAll(async () => {
  await platform?.stop();
});

describe('platform CLI against the local platform', () => {
  it('login checks the credentials, then stores URL and credentials in a 0600 profile without printing a token', async () => {
    const refused = await cli(
      'login',
      '--url',
      platform.baseUrl,
      '--client-id',
      'local-dev',
      '--client-secret',
      'wrong',
    );
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: authentication failed at ${platform.baseUrl}/api/auth/oauth/token (HTTP 401): invalid_client (client authentication failed)\n`,
    });
    await expect(stat(profile())).rejects.toThrow(/ENOENT/);

    const login = await cli(
      'login',
      '--url',
      `${platform.baseUrl}/`,
      '--client-id',
      'local-dev',
      '--client-secret',
      'local-dev-secret',
    );
    expect(login).toEqual({
      code: 0,
      stdout: `logged in to ${platform.baseUrl} with client local-dev (profile ${profile()})\n`,
      stderr: '',
    });
    expect((await stat(profile())).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'platform'))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(profile(), 'utf8'))).toEqual({
      url: platform.baseUrl,
      credentials: {
        type: 'client_credentials',
        clientId: 'local-dev',
        clientSecret: 'local-dev-secret',
      },
    });
  });

  it('creates a ledger and lists it, as a table and as JSON', async () => {
    expect(await cli('ledgers', 'create', ledger, '--metadata', 'team=payments')).toEqual({
      code: 0,
      stdout: `created ledger ${ledger}\n`,
      stderr: '',
    });
    const table = await cli('ledgers', '--limit', '1000');
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = lines(table.stdout);
    expect(header).toMatch(/^NAME +BUCKET +ADDED AT +METADATA$/);
    expect(rows.filter((r) => r.startsWith(`${ledger} `))).toEqual([
      expect.stringMatching(
        new RegExp(`^${ledger} +_default +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +team=payments$`),
      ),
    ]);
    const json = await cli('--json', 'ledgers', 'list', '--limit', '1000');
    expect(json.code, json.stderr).toBe(0);
    const listed = (parseJson(json.stdout) as Array<{ name: string }>).filter(
      (l) => l.name === ledger,
    );
    expect(listed).toEqual([
      expect.objectContaining({
        name: ledger,
        bucket: '_default',
        metadata: { team: 'payments' },
      }),
    ]);
  });

  it('sends postings (colon and spaced forms), with metadata and a reference', async () => {
    const sent = await cli(
      '--json',
      'tx',
      'send',
      ledger,
      '--posting',
      'world:bank:2500:USD/2',
      '--posting',
      'bank users:alice 1000 USD/2',
      '--metadata',
      'order=42',
      '--reference',
      'ref-1',
    );
    expect(sent.code, sent.stderr).toBe(0);
    expect(parseJson(sent.stdout)).toMatchObject({
      id: 1n,
      postings: [
        { source: 'world', destination: 'bank', amount: 2500n, asset: 'USD/2' },
        { source: 'bank', destination: 'users:alice', amount: 1000n, asset: 'USD/2' },
      ],
      metadata: { order: '42' },
      reference: 'ref-1',
      reverted: false,
    });

    const human = await cli('tx', 'send', ledger, '--posting', 'world:bank:1:USD/2');
    expect(human.code, human.stderr).toBe(0);
    const [title, header, row] = lines(human.stdout);
    expect(title).toBe('transaction 2 committed');
    expect(header).toMatch(/^ID +TIMESTAMP +POSTING +REFERENCE +METADATA$/);
    expect(row).toMatch(/^ 2 +\S+Z +world -> bank {2}1 USD\/2$/);
  });

  it('sends a Numscript file with variables; a dry run commits nothing', async () => {
    const script = join(home, 'pay.num');
    await writeFile(
      script,
      'vars {\n  monetary $amount\n  account $dest\n}\nsend $amount (\n  source = @bank\n  destination = $dest\n)\n',
    );
    const args = [
      'tx',
      'send',
      ledger,
      '--numscript',
      script,
      '--var',
      'amount=USD/2 250',
      '--var',
      'dest=users:bob',
    ];
    const dry = await cli(...args, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(lines(dry.stdout)[0]).toBe('dry run: nothing was committed; the transaction would be:');
    expect(lines(dry.stdout)[2]).toMatch(/ bank -> users:bob {2}250 USD\/2$/);

    const sent = await cli('--json', ...args);
    expect(sent.code, sent.stderr).toBe(0);
    expect(parseJson(sent.stdout)).toMatchObject({
      id: 3n,
      postings: [{ source: 'bank', destination: 'users:bob', amount: 250n, asset: 'USD/2' }],
    });
    const listed = await cli('--json', 'tx', 'list', ledger);
    expect((parseJson(listed.stdout) as Array<{ id: bigint }>).map((t) => t.id)).toEqual([
      3n,
      2n,
      1n,
    ]);
  });

  it('prints balances beyond 2^53 exactly, as JSON and as a table', async () => {
    const sent = await cli('tx', 'send', ledger, '--posting', `world users:whale ${HUGE} EUR`);
    expect(sent.code, sent.stderr).toBe(0);
    const json = await cli('--json', 'balances', ledger, '--address', 'users:whale');
    expect(json).toEqual({
      code: 0,
      stdout: `[{"account":"users:whale","asset":"EUR","input":${HUGE},"output":0,"balance":${HUGE}}]\n`,
      stderr: '',
    });
    const table = await cli('balances', ledger, '--address', 'users:');
    expect(table.code, table.stderr).toBe(0);
    expect(lines(table.stdout).map((l) => l.split(/ +/))).toEqual([
      ['ACCOUNT', 'ASSET', 'INPUT', 'OUTPUT', 'BALANCE'],
      ['users:alice', 'USD/2', '1000', '0', '1000'],
      ['users:bob', 'USD/2', '250', '0', '250'],
      ['users:whale', 'EUR', String(HUGE), '0', String(HUGE)],
    ]);
  });

  it('lists accounts filtered by address', async () => {
    const table = await cli('accounts', ledger, '--address', 'users:');
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = lines(table.stdout);
    expect(header).toMatch(/^ADDRESS +FIRST USAGE +METADATA$/);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual(['users:alice', 'users:bob', 'users:whale']);
    const exact = await cli('--json', 'accounts', ledger, '--address', 'bank');
    expect((parseJson(exact.stdout) as Array<{ address: string }>).map((a) => a.address)).toEqual([
      'bank',
    ]);
  });

  it("shows the API's errorCode and errorMessage on one line, exit 1", async () => {
    const refused = await cli('tx', 'send', ledger, '--posting', 'users:nobody bank 1 USD/2');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^error: INSUFFICIENT_FUND: [^\n]*users:nobody[^\n]* \(HTTP 400\)\n$/,
    );
    expect(await cli('tx', 'list', 'no-such-ledger')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: LEDGER_NOT_FOUND: ledger "no-such-ledger" not found (HTTP 404)\n',
    });
    // --json: the API's fields apart, for scripts.
    expect(await cli('--json', 'tx', 'list', 'no-such-ledger')).toEqual({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          exitCode: 1,
          message: 'LEDGER_NOT_FOUND: ledger "no-such-ledger" not found (HTTP 404)',
          status: 404,
          errorCode: 'LEDGER_NOT_FOUND',
          errorMessage: 'ledger "no-such-ledger" not found',
        },
      })}\n`,
    });
  });

  it('logout removes the profile; then only credentials from the environment work', async () => {
    expect(await cli('logout')).toEqual({
      code: 0,
      stdout: `logged out (removed ${profile()})\n`,
      stderr: '',
    });
    await expect(stat(profile())).rejects.toThrow(/ENOENT/);
    expect(await cli('ledgers')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: not logged in: run `platform login --client-id ID --client-secret SECRET` (or set PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET)\n',
    });
    const fromEnv = await runCli(
      ['--json', 'balances', ledger, '--address', 'users:whale'],
      cliEnv(home, {
        PLATFORM_URL: platform.baseUrl,
        PLATFORM_CLIENT_ID: 'local-dev',
        PLATFORM_CLIENT_SECRET: 'local-dev-secret',
      }),
    );
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toContain(`"balance":${HUGE}`);
  });

  it('login --token stores a pasted bearer token, used as is; an expired one is refused', async () => {
    const token = await testClientToken(platform);
    const login = await cli('login', '--url', platform.baseUrl, '--token', token);
    expect(login).toEqual({
      code: 0,
      stdout: `logged in to ${platform.baseUrl} with a token (profile ${profile()})\n`,
      stderr: '',
    });
    expect(JSON.parse(await readFile(profile(), 'utf8'))).toEqual({
      url: platform.baseUrl,
      credentials: { type: 'token', token },
    });
    const listed = await cli('--json', 'accounts', ledger, '--address', 'bank');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(token);

    const claims = Buffer.from(JSON.stringify({ exp: 1_000_000_000 })).toString('base64url');
    const expired = await cli('login', '--url', platform.baseUrl, '--token', `e30.${claims}.sig`);
    expect(expired.code).toBe(2);
    expect(expired.stderr).toMatch(
      /^error: --token: the token expired at 2001-09-09T01:46:40.000Z\n\nUsage: platform login/,
    );
    // The refused login left the stored profile as it was.
    expect(JSON.parse(await readFile(profile(), 'utf8')).credentials).toEqual({
      type: 'token',
      token,
    });
  });

  it('tx show prints one transaction (--json: with its volumes), tx revert writes and prints the reversal', async () => {
    const own = `r${randomBytes(4).toString('hex')}`;
    expect((await cli('ledgers', 'create', own)).code).toBe(0);
    const sent = await cli(
      'tx',
      'send',
      own,
      '--posting',
      'world:shop:700:USD/2',
      '--reference',
      'sale-1',
    );
    expect(sent.code, sent.stderr).toBe(0);

    const shown = await cli('tx', 'show', own, '1');
    expect(shown.code, shown.stderr).toBe(0);
    const [header, row, ...rest] = lines(shown.stdout);
    expect(header).toMatch(/^ID +TIMESTAMP +POSTING +REFERENCE +METADATA$/);
    expect(row).toMatch(/^ *1 {2}\d{4}-\d\d-\d\dT\S+Z {2}world -> shop {2}700 USD\/2 {2}sale-1 *$/);
    expect(rest).toEqual([]);
    const json = parseJson((await cli('--json', 'tx', 'show', own, '1')).stdout) as Record<
      string,
      any
    >;
    expect(json.postCommitVolumes).toEqual({
      world: { 'USD/2': { input: 0n, output: 700n, balance: -700n } },
      shop: { 'USD/2': { input: 700n, output: 0n, balance: 700n } },
    });

    const reverted = await cli('--json', 'tx', 'revert', own, '1');
    expect(reverted.code, reverted.stderr).toBe(0);
    expect((parseJson(reverted.stdout) as Record<string, any>).postings).toEqual([
      { source: 'shop', destination: 'world', amount: 700n, asset: 'USD/2' },
    ]);
    expect((parseJson(reverted.stdout) as Record<string, any>).id).toBe(2n);
    const again = await cli('tx', 'revert', own, '1');
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toMatch(/^error: ALREADY_REVERT: .* \(HTTP 400\)\n$/);
    expect(await cli('tx', 'show', own, '9')).toMatchObject({ code: 1, stdout: '' });
    expect(await cli('tx', 'show', own, 'x')).toMatchObject({ code: 2, stdout: '' });
  });
});
