/**
 * `npm run compat`'s probe against a test platform: every operation of the SDK's covered services is probed
 * exactly once (a new SDK operation fails here until the probe has an entry for it), a few outcomes are what the
 * platform is known to do, and the report carries nothing run-specific.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK } from '@formance/formance-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notServedReason } from '../../infra/commands/compat/not-served.js';
import { type ProbeRow, runProbe, scrubber } from '../../infra/commands/compat/probe.js';
import { coverage, renderReport } from '../../infra/commands/compat/report.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from '../support/platform.js';

const TAG = 'tagzq7';
let platform: RunningPlatform;
let rows: ProbeRow[];

beforeAll(async () => {
  // dummypay (the probe's connector) reads under a root the platform names; `npm run compat` has a data directory.
  const dummypayRoot = mkdtempSync(join(tmpdir(), 'compat-dummypay-'));
  mkdirSync(join(dummypayRoot, 'dummypay'));
  platform = await startTestPlatform({ variables: { PAYMENTS_DUMMYPAY_ROOT: dummypayRoot } });
  rows = await runProbe({ baseUrl: platform.baseUrl, tag: TAG });
});
afterAll(async () => platform?.stop());

/** An SDK object's operations, straight from its class prototype. */
function methodsOf(api: object): string[] {
  const proto = Object.getPrototypeOf(api) as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto).filter(
    (name) =>
      name !== 'constructor' &&
      typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function',
  );
}

function row(service: string, op: string): ProbeRow {
  const found = rows.filter((r) => r.service === service && r.op === op);
  expect(found, `${service}.${op}`).toHaveLength(1);
  return found[0]!;
}

describe('compat probe', () => {
  it('probes every operation of the covered SDK services exactly once, in the SDK order', () => {
    const sdk = new SDK({ serverURL: 'http://127.0.0.1:1' });
    const expected = [
      ...methodsOf(sdk.auth.v1).map((op) => `auth.v1.${op}`),
      ...methodsOf(sdk.ledger.v2).map((op) => `ledger.v2.${op}`),
      ...methodsOf(sdk.ledger.v1).map((op) => `ledger.v1.${op}`),
      ...methodsOf(sdk.webhooks.v1).map((op) => `webhooks.v1.${op}`),
      ...methodsOf(sdk.payments.v3).map((op) => `payments.v3.${op}`),
      ...methodsOf(sdk.payments.v1).map((op) => `payments.v1.${op}`),
      ...methodsOf(sdk).map((op) => `sdk.${op}`),
    ];
    expect(expected).toHaveLength(196);
    expect(rows.map((r) => `${r.service}.${r.op}`)).toEqual(expected);
  });

  it('records what the platform answered', () => {
    expect(row('ledger.v2', 'createTransaction')).toEqual({
      service: 'ledger.v2',
      op: 'createTransaction',
      outcome: 'OK',
      status: 200,
      note: '',
    });
    expect(row('sdk', 'getVersions')).toEqual({
      service: 'sdk',
      op: 'getVersions',
      outcome: 'OK',
      status: 200,
      note: '',
    });
    expect(row('ledger.v2', 'countTransactions')).toMatchObject({
      outcome: 'OK',
      status: 204,
      note: '',
    });
    expect(row('auth.v1', 'createClient')).toMatchObject({ outcome: 'OK', status: 201 });
  });

  it('names the deliberately unserved operations with their reason', () => {
    expect(notServedReason('ledger.v2', 'insertSchema')).toBeUndefined();
    expect(row('ledger.v2', 'insertSchema')).toEqual({
      service: 'ledger.v2',
      op: 'insertSchema',
      outcome: 'OK',
      status: 204,
      note: '',
    });
    // Sent without a token by the SDK (it declares no security): the probe's hook adds it (unsecured-operations.ts).
    for (const op of [
      'createExporter',
      'listExporters',
      'getExporterState',
      'updateExporter',
      'deleteExporter',
      'createPipeline',
      'listPipelines',
      'getPipelineState',
      'startPipeline',
      'stopPipeline',
      'resetPipeline',
      'deletePipeline',
    ])
      expect(row('ledger.v2', op), op).toMatchObject({ outcome: 'OK', note: '' });
    expect(row('ledger.v2', 'createExporter')).toMatchObject({ status: 201 });
    expect(row('ledger.v2', 'stopPipeline')).toMatchObject({ status: 202 });
    expect(row('ledger.v2', 'runQuery')).toMatchObject({ outcome: 'OK', status: 200 });
    expect(row('ledger.v2', 'deleteBucket')).toMatchObject({ outcome: 'OK', status: 204 });
    expect(row('ledger.v2', 'restoreBucket')).toMatchObject({ outcome: 'OK', status: 204 });
    expect(row('ledger.v1', 'updateMapping')).toMatchObject({ outcome: 'ERROR', status: 400 });
    expect(row('ledger.v1', 'updateMapping').note).toMatch(
      /^SDK 7\.0\.1's Expr model is z\.object\(\{\}\)/,
    );
    // Answered 501 in the contract's shape: the reason alone.
    expect(row('payments.v3', 'listOrders')).toMatchObject({
      outcome: 'NOT-IMPLEMENTED',
      status: 501,
      note: notServedReason('payments.v3', 'listOrders'),
    });
    expect(row('payments.v3', 'createPool')).toMatchObject({
      outcome: 'OK',
      status: 201,
      note: '',
    });
    expect(row('payments.v3', 'installConnector')).toMatchObject({ outcome: 'OK', status: 202 });
    expect(row('payments.v3', 'getTask')).toMatchObject({ outcome: 'OK', status: 200 });
    expect(notServedReason('payments.v3', 'getPayment')).toBeUndefined();
  });

  it('counts outcomes per service and writes a report without run-specific values', () => {
    const all = coverage(rows).at(-1)!;
    expect(all.service).toBe('all');
    expect(all.operations).toBe(196);
    expect(
      all.counts.OK + all.counts['NOT-IMPLEMENTED'] + all.counts.SHAPE + all.counts.ERROR,
    ).toBe(196);
    const report = renderReport(rows, '7.0.1');
    expect(report).toContain('| ledger.v2 | createTransaction | OK | 200 |  |');
    expect(report).toContain('| ledger.v1 | updateMapping | ERROR | 400 |');
    expect(report).not.toContain(TAG);
    expect(report).not.toContain(platform.baseUrl);
    expect(report).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('scrubs run-specific values from notes', () => {
    const scrub = scrubber([
      [TAG, '<run>'],
      ['http://127.0.0.1:4567', '<platform>'],
    ]);
    expect(
      scrub(
        `no route for DELETE http://127.0.0.1:4567/api/ledger/v2/_/buckets/compat-empty-${TAG} at 2024-05-01T10:11:12.345Z`,
      ),
    ).toBe('no route for DELETE <platform>/api/ledger/v2/_/buckets/compat-empty-<run> at <time>');
    expect(
      scrub('config 123e4567-e89b-12d3-a456-426614174000 posted to http://127.0.0.1:39001/hook'),
    ).toBe('config <uuid> posted to http://127.0.0.1:<port>/hook');
  });
});
