/**
 * `platform logs verify`, `export` and `import` run as subprocesses against the local platform; `npm run
 * verify-logs` as the thin alias it is. The broken chain is made the way someone with table access would: one log
 * item edited in DynamoDB Local.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformConfigFromVariables } from '../../lib/config/env.js';
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { type LogEntry, logHash } from '../../lib/ledger/domain/logs.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { type SharedPlatform, sharedTestPlatform } from '../support/platform.js';
import { cliEnv, finished, loginArgs, REPO_ROOT, runCli, tempConfigHome } from './run-cli.js';

let platform: SharedPlatform;
let home: string;
const cli = (...args: string[]) => runCli(args, cliEnv(home));

/** A ledger of `transactions` transactions (amounts beyond 2^53), each with metadata, made with the CLI. */
async function ledgerWith(transactions: number, ...createFlags: string[]): Promise<string> {
  const name = `v${randomBytes(4).toString('hex')}`;
  expect((await cli('ledgers', 'create', name, ...createFlags)).code).toBe(0);
  for (let i = 1; i <= transactions; i++) {
    const sent = await cli(
      'tx',
      'send',
      name,
      '--posting',
      `world users:${i} ${BigInt(i) * 10n ** 36n + 1n} USD/2`,
      '--metadata',
      `n=${i}`,
    );
    expect(sent.code, sent.stderr).toBe(0);
  }
  return name;
}

beforeAll(async () => {
  platform = await sharedTestPlatform();
  home = await tempConfigHome();
  const login = await cli(...loginArgs(platform.baseUrl));
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await platform?.stop();
});

describe('platform logs verify', () => {
  it('verifies an intact chain across pages, then names the exact entry edited in the table', async () => {
    const ledger = await ledgerWith(5);
    for (const pageSize of ['2', '100'])
      expect(await cli('logs', 'verify', ledger, '--page-size', pageSize)).toEqual({
        code: 0,
        stdout: 'ok: 5 log entries verified\n',
        stderr: '',
      });

    // Change one amount inside log 3's stored body, as someone with table access might.
    const { doc } = createRuntime(platformConfigFromVariables(platform.variables));
    const table = platform.variables.LEDGER_TABLE!;
    const key = (id: number) => ({
      pk: `E#default#L#${ledger}#LOG`,
      sk: String(id).padStart(15, '0'),
    });
    const read = async (id: number) => {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: key(id) }));
      return parseJson(String(Item!.body)) as LogEntry & {
        data: { transaction: { postings: Array<{ amount: bigint }> } };
      };
    };
    const entry = await read(3);
    entry.data.transaction.postings[0]!.amount += 1n;
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: key(3),
        UpdateExpression: 'SET body = :b',
        ExpressionAttributeValues: { ':b': stringifyJson(entry) },
      }),
    );
    const { hash: stored, ...tampered } = entry;
    const recomputed = logHash((await read(2)).hash, { ...tampered, id: Number(tampered.id) });
    expect(await cli('logs', 'verify', ledger, '--page-size', '2')).toEqual({
      code: 1,
      stdout: `broken at log 3: hash mismatch: stored ${stored}, recomputed ${recomputed}\n`,
      stderr: '',
    });
    const json = await cli('--json', 'logs', 'verify', ledger);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      ledger,
      brokenAt: 3,
      reason: `hash mismatch: stored ${stored}, recomputed ${recomputed}`,
      expected: recomputed,
      found: stored,
    });
  });

  it('reports a ledger without hashes as not verifiable, and an empty ledger as verified', async () => {
    const plain = await ledgerWith(2, '--feature', 'HASH_LOGS=DISABLED');
    expect(await cli('logs', 'verify', plain)).toEqual({
      code: 1,
      stdout:
        'broken at log 1: no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable\n',
      stderr: '',
    });
    const empty = await ledgerWith(0);
    expect(await cli('--json', 'logs', 'verify', empty)).toEqual({
      code: 0,
      stdout: `{"ok":true,"ledger":"${empty}","checked":0}\n`,
      stderr: '',
    });
  });

  it('npm run verify-logs is the same command', async () => {
    const ledger = await ledgerWith(2);
    const run = await finished(
      spawn('npm', ['run', '--silent', 'verify-logs', '--', ledger], {
        cwd: REPO_ROOT,
        env: { ...process.env, XDG_CONFIG_HOME: home },
      }),
    );
    expect(run).toEqual({ code: 0, stdout: 'ok: 2 log entries verified\n', stderr: '' });
    const missing = await finished(
      spawn('npm', ['run', '--silent', 'verify-logs', '--', 'no-such-ledger'], {
        cwd: REPO_ROOT,
        env: { ...process.env, XDG_CONFIG_HOME: home },
      }),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'error: LEDGER_NOT_FOUND: ledger "no-such-ledger" not found (HTTP 404)\n',
    );
  });
});

describe('platform export / import', () => {
  it('exports a ledger, imports it into a new one, and the new one exports identical logs', async () => {
    const source = await ledgerWith(3);
    const file = join(home, `${source}.ndjson`);
    expect(await cli('export', source, '--out', file)).toEqual({
      code: 0,
      stdout: `exported 3 logs of ${source} to ${file}\n`,
      stderr: '',
    });
    const exported = await readFile(file, 'utf8');
    expect(exported.split('\n').map((l) => (l ? (parseJson(l) as LogEntry).id : l))).toEqual([
      1n,
      2n,
      3n,
      '',
    ]);

    const target = `${source}copy`;
    expect((await cli('ledgers', 'create', target)).code).toBe(0);
    expect(await cli('import', target, file)).toEqual({
      code: 0,
      stdout: `imported 3 logs into ${target}\n`,
      stderr: '',
    });
    // Same entries, dates and hashes: the import replayed the log exactly (export to stdout this time).
    expect(await cli('export', target)).toEqual({ code: 0, stdout: exported, stderr: '' });
    expect((await cli('logs', 'verify', target)).stdout).toBe('ok: 3 log entries verified\n');

    // With --json, the refusal is one JSON line on stderr, the API's own fields beside the message.
    const again = await cli('--json', 'import', target, file);
    expect(again.code).toBe(1);
    const refusal = `ledger "${target}" is not empty: logs are imported into a new ledger only (or continue one with after=<its last log id>)`;
    expect(JSON.parse(again.stderr)).toEqual({
      error: {
        exitCode: 1,
        message: `IMPORT: ${refusal} (HTTP 400)`,
        status: 400,
        errorCode: 'IMPORT',
        errorMessage: refusal,
      },
    });
    expect(await cli('import', target, join(home, 'missing.ndjson'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot read ${join(home, 'missing.ndjson')}: ENOENT: no such file or directory, open '${join(home, 'missing.ndjson')}'\n`,
    });
  });
});
