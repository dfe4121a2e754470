/**
 * The CLI's failures before (or instead of) talking to a platform, run as a subprocess: usage errors (exit 2, the
 * message, then the command's usage), a platform that is not running (exit 1, one line), and the bin itself as
 * `npx platform` runs it from the repository root.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, finished, REPO_ROOT, runCli, tempConfigHome } from './run-cli.js';

let home: string;
/** A loopback port nothing listens on: bound once for a free number, then closed. */
let closedPort: number;
const cli = (...args: string[]) => runCli(args, cliEnv(home));

beforeAll(async () => {
  home = await tempConfigHome();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});

describe('platform usage', () => {
  it('npx platform --help works from the repository root', async () => {
    const help = await finished(
      spawn('npx', ['--no-install', 'platform', '--help'], { cwd: REPO_ROOT, env: process.env }),
    );
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: platform \[options\] \[command\]\n/);
    for (const command of ['login', 'ledgers', 'accounts', 'balances', 'tx', 'logs', 'webhooks'])
      expect(help.stdout).toMatch(new RegExp(`\\n {2}${command}\\b`));
    expect(help.stdout).toMatch(/\n {2}export \[options\] <ledger>/);
    expect(help.stdout).toMatch(/\n {2}import \[options\] \[ledger\] \[file\]/);
  });

  it('an unknown command or option prints the error and the usage, exit 2', async () => {
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(
      /^error: unknown command 'frobnicate'\n\nUsage: platform \[options\] \[command\]\n/,
    );

    const flag = await cli('tx', 'send', 'main', '--bogus');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(
      /^error: unknown option '--bogus'\n\nUsage: platform tx send \[options\] <ledger>\n/,
    );

    const missing = await cli('accounts');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: missing required argument 'ledger'\n\nUsage: platform accounts list \[options\] <ledger>\n/,
    );
  });

  it("checks the commands' own arguments before any request, exit 2 with the usage", async () => {
    // No profile, no platform: each of these fails on its arguments first.
    for (const [args, message, usage] of [
      [
        ['tx', 'send', 'main', '--posting', 'users:alice:shop:1:USD'],
        'error: --posting "users:alice:shop:1:USD": expected src:dst:amount:ASSET, or "src dst amount ASSET" when an address has ":" in it',
        'platform tx send [options] <ledger>',
      ],
      [
        ['tx', 'send', 'main', '--posting', 'world:shop:1.5:USD'],
        'error: --posting "world:shop:1.5:USD": amount "1.5" is not a non-negative integer (in the asset\'s smallest unit)',
        'platform tx send [options] <ledger>',
      ],
      [
        ['tx', 'send', 'main'],
        'error: give --posting (one or more) or --numscript, not both',
        'platform tx send [options] <ledger>',
      ],
      [
        ['ledgers', 'create', 'bad name!'],
        'error: "bad name!" is not a ledger name (1-63 of a-z A-Z 0-9 _ -)',
        'platform ledgers create [options] <name>',
      ],
      [
        ['logs', 'verify', 'main', '--page-size', '0'],
        'error: --page-size: must be an integer from 1 to 1000',
        'platform logs verify [options] <ledger>',
      ],
      [
        ['logs', 'verify', 'main', '--page-size', '1001'],
        'error: --page-size: must be an integer from 1 to 1000',
        'platform logs verify [options] <ledger>',
      ],
      [
        ['login', '--client-id', 'x'],
        'error: --client-id and --client-secret go together',
        'platform login [options]',
      ],
      [
        ['login', '--url', 'ftp://x', '--token', 't'],
        'error: "ftp://x" is not an http(s) URL',
        'platform login [options]',
      ],
    ] as Array<[string[], string, string]>) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.startsWith(`${message}\n\nUsage: ${usage}\n`), result.stderr).toBe(true);
    }
  });

  it('with --json a failure is one JSON line on stderr, with its exit code, and no usage', async () => {
    const unknown = await cli('--json', 'frobnicate');
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { exitCode: 2, message: "unknown command 'frobnicate'" } })}\n`,
    });
    const badArgument = await cli('tx', 'send', 'main', '--json');
    expect(badArgument.code).toBe(2);
    expect(JSON.parse(badArgument.stderr)).toEqual({
      error: { exitCode: 2, message: 'give --posting (one or more) or --numscript, not both' },
    });
    const url = `http://127.0.0.1:${closedPort}`;
    const unreachable = await cli('--json', '--url', url, '--token', 'any', 'ledgers');
    expect(unreachable).toEqual({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({ error: { exitCode: 1, message: `cannot reach the platform at ${url}: connection refused` } })}\n`,
    });
  });

  it('a platform that is not running is named in one line, exit 1', async () => {
    const url = `http://127.0.0.1:${closedPort}`;
    const expected = {
      code: 1,
      stdout: '',
      stderr: `error: cannot reach the platform at ${url}: connection refused\n`,
    };
    expect(
      await cli('login', '--url', url, '--client-id', 'local-dev', '--client-secret', 's'),
    ).toEqual(expected);
    expect(await cli('--url', url, '--token', 'any', 'ledgers')).toEqual(expected);
    expect(
      await runCli(
        ['logs', 'verify', 'main'],
        cliEnv(home, { PLATFORM_URL: url, PLATFORM_CLIENT_ID: 'a', PLATFORM_CLIENT_SECRET: 'b' }),
      ),
    ).toEqual(expected);
  });

  it('without a profile or credentials, says how to log in, exit 1', async () => {
    expect(await cli('balances', 'main')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: not logged in: run `platform login --client-id ID --client-secret SECRET` (or set PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET)\n',
    });
  });
});
