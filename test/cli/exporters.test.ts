/**
 * `platform exporters list|create|delete` (cli/commands/exporters.ts) and `platform pipelines create|delete`
 * (cli/commands/pipelines.ts) run as subprocesses against the local platform, whose S3 emulator the s3 exporter
 * reaches with no endpoint of its own; an http exporter's header values never printed.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  platformCall,
  type SharedPlatform,
  sharedTestPlatform,
  until,
} from '../support/platform.js';
import { cliEnv, lines, loginArgs, runCli, tempConfigHome } from './run-cli.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
let platform: SharedPlatform;
let home: string;
const cli = (args: string[], input?: string) =>
  runCli(args, cliEnv(home), input === undefined ? {} : { input });
const ledger = `x${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  platform = await sharedTestPlatform();
  home = await tempConfigHome();
  const login = await cli(loginArgs(platform.baseUrl));
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await platform?.stop();
});

/** The keys of the platform's S3 emulator under `prefix` of its bucket `exports`. */
async function exportedKeys(prefix: string): Promise<string[]> {
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: platform.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  try {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: 'exports', Prefix: prefix }));
    return (page.Contents ?? []).map((o) => o.Key!).sort();
  } finally {
    s3.destroy();
  }
}

describe('platform exporters and pipelines create|delete', () => {
  it('creates an s3 exporter and a pipeline that exports to the local emulator, in batches of --batch-size', async () => {
    expect((await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    for (const amount of [100, 200, 300]) {
      const tx = await platformCall(platform, 'POST', `/api/ledger/v2/${ledger}/transactions`, {
        postings: [{ source: 'world', destination: 'users:ann', amount, asset: 'EUR/2' }],
      });
      expect(tx.status).toBe(200);
    }
    const created = await cli([
      'exporters',
      'create',
      's3',
      `s3://exports/cli-${ledger}/`,
      '--batch-size',
      '2',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const [, exporter] = new RegExp(
      `^created exporter (${UUID}) \\(s3 s3://exports/cli-${ledger}/\\)\\n$`,
    ).exec(created.stdout)!;

    const pipeline = await cli(['--json', 'pipelines', 'create', ledger, exporter!]);
    expect(pipeline.code, pipeline.stderr).toBe(0);
    const { id } = JSON.parse(pipeline.stdout) as { id: string };
    expect(JSON.parse(pipeline.stdout)).toMatchObject({ exporterID: exporter, enabled: true });

    await until('the three log entries exported', async () => {
      const listed = await cli(['--json', 'pipelines', 'list', ledger]);
      const [p] = JSON.parse(listed.stdout) as Array<{ lastLogID?: number }>;
      return p?.lastLogID === 3 ? true : undefined;
    });
    const keys = await exportedKeys(`cli-${ledger}/`);
    expect(keys.map((k) => k.replace(/date=\d{4}-\d\d-\d\d/, 'date=D'))).toEqual([
      `cli-${ledger}/environment=default/ledger=${ledger}/date=D/000000000000001-000000000000002.parquet`,
      `cli-${ledger}/environment=default/ledger=${ledger}/date=D/000000000000003-000000000000003.parquet`,
    ]);

    const table = await cli(['exporters', 'list']);
    const row = lines(table.stdout).find((l) => l.startsWith(exporter!));
    expect(row?.split(/ +/).slice(0, 3)).toEqual([exporter, 's3', `s3://exports/cli-${ledger}/`]);

    expect(await cli(['pipelines', 'delete', ledger, id])).toEqual({
      code: 0,
      stdout: `deleted pipeline ${id}\n`,
      stderr: '',
    });
    expect(await cli(['exporters', 'delete', exporter!])).toEqual({
      code: 0,
      stdout: `deleted exporter ${exporter} and its pipelines\n`,
      stderr: '',
    });
    const again = await cli(['exporters', 'delete', exporter!]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('NOT_FOUND');
  });

  it("takes an http exporter's headers from a file or stdin and never prints their values; deleting it deletes its pipelines", async () => {
    const file = join(home, 'headers.json');
    await writeFile(file, JSON.stringify({ Authorization: 'Bearer file-secret-1' }));
    const fromFile = await cli([
      '--json',
      'exporters',
      'create',
      'http',
      'http://127.0.0.1:9/refused',
      '--headers-file',
      file,
    ]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).not.toContain('file-secret-1');
    const exporter = JSON.parse(fromFile.stdout) as { id: string };
    expect(exporter).toEqual({
      id: expect.stringMatching(new RegExp(`^${UUID}$`)),
      createdAt: expect.any(String),
      driver: 'http',
      config: { url: 'http://127.0.0.1:9/refused', headers: { Authorization: '********' } },
    });

    const piped = await cli(
      ['exporters', 'create', 'http', 'http://127.0.0.1:9/x', '--headers-file', '-'],
      '{"X-Api-Key":"stdin-secret-2"}',
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(
      new RegExp(`^created exporter ${UUID} \\(http http://127.0.0.1:9/x\\)\\n$`),
    );
    const listed = await cli(['--json', 'exporters', 'list']);
    expect(listed.stdout).not.toMatch(/file-secret-1|stdin-secret-2/);

    const pipeline = await cli(['--json', 'pipelines', 'create', ledger, exporter.id]);
    expect(pipeline.code, pipeline.stderr).toBe(0);
    expect((await cli(['exporters', 'delete', exporter.id])).code).toBe(0);
    const left = await cli(['--json', 'pipelines', 'list', ledger]);
    expect(
      (JSON.parse(left.stdout) as Array<{ exporterID: string }>).filter(
        (p) => p.exporterID === exporter.id,
      ),
    ).toEqual([]);
  });

  it('refuses what it cannot send before any request (exit 2), and shows the API refusal (exit 1)', async () => {
    const usage = async (args: string[], message: string) => {
      const run = await cli(['exporters', 'create', ...args]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
    };
    await usage(['ftp', 'x'], '"ftp" is not a driver this command creates (s3, http, kinesis)');
    await usage(
      ['s3', 'exports', '--headers-file', '/dev/null'],
      '--headers-file: not an option of the s3 driver',
    );
    await usage(
      ['s3', 's3://exports/a/', '--prefix', 'b'],
      's3://exports/a/ names a prefix already: drop --prefix',
    );
    await usage(['s3', 'exports', '--batch-size', 'many'], '--batch-size "many"');
    const bad = await cli(['exporters', 'create', 's3', 'Not_A_Bucket']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('config.bucket: must be an S3 bucket name');
    const notJson = await cli(
      ['exporters', 'create', 'http', 'http://127.0.0.1:9/x', '--headers-file', '-'],
      'Authorization: x',
    );
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('expected a JSON object of header names to string values');
    expect(notJson.stderr).not.toContain('Authorization: x');
  });
});
