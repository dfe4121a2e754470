/**
 * The local Lambda runtime (`infra/local/lambda/`): a function's module in worker processes, one invocation at
 * a time each, observed through a probe function that reports its pid and can sleep, crash, hang or throw.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FunctionCrashedError,
  FunctionError,
  FunctionInitError,
  FunctionTimeoutError,
  PoolStoppedError,
} from '../../infra/local/lambda/errors.js';
import { httpFunction } from '../../infra/local/lambda/http-function.js';
import {
  type FunctionPool,
  type FunctionPoolOptions,
  startFunctionPool,
} from '../../infra/local/lambda/pool.js';
import { createLogger } from '../../lib/observability/logger.js';
import { until } from '../support/platform.js';
import { childProcesses, isAlive, isRunning } from '../support/processes.js';

const PROBE = fileURLToPath(new URL('../fixtures/lambda/probe.ts', import.meta.url));
const FAILING_INIT = fileURLToPath(new URL('../fixtures/lambda/failing-init.ts', import.meta.url));
const POOL_HOST = fileURLToPath(new URL('../fixtures/lambda/pool-host.ts', import.meta.url));

interface ProbeAnswer {
  pid: number;
  loadedAt: number;
  startedAt: number;
  finishedAt: number;
  greeting: string;
  awsRequestId: string;
  remainingMs: number;
  echo?: unknown;
}

const pools: FunctionPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop();
});

async function probePool(options: Partial<FunctionPoolOptions> = {}): Promise<FunctionPool> {
  const pool = await startFunctionPool({
    functionName: 'probe',
    modulePath: PROBE,
    workers: 3,
    variables: { PROBE_GREETING: 'hello from the environment' },
    timeoutMs: 10_000,
    logger: createLogger('silent'),
    ...options,
  });
  pools.push(pool);
  return pool;
}

const sleep = (pool: FunctionPool, ms: number) =>
  pool.invoke({ action: 'sleep', ms }) as Promise<ProbeAnswer>;

describe('a function pool', () => {
  it('starts one process per worker, each with the function variables read once at load', async () => {
    const pool = await probePool();
    const pids = pool.pids();
    expect(new Set(pids).size).toBe(3);
    expect(pids.every((pid) => pid !== process.pid)).toBe(true);
    expect(childProcesses(process.pid, 'probe.ts').sort()).toEqual([...pids].sort());
    expect(pool.healthy()).toBe(true);

    const answer = (await pool.invoke(
      { echo: { amount: '1234567890123456789012345678901234567890' } },
      { awsRequestId: 'req-1', timeoutMs: 5000 },
    )) as ProbeAnswer;
    expect(pids).toContain(answer.pid);
    expect(answer.greeting).toBe('hello from the environment');
    expect(answer.awsRequestId).toBe('req-1');
    expect(answer.echo).toEqual({ amount: '1234567890123456789012345678901234567890' });
    // The invocation's own timeout, shorter than the function's, is what the handler sees remaining.
    expect(answer.remainingMs).toBeGreaterThan(0);
    expect(answer.remainingMs).toBeLessThanOrEqual(5000);
  });

  it('runs 3 invocations at once on 3 distinct processes, and a 4th waits for the first free one', async () => {
    const pool = await probePool();
    const answers = await Promise.all([
      sleep(pool, 600),
      sleep(pool, 600),
      sleep(pool, 600),
      sleep(pool, 50),
    ]);
    const [first, second, third, fourth] = answers as [
      ProbeAnswer,
      ProbeAnswer,
      ProbeAnswer,
      ProbeAnswer,
    ];

    expect(new Set([first.pid, second.pid, third.pid])).toEqual(new Set(pool.pids()));
    // In parallel: every one of the three started before any of them finished.
    expect(Math.max(first.startedAt, second.startedAt, third.startedAt)).toBeLessThan(
      Math.min(first.finishedAt, second.finishedAt, third.finishedAt),
    );
    // The 4th had no free worker until one of the three was done, and then ran on that process.
    const done = [first, second, third].sort((a, b) => a.finishedAt - b.finishedAt)[0]!;
    expect(fourth.startedAt).toBeGreaterThanOrEqual(done.finishedAt);
    expect([first.pid, second.pid, third.pid]).toContain(fourth.pid);
    // Each process loaded the module once, and kept it.
    const loads = new Map(answers.map((a) => [a.pid, a.loadedAt]));
    expect(answers.every((a) => loads.get(a.pid) === a.loadedAt)).toBe(true);
  });

  it('serves invocations in arrival order while the only worker is busy', async () => {
    const pool = await probePool({ workers: 1 });
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map((i) => pool.invoke({ action: 'sleep', ms: 20 }).then(() => order.push(i))),
    );
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('fails the invocation of a crashed worker, and serves the next one from a fresh process', async () => {
    const pool = await probePool({ workers: 1 });
    const [crashed] = pool.pids() as [number];
    const crash = pool.invoke({ action: 'crash' });
    // Queued behind the crash on the one worker: it waits for the replacement.
    const next = pool.invoke({});
    await expect(crash).rejects.toThrow(new FunctionCrashedError('probe', 'code 3'));
    const answer = (await next) as ProbeAnswer;
    expect(answer.pid).not.toBe(crashed);
    expect(isAlive(crashed)).toBe(false);
    expect(pool.pids()).toEqual([answer.pid]);
    await until('the pool to be healthy again', () => (pool.healthy() ? true : undefined));
  });

  it('kills a worker whose invocation overruns its timeout, and replaces it', async () => {
    const pool = await probePool({ workers: 1 });
    const [hung] = pool.pids() as [number];
    await expect(pool.invoke({ action: 'hang' }, { timeoutMs: 300 })).rejects.toThrow(
      new FunctionTimeoutError('probe', 300),
    );
    await until('the hung worker to be killed', () => (isAlive(hung) ? undefined : true));
    const answer = await sleep(pool, 0);
    expect(answer.pid).not.toBe(hung);
  });

  it('reports what the handler threw, or what JSON cannot carry, and keeps the worker', async () => {
    const pool = await probePool({ workers: 1 });
    const [pid] = pool.pids() as [number];
    await expect(pool.invoke({ action: 'throw' })).rejects.toThrow(
      new FunctionError('probe', 'RangeError', 'the probe was asked to throw'),
    );
    await expect(pool.invoke({ action: 'bigint' })).rejects.toThrow(
      new FunctionError('probe', 'Runtime.MarshalError', 'Do not know how to serialize a BigInt'),
    );
    expect((await sleep(pool, 0)).pid).toBe(pid);
  });

  it('stops every worker, fails what was waiting, and refuses new invocations', async () => {
    const pool = await probePool({ workers: 2, stopGraceMs: 500 });
    const pids = pool.pids();
    const running = [pool.invoke({ action: 'hang' }), pool.invoke({ action: 'hang' })].map(
      (invocation) => expect(invocation).rejects.toBeInstanceOf(FunctionCrashedError),
    );
    const waiting = expect(pool.invoke({})).rejects.toThrow(new PoolStoppedError('probe'));
    await pool.stop();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(childProcesses(process.pid, 'probe.ts')).toEqual([]);
    await waiting;
    await Promise.all(running);
    await expect(pool.invoke({})).rejects.toThrow(new PoolStoppedError('probe'));
    expect(pool.healthy()).toBe(false);
  });

  it('with a profile directory, each worker writes its V8 CPU profile there as the pool stops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-profiles-'));
    try {
      const pool = await probePool({ workers: 2, cpuProfileDir: dir });
      const pids = pool.pids();
      await Promise.all([sleep(pool, 50), sleep(pool, 50)]);
      await pool.stop();
      // V8 names each file CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile.
      const written = readdirSync(dir).sort();
      expect(written.map((f) => Number(f.split('.')[3])).sort()).toEqual([...pids].sort());
      for (const f of written) {
        const profile = JSON.parse(readFileSync(join(dir, f), 'utf8'));
        expect(profile.nodes[0].callFrame.functionName).toBe('(root)');
        expect(profile.endTime).toBeGreaterThan(profile.startTime);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves no worker running when its parent is killed outright (SIGKILL: no stop() runs)', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', POOL_HOST], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    host.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const pids = await until('the host to print its workers', () =>
      out.includes('\n') ? (JSON.parse(out) as number[]) : undefined,
    );
    expect(pids).toHaveLength(2);
    expect(pids.every(isRunning)).toBe(true);
    host.kill('SIGKILL');
    // Each worker sees its IPC channel close and exits (reaping is then up to whoever adopted it).
    await until('the orphaned workers to exit', () => (pids.some(isRunning) ? undefined : true));
  });

  it('fails to start, with the module error, when the function cannot load, and leaves no process behind', async () => {
    await expect(
      startFunctionPool({
        functionName: 'probe',
        modulePath: FAILING_INIT,
        workers: 2,
        variables: {},
        timeoutMs: 1000,
        logger: createLogger('silent'),
      }),
    ).rejects.toThrow(new FunctionInitError('probe', 'Error: PROBE_REQUIRED is not set'));
    await until('the failed workers to exit', () =>
      childProcesses(process.pid, 'failing-init.ts').length === 0 ? true : undefined,
    );
  });
});

describe('a function pool behind API Gateway semantics', () => {
  const request = (path: string) => new Request(`http://127.0.0.1/api/probe${path}`);

  it('answers 502 for a crash, 504 for a timeout, each with an API Gateway request id', async () => {
    const pool = await probePool({ workers: 1 });
    // The probe reads `action` from the event; these stand-ins answer as a crash and a hang would.
    const crash = httpFunction(
      { invoke: () => pool.invoke({ action: 'crash' }) },
      { prefix: '/api/probe', logger: createLogger('silent') },
    );
    const hang = httpFunction(
      { invoke: () => pool.invoke({ action: 'hang' }, { timeoutMs: 200 }) },
      { prefix: '/api/probe', logger: createLogger('silent') },
    );

    const crashed = await crash(request('/x'));
    expect([crashed.status, await crashed.json()]).toEqual([
      502,
      { message: 'Internal Server Error' },
    ]);
    expect(crashed.headers.get('apigw-requestid')).toMatch(/^[A-Za-z0-9+/]{14}==$/);
    const timedOut = await hang(request('/y'));
    expect([timedOut.status, await timedOut.json()]).toEqual([
      504,
      { message: 'Endpoint request timed out' },
    ]);
  });

  it('hands the function the payload 2.0 event and answers its inferred 200', async () => {
    const pool = await probePool({ workers: 1 });
    const echoEvent = httpFunction(
      { invoke: (event) => pool.invoke({ echo: event }) },
      { prefix: '/api/probe', logger: createLogger('silent') },
    );
    const res = await echoEvent(request('/things?a=1&a=2'));
    expect(res.status).toBe(200);
    const { echo } = (await res.json()) as {
      echo: {
        rawPath: string;
        rawQueryString: string;
        queryStringParameters: object;
        routeKey: string;
      };
    };
    expect([echo.rawPath, echo.rawQueryString, echo.queryStringParameters, echo.routeKey]).toEqual([
      '/api/probe/things',
      'a=1&a=2',
      { a: '1,2' },
      'ANY /api/probe/{proxy+}',
    ]);
  });
});
