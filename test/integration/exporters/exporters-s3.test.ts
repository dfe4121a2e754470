/**
 * The `s3` driver against an S3 emulator from npm (s3rver), its Parquet read back by a real engine (DuckDB from
 * npm): per account and asset the exported postings add up to the ledger's balances.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipelineWorker } from '../../../lib/exporters/worker/create-worker.js';
import type { PipelineRef } from '../../../lib/exporters/worker/drain-pipeline.js';
import { parseJson, stringifyJson } from '../../../lib/json/bigint-json.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { startS3Emulator } from '../../support/s3-emulator.js';
import { testTables } from '../../support/tables.js';

const BUCKET = 'ledger-exports';
const T0 = Date.parse('2026-03-01T23:59:58Z');
let clock = T0;
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let s3: Awaited<ReturnType<typeof startS3Emulator>>;
const worker = () =>
  createPipelineWorker(runtime, { now: () => clock, drivers: { s3Credentials: s3.credentials } });
const BIG = 10n ** 30n;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  s3 = await startS3Emulator([BUCKET]);
  expect((await call('POST', '/v2/books')).status).toBe(204);
  const tx = async (postings: unknown[], extra: Record<string, unknown> = {}) => {
    clock += 700; // the history crosses midnight: two date partitions
    const res = await call('POST', '/v2/books/transactions', { postings, ...extra });
    expect(res.status, res.text).toBe(200);
    return res.body.data.id as bigint;
  };
  const p = (source: string, destination: string, amount: bigint, asset: string) => ({
    source,
    destination,
    amount,
    asset,
  });
  await tx([p('world', 'treasury', 5n * BIG, 'COIN'), p('world', 'bank:eur', 100_000n, 'EUR/2')]);
  for (let i = 1; i <= 6; i++)
    await tx([p('bank:eur', `users:${i % 3}`, BigInt(i) * 1000n, 'EUR/2')], {
      metadata: { order: `o-${i}` },
    });
  const refunded = await tx([p('treasury', 'users:1', BIG + 7n, 'COIN')]);
  expect((await call('POST', `/v2/books/transactions/${refunded}/revert`)).status).toBe(201);
  expect((await call('POST', '/v2/books/accounts/users:2/metadata', { tier: 'gold' })).status).toBe(
    204,
  );
  await tx([p('users:0', 'fees', 250n, 'EUR/2'), p('treasury', 'users:0', 3n, 'COIN')]);
});

afterAll(async () => {
  await s3?.close();
});

async function pipelineOn(config: Record<string, unknown>): Promise<PipelineRef> {
  const exporter = await call('POST', '/v2/_/exporters', {
    driver: 's3',
    config: { bucket: BUCKET, endpoint: s3.endpoint, ...config },
  });
  expect(exporter.status, exporter.text).toBe(201);
  const pipeline = await call('POST', '/v2/books/pipelines', { exporterID: exporter.body.data.id });
  expect(pipeline.status, pipeline.text).toBe(201);
  return { environment: 'default', ledger: 'books', id: pipeline.body.data.id };
}

async function objectText(key: string): Promise<Uint8Array> {
  const { Body } = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Body!.transformToByteArray();
}

/** The objects under `prefix`, copied to a local directory with their keys as paths (Hive partitions kept). */
async function download(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'export-'));
  for (const key of await s3.keys(BUCKET, prefix)) {
    const path = join(dir, key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await objectText(key));
  }
  return dir;
}

async function query(sql: string): Promise<Array<Record<string, unknown>>> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Array<
      Record<string, unknown>
    >;
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

/** Per account and asset, the ledger's balance (from its volumes), as decimal text. */
async function ledgerBalances(): Promise<
  Array<{ account: string; asset: string; balance: string }>
> {
  const res = await call('GET', '/v2/books/volumes?pageSize=1000');
  expect(res.body.cursor.hasMore).toBe(false);
  return (res.body.cursor.data as Array<{ account: string; asset: string; balance: bigint }>)
    .map((v) => ({ account: v.account, asset: v.asset, balance: String(v.balance) }))
    .sort((a, b) => `${a.account} ${a.asset}`.localeCompare(`${b.account} ${b.asset}`));
}

const logCount = async () =>
  (await call('GET', '/v2/books/logs?pageSize=1000')).body.cursor.data.length as number;

describe('s3 driver', () => {
  it('writes Parquet objects by environment, ledger, date and log range, whose postings DuckDB sums to the ledger’s balances', async () => {
    const ref = await pipelineOn({ prefix: 'warehouse', batching: { maxItems: 4 } });
    const logs = await logCount();
    expect(logs).toBe(11);
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 11 });
    expect(await s3.keys(BUCKET, 'warehouse/')).toEqual([
      'warehouse/environment=default/ledger=books/date=2026-03-01/000000000000001-000000000000004.parquet',
      'warehouse/environment=default/ledger=books/date=2026-03-02/000000000000005-000000000000008.parquet',
      'warehouse/environment=default/ledger=books/date=2026-03-02/000000000000009-000000000000011.parquet',
    ]);

    const dir = await download('warehouse/');
    try {
      const files = `read_parquet('${dir}/**/*.parquet', hive_partitioning = true)`;
      const sums = await query(`
        SELECT account, asset, CAST(sum(delta) AS VARCHAR) AS balance FROM (
          SELECT destination AS account, asset, CAST(amount AS HUGEINT) AS delta FROM ${files} WHERE amount IS NOT NULL
          UNION ALL
          SELECT source, asset, -CAST(amount AS HUGEINT) FROM ${files} WHERE amount IS NOT NULL
        ) GROUP BY account, asset ORDER BY account || ' ' || asset`);
      expect(sums).toEqual(await ledgerBalances());
      // Every log once, in its partitions; a log that moved nothing is one row without a posting.
      const perLog = await query(`
        SELECT CAST(log_id AS INTEGER) AS id, any_value(log_type) AS type, count(*)::INTEGER AS rows,
               any_value(environment) AS environment, any_value(ledger) AS ledger
        FROM ${files} GROUP BY log_id ORDER BY log_id`);
      expect(perLog.map((r) => r.id)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      expect(perLog.map((r) => r.type)).toEqual([
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'NEW_TRANSACTION',
        'REVERTED_TRANSACTION',
        'SET_METADATA',
        'NEW_TRANSACTION',
      ]);
      expect(perLog.map((r) => r.rows)).toEqual([2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
      expect(new Set(perLog.map((r) => `${r.environment}/${r.ledger}`))).toEqual(
        new Set(['default/books']),
      );
      // `data` is the log's data, exact (a 31-digit amount included).
      const [first] = await query(
        `SELECT data, hash, log_date_text FROM ${files} WHERE log_id = 1 LIMIT 1`,
      );
      const api = (await call('GET', '/v2/books/logs?pageSize=1000')).body.cursor.data.at(-1);
      expect(parseJson(String(first!.data))).toEqual(api.data);
      expect(first!.hash).toBe(api.hash);
      expect(first!.log_date_text).toBe(api.date);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a reset sends every batch again onto the same keys: no duplicate object, the same sums', async () => {
    const ref = await pipelineOn({ prefix: 'again', batching: { maxItems: 5 } });
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 11 });
    const before = await s3.keys(BUCKET, 'again/');
    expect(before).toHaveLength(3);
    expect((await call('POST', `/v2/books/pipelines/${ref.id}/reset`)).status).toBe(202);
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 11 });
    expect(await s3.keys(BUCKET, 'again/')).toEqual(before);
    const dir = await download('again/');
    try {
      const [row] = await query(
        `SELECT count(DISTINCT log_id)::INTEGER AS logs, count(*)::INTEGER AS rows FROM read_parquet('${dir}/**/*.parquet')`,
      );
      expect(row).toEqual({ logs: 11, rows: 13 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes NDJSON when asked: one line per log, as the API lists it, with its ledger', async () => {
    const ref = await pipelineOn({ format: 'ndjson', prefix: 'lines/' });
    expect(await worker().drain(ref)).toEqual({ state: 'caught-up', lastLogId: 11 });
    const keys = await s3.keys(BUCKET, 'lines/');
    expect(keys).toEqual([
      'lines/environment=default/ledger=books/date=2026-03-01/000000000000001-000000000000011.ndjson',
    ]);
    const text = Buffer.from(await objectText(keys[0]!)).toString('utf8');
    const api = (
      (await call('GET', '/v2/books/logs?pageSize=1000')).body.cursor.data as unknown[]
    ).reverse();
    expect(text).toBe(
      api.map((log) => `${stringifyJson({ ...(log as object), ledger: 'books' })}\n`).join(''),
    );
  });

  it('records the store’s refusal as the pipeline’s error and moves nothing', async () => {
    const ref = await pipelineOn({ bucket: 'no-such-bucket' });
    const outcome = await worker().drain(ref);
    expect(outcome).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/^s3: NoSuchBucket: /),
    });
    const state = (await call('GET', `/v2/books/pipelines/${ref.id}`)).body.data;
    expect(state.error).toBe((outcome as { error: string }).error);
    expect(state.lastLogID).toBeUndefined();
  });
});
