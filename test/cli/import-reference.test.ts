/**
 * `platform import --from-reference` as a subprocess against the local platform: a recorded reference export (written
 * by Go's encoding/json: test/fixtures/reference-export/generate.go) imported in parts, and the ledger it gives.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../../cli/api/client.js';
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { canonicalJson } from '../../lib/json/canonical.js';
import { type SharedPlatform, sharedTestPlatform } from '../support/platform.js';
import { cliEnv, loginArgs, REPO_ROOT, runCli, tempConfigHome } from './run-cli.js';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/reference-export/export.ndjson');
const REVERTS = 'com.formance.spec/state/reverts';
const TWO_53 = 2n ** 53n;
const X = 9007199254740993n;

let platform: SharedPlatform;
let home: string;
let api: PlatformClient;
const cli = (...args: string[]) => runCli(args, cliEnv(home));

const newLedger = async () => {
  const name = `ref${randomBytes(4).toString('hex')}`;
  expect((await cli('ledgers', 'create', name)).code).toBe(0);
  return name;
};
type Page = { cursor: { data: Array<Record<string, any>>; hasMore: boolean } };
const all = async (path: string) => {
  const page = await api.json<Page>('GET', path, { query: { pageSize: '100' } });
  expect(page.cursor.hasMore).toBe(false);
  return page.cursor.data;
};

const fixtureLines = async () =>
  (await readFile(FIXTURE, 'utf8')).split('\n').filter((l) => l !== '');
/** The fixture with its lines changed, imported into a new ledger; the run, the ledger and its newest log id. */
const importChanged = async (
  name: string,
  change: (lines: string[]) => string[],
  ...flags: string[]
) => {
  const file = join(home, `${name}.ndjson`);
  await writeFile(file, `${change(await fixtureLines()).join('\n')}\n`);
  const ledger = await newLedger();
  const run = await cli('import', '--from-reference', file, '--ledger', ledger, ...flags);
  const newest = (await all(`/api/ledger/v2/${ledger}/logs`)).map((l) => l.id)[0];
  return { run, ledger, newest };
};

beforeAll(async () => {
  platform = await sharedTestPlatform();
  home = await tempConfigHome();
  const credentials = { clientId: 'local-dev', clientSecret: 'local-dev-secret' };
  const login = await cli(
    ...loginArgs(platform.baseUrl, credentials.clientId, credentials.clientSecret),
  );
  expect(login.code, login.stderr).toBe(0);
  api = new PlatformClient(platform.baseUrl, { type: 'client_credentials', ...credentials });
});

afterAll(async () => {
  await platform?.stop();
});

describe('platform import --from-reference', () => {
  it('imports the recorded export in parts: transactions, volumes and metadata as the export describes them', async () => {
    const ledger = await newLedger();
    const run = await cli(
      'import',
      '--from-reference',
      FIXTURE,
      '--ledger',
      ledger,
      '--part-bytes',
      '4096',
    );
    expect(run).toEqual({
      code: 0,
      stdout: `imported 38 reference logs into ${ledger} in 4 parts\n`,
      stderr: '',
    });

    const logs = await all(`/api/ledger/v2/${ledger}/logs`);
    expect(logs.map((l) => l.id)).toEqual(Array.from({ length: 38 }, (_, i) => BigInt(38 - i)));
    expect(logs.at(-1)!.date).toBe('2026-03-01T10:00:00.123Z');
    // The imported ledger chains its own hashes.
    expect((await cli('logs', 'verify', ledger)).stdout).toBe('ok: 38 log entries verified\n');

    const txs = (await all(`/api/ledger/v2/${ledger}/transactions`)).reverse();
    expect(txs).toHaveLength(30);
    // Each transaction on one line: id, postings, metadata, timestamp, reference, reverted.
    const summary = (tx: Record<string, any>) =>
      [
        tx.id,
        tx.postings
          .map((p: any) => `${p.source}>${p.destination} ${p.amount} ${p.asset}`)
          .join(', '),
        canonicalJson(tx.metadata),
        tx.timestamp,
        tx.reference ?? '-',
        tx.reverted ? 'reverted' : '',
      ].join(' | ');
    const big = '1180591620717411303424 USD/2';
    const eur = '100000000000000000000 EUR/2';
    expect(txs.slice(0, 6).map(summary)).toEqual([
      `1 | world>users:alice ${big}, world>users:alice ${eur} | {"a":"b","line":"one\\ntwo","note":"<fish & chips>"} | 2026-02-01T09:30:00.654321Z | ref-1 | reverted`,
      `2 | users:alice>users:bob ${X} USD/2 | {} | 2025-06-01T00:00:00Z | - | reverted`,
      // Reverted at its log's date: milliseconds.
      `3 | users:bob>users:alice ${X} USD/2 | {"${REVERTS}":"2"} | 2026-03-01T10:00:06.129Z | - | reverted`,
      '4 | users:bob>users:carol 5 USD/2 | {} | 2026-03-01T10:00:07.130463Z | - | ',
      // Reverted at the effective date of 3: the timestamp 3 has here.
      `5 | users:alice>users:bob ${X} USD/2 | {"${REVERTS}":"3"} | 2026-03-01T10:00:06.129Z | - | `,
      `6 | users:alice>world ${eur}, users:alice>world ${big} | {"${REVERTS}":"1"} | 2026-02-01T09:30:00.654321Z | - | `,
    ]);
    // The batch: transaction 6 + i sends 2^53 + i to users:i, at its log's date to the microsecond.
    const batchTimestamps = (await fixtureLines())
      .map((l) => parseJson(l) as { type: string; data: any })
      .filter((l) => l.type === 'NEW_TRANSACTION' && l.data.transaction.id >= 5n)
      .map((l) => l.data.transaction.timestamp as string);
    expect(txs.slice(6).map(summary)).toEqual(
      Array.from(
        { length: 24 },
        (_, k) =>
          `${k + 7} | world>users:${k + 1} ${TWO_53 + BigInt(k + 1)} USD/2 | {"n":"${k + 1}"} | ${batchTimestamps[k]} | batch-${k + 1} | `,
      ),
    );
    expect(batchTimestamps[0]).toBe('2026-03-01T10:00:10.133466Z');

    const accounts = await api.json<Page>('GET', `/api/ledger/v2/${ledger}/accounts`, {
      query: { pageSize: '100', expand: 'volumes' },
    });
    const byAddress = new Map(accounts.cursor.data.map((a) => [a.address as string, a]));
    const volumes = (address: string) => byAddress.get(address)!.volumes;
    const v = (input: bigint, output: bigint) => ({ input, output, balance: input - output });
    const batch = Array.from({ length: 24 }, (_, k) => TWO_53 + BigInt(k + 1)).reduce(
      (a, b) => a + b,
    );
    expect(volumes('world')).toEqual({
      'USD/2': v(2n ** 70n, 2n ** 70n + batch),
      'EUR/2': v(10n ** 20n, 10n ** 20n),
    });
    expect(volumes('users:alice')).toEqual({
      'USD/2': v(2n ** 70n + X, 2n * X + 2n ** 70n),
      'EUR/2': v(10n ** 20n, 10n ** 20n),
    });
    expect(volumes('users:bob')).toEqual({ 'USD/2': v(2n * X, X + 5n) });
    expect(volumes('users:carol')).toEqual({ 'USD/2': v(5n, 0n) });
    expect(volumes('users:24')).toEqual({ 'USD/2': v(TWO_53 + 24n, 0n) });
    const metadata = Object.fromEntries(
      [...byAddress]
        .filter(([, a]) => Object.keys(a.metadata).length > 0)
        .map(([k, a]) => [k, a.metadata]),
    );
    expect(metadata).toEqual({
      'users:alice': { tier: 'gold', city: 'Zürich' },
      'users:bob': { keep: 'yes' },
      'users:4': { n: '4' },
      'users:6': { checked: 'yes' },
      'users:8': { n: '8' },
      'users:12': { n: '12', checked: 'yes' },
      'users:16': { n: '16' },
      'users:18': { checked: 'yes' },
      'users:20': { n: '20' },
      'users:24': { n: '24', checked: 'yes' },
    });
  });

  it('stops at a tampered log with one line naming it: the parts before it imported, nothing of its own part', async () => {
    const { run, newest } = await importChanged(
      'tampered',
      (lines) => {
        const log = parseJson(lines[19]!) as {
          data: { transaction: { postings: Array<{ amount: bigint }> } };
        };
        log.data.transaction.postings[0]!.amount += 1n;
        return lines.with(19, stringifyJson(log));
      },
      '--part-logs',
      '8',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^error: import refused: reference log 20 \(line 20\): hash mismatch: the export says \S+, its content gives \S+ \(the log or one before it was changed\)\n$/,
    );
    // Parts of 8: logs 1-16 were sent; the part of logs 17-24 was refused while it was converted.
    expect(newest).toBe(16n);
  });

  it('names the reference log the platform refuses, and refuses a ledger that is not new or bad arguments', async () => {
    // An account address this platform refuses, in reference log 5 (hashes not checked: the content changed).
    const { run, ledger, newest } = await importChanged(
      'refused',
      (lines) =>
        lines.map((l) =>
          l.replace('"targetId":"users:bob","metadata"', '"targetId":"users bob","metadata"'),
        ),
      '--part-logs',
      '3',
      '--no-verify-hashes',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: import stopped in part 2 \(reference logs 4 to 6; the 3 logs before it are imported\): IMPORT: reference log 5: data.targetId: must be an account address \(HTTP 400\)\n$/,
    );
    // The platform's refusal comes as the part is replayed: its logs before the refused one stay.
    expect(newest).toBe(4n);

    expect(await cli('import', '--from-reference', FIXTURE, '--ledger', ledger)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ledger ${ledger} is not empty (its last log is 4): a reference export is imported into a new ledger\n`,
    });
    const usage = await cli('import', '--from-reference', FIXTURE);
    expect([usage.code, usage.stderr.split('\n')[0]]).toEqual([
      2,
      'error: --from-reference <file> takes --ledger <name> and no other argument',
    ]);
  });
});
