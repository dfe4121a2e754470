/**
 * The ledger on the local platform as its Lambda runs: `functions/ledger.ts` in three worker processes behind
 * API Gateway's event mapping, with the environment the platform builds. Amounts of 38 digits stay exact
 * through the event, the worker and the result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionInitError } from '../../infra/local/lambda/errors.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';
import { childProcesses, isAlive } from '../support/processes.js';

const A = 12345678901234567890123456789012345678n; // 38 digits, DynamoDB's limit
const B = 9876543210987654321098765432109876543n;

let platform: RunningPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ ledgerWorkers: 3 });
  token = await testClientToken(platform);
});

afterAll(async () => {
  await platform?.stop();
});

/** The response as text, so nothing here rounds a number either. */
async function call(
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${platform.baseUrl}/api/ledger${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const posting = (source: string, destination: string, amount: bigint) =>
  `{"postings":[{"source":"${source}","destination":"${destination}","amount":${amount},"asset":"COIN"}]}`;

describe('the ledger served by 3 worker processes', () => {
  it('runs 3 processes of the bundled functions/ledger.ts, reported by /_health', async () => {
    expect(childProcesses(process.pid, 'functions/ledger.mjs')).toHaveLength(3);
    const health = await platform.health();
    expect(health.components['ledger-workers']).toBe('up');
    expect(health.status).toBe('ok');
    const probe = await fetch(`${platform.baseUrl}/api/ledger/_health`);
    expect([probe.status, await probe.json()]).toEqual([200, { status: 'ok', service: 'ledger' }]);
  });

  it('creates a ledger, commits transactions and reads exact 38-digit volumes back', async () => {
    expect((await call('POST', '/v2/pooled')).status).toBe(204);
    const first = await call('POST', '/v2/pooled/transactions', posting('world', 'users:1', A));
    expect(first.status).toBe(200);
    expect(first.text).toContain(`"amount":${A}`);
    expect(
      (await call('POST', '/v2/pooled/transactions', posting('users:1', 'users:2', B))).status,
    ).toBe(200);

    const [one, two, world] = await Promise.all(
      ['users:1', 'users:2', 'world'].map((a) =>
        call('GET', `/v2/pooled/accounts/${a}?expand=volumes`),
      ),
    );
    expect(one!.text).toContain(`"COIN":{"input":${A},"output":${B},"balance":${A - B}}`);
    expect(two!.text).toContain(`"COIN":{"input":${B},"output":0,"balance":${B}}`);
    expect(world!.text).toContain(`"COIN":{"input":0,"output":${A},"balance":-${A}}`);

    const count = await call('HEAD', '/v2/pooled/transactions');
    expect([count.status, count.headers.get('count'), count.text]).toEqual([204, '2', '']);
    const listed = await call('GET', '/v2/pooled/transactions?pageSize=1');
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(`"amount":${B}`);
  });

  it("answers many concurrent reads, each worker one at a time, with the gateway request id as the service's", async () => {
    const answers = await Promise.all(
      Array.from({ length: 9 }, () =>
        fetch(`${platform.baseUrl}/api/ledger/v2/_info`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(9).fill(200));
    for (const res of answers)
      expect(res.headers.get('x-request-id')).toBe(res.headers.get('apigw-requestid'));
  });

  it('leaves no worker process behind once stopped', async () => {
    const workers = childProcesses(process.pid, 'functions/ledger.mjs');
    expect(workers).toHaveLength(3);
    await platform.stop();
    expect(workers.filter(isAlive)).toEqual([]);
  });
});

describe('a ledger worker that cannot start', () => {
  it("fails the platform start-up with the function's own error, and leaves no worker behind", async () => {
    // Read by functions/ledger.ts at load, in each worker: a bad value is the function's init error.
    await expect(
      startTestPlatform({ ledgerWorkers: 2, variables: { LEDGER_BUCKET_TABLES: '["heavy"]' } }),
    ).rejects.toThrow(
      new FunctionInitError(
        'ledger',
        'ConfigurationError: LEDGER_BUCKET_TABLES must be a JSON object of bucket name to table name',
      ),
    );
    expect(childProcesses(process.pid, 'functions/ledger.mjs')).toEqual([]);
  });
});
