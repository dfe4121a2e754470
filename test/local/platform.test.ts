/**
 * The local runtime behind `npm start`: the gateway in front of the service apps, data that survives a restart
 * (DynamoDB Local on disk), and `infra/local/main.ts` as a real process — banner, health, clean shutdown on
 * SIGTERM, and one clear error line for a port in use or a bad auth configuration.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../infra/local/free-port.js';
import { type RunningPlatform, startPlatform } from '../../infra/local/platform.js';
import { DEFAULT_CLIENT_SCOPES } from '../../lib/tokens/scopes.js';
import { startTestPlatform } from '../support/platform.js';
import { childProcesses, isAlive } from '../support/processes.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST_CLIENT = { id: 'local-dev', secret: 'local-dev-secret' };

/** Every directory made here, removed at the end. */
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `platform-${label}-`));
  tempDirs.push(dir);
  return dir;
}

/** Pids of DynamoDB Local JVMs whose command line names `dir` (their -dbPath lies inside it). */
function dynamoProcessesFor(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    if (cmdline.includes('DynamoDBLocal.jar') && cmdline.includes(dir)) pids.push(Number(entry));
  }
  return pids;
}

/** Polls for the JVMs of `dir` to be gone, then returns whatever is left. */
async function remainingDynamoProcesses(dir: string, withinMs = WAIT_LIMIT_MS): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  let pids = dynamoProcessesFor(dir);
  while (pids.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    pids = dynamoProcessesFor(dir);
  }
  return pids;
}

async function tokenFor(baseUrl: string, client: { id: string; secret: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: client.secret,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const ALL_UP = {
  status: 'ok',
  components: {
    auth: 'up',
    ledger: 'up',
    'ledger-workers': 'up',
    'ledger-writers': 'up',
    webhooks: 'up',
    payments: 'up',
    platform: 'up',
    sqs: 'up',
    dynamodb: 'up',
  },
};

describe('gateway', () => {
  let platform: RunningPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('binds the loopback interface on the port it was given (0: a free one)', () => {
    expect(platform.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(platform.baseUrl).port)).toBeGreaterThan(0);
    expect(platform.variables.PUBLIC_BASE_URL).toBe(platform.baseUrl);
  });

  it('answers GET /_health with 200 and every component up', async () => {
    const res = await fetch(`${platform.baseUrl}/_health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(ALL_UP);
    expect(await platform.health()).toEqual(ALL_UP);
  });

  it('answers unknown routes with 404 in the contract shape', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/api/unknown/x'],
      ['POST', '/api/unknown'],
      ['GET', '/'],
    ] as const) {
      const res = await fetch(`${platform.baseUrl}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({
        errorCode: 'NOT_FOUND',
        errorMessage: `no route for ${method} ${path}`,
      });
    }
  });

  it('answers a service route without a token with 401 invalid_token', async () => {
    for (const path of [
      '/api/ledger/anything',
      '/api/webhooks/v1/subscriptions',
      '/api/payments/x',
      '/api/auth/clients',
    ]) {
      const res = await fetch(`${platform.baseUrl}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", error_description="missing bearer token"',
      );
      expect(await res.json()).toEqual({
        errorCode: 'UNAUTHORIZED',
        errorMessage: 'missing bearer token',
      });
    }
  });

  it('answers a garbage bearer token with 401 invalid_token', async () => {
    const res = await fetch(`${platform.baseUrl}/api/ledger/anything`, {
      headers: { authorization: 'Bearer not.a.jwt' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(((await res.json()) as { errorCode: string }).errorCode).toBe('UNAUTHORIZED');
  });

  it('serves each service health probe without a token, with the full path forwarded', async () => {
    for (const service of ['auth', 'ledger', 'webhooks', 'payments', 'platform']) {
      const res = await fetch(`${platform.baseUrl}/api/${service}/_health`);
      expect(res.status, service).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', service });
    }
  });

  it('serves discovery with the platform URL as issuer', async () => {
    const res = await fetch(`${platform.baseUrl}/api/auth/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const metadata = (await res.json()) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(`${platform.baseUrl}/api/auth`);
    expect(metadata.token_endpoint).toBe(`${platform.baseUrl}/api/auth/oauth/token`);
  });
});

describe('auth configuration of the local platform', () => {
  it('resolves $NAME secrets from the caller variables', async () => {
    const platform = await startTestPlatform({
      variables: {
        AUTH_CONFIG_INLINE: JSON.stringify({
          clients: [{ id: 'env-client', secrets: ['$ENV_CLIENT_SECRET'] }],
        }),
        ENV_CLIENT_SECRET: 'secret-from-the-shell-42',
      },
    });
    try {
      const res = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=env-client&client_secret=secret-from-the-shell-42',
      });
      expect(res.status).toBe(200);
      // The default test client is not configured when a configuration is given.
      const testClient = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=local-dev&client_secret=local-dev-secret',
      });
      expect(testClient.status).toBe(401);
    } finally {
      await platform.stop();
    }
  });
});

describe('restart on the same data directory', () => {
  const running: RunningPlatform[] = [];
  afterAll(async () => {
    for (const p of running.splice(0)) await p.stop();
  });

  it('keeps clients and signing keys, and leaves no DynamoDB Local behind', async () => {
    const dataDir = tempDir('restart');
    // The second start takes the first one's port, as `npm start` would: tokens name the base URL as audience.
    let port = 0;
    const start = async () => {
      const p = await startPlatform({
        port,
        dataDir,
        functionBundles: inject('functionBundles'),
        variables: { LOG_LEVEL: 'silent' },
      });
      port = Number(new URL(p.baseUrl).port);
      running.push(p);
      return p;
    };
    const stop = async (p: RunningPlatform) => {
      running.splice(running.indexOf(p), 1);
      await p.stop();
    };

    const first = await start();
    // Its own DynamoDB Local, on disk in the data directory.
    expect(first.variables.DYNAMODB_ENDPOINT).not.toBe(inject('dynamoEndpoint'));
    expect(dynamoProcessesFor(dataDir)).toHaveLength(1);
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(true);

    const token = await tokenFor(first.baseUrl, TEST_CLIENT);
    const created = await fetch(`${first.baseUrl}/api/auth/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'survives restart' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as {
      data: { id: string; name: string; createdAt: string };
    };
    const keysBefore = (await (await fetch(`${first.baseUrl}/api/auth/keys`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    await stop(first);
    expect(await remainingDynamoProcesses(dataDir)).toEqual([]);

    const second = await start();
    expect(second.baseUrl).toBe(first.baseUrl);
    expect(await second.health()).toEqual(ALL_UP);
    const keysAfter = (await (await fetch(`${second.baseUrl}/api/auth/keys`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(keysAfter.keys.map((k) => k.kid)).toEqual(keysBefore.keys.map((k) => k.kid));

    // Read back with a fresh token and with the one issued before the restart (the keys live in the auth table).
    const freshToken = await tokenFor(second.baseUrl, TEST_CLIENT);
    for (const bearer of [freshToken, token]) {
      const readBack = await fetch(`${second.baseUrl}/api/auth/clients/${data.id}`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(readBack.status).toBe(200);
      const back = (
        (await readBack.json()) as {
          data: { id: string; name: string; createdAt: string; scopes: string[] };
        }
      ).data;
      expect(back.id).toBe(data.id);
      expect(back.name).toBe('survives restart');
      expect(back.createdAt).toBe(data.createdAt);
      expect(back.scopes).toEqual(DEFAULT_CLIENT_SCOPES);
    }

    await stop(second);
    expect(await remainingDynamoProcesses(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'dynamodb-local.pid'))).toBe(false);
  });
});

describe('npm start (infra/local/main.ts) as a process', () => {
  interface MainProcess {
    child: ChildProcess;
    dataDir: string;
    stdout: () => string;
    stderr: () => string;
    exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  }
  const children: MainProcess[] = [];
  const servers: Server[] = [];

  afterEach(async () => {
    // Only if a test failed midway: stop what it started, including a JVM a killed process left behind.
    for (const main of children.splice(0)) {
      if (main.child.exitCode === null && main.child.signalCode === null) {
        main.child.kill('SIGTERM');
        await main.exit;
      }
      for (const pid of await remainingDynamoProcesses(main.dataDir)) process.kill(pid, 'SIGKILL');
    }
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
  });

  function startMain(env: {
    PORT: string;
    DATA_DIR: string;
    AUTH_CONFIG?: string;
    LEDGER_WORKERS?: string;
  }): MainProcess {
    // S3_PORT 0: the S3 emulator on a free port, so platforms side by side never meet on 4568.
    const childVariables: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: 'silent',
      S3_PORT: '0',
      ...env,
    };
    for (const name of ['AUTH_CONFIG', 'AUTH_CONFIG_INLINE', 'MISSING_VAR_XYZ', 'LEDGER_WORKERS'])
      if (!(name in env)) delete childVariables[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
      cwd: REPO_ROOT,
      env: childVariables,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    const main = { child, dataDir: env.DATA_DIR, stdout: () => out, stderr: () => err, exit };
    children.push(main);
    return main;
  }

  /** Resolves once stdout contains `text`; fails if the process exits first. */
  function waitForStdout(main: MainProcess, text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (main.stdout().includes(text)) {
          main.child.stdout!.off('data', check);
          resolve();
        }
      };
      main.child.stdout!.on('data', check);
      check();
      void main.exit.then(({ code, signal }) => {
        if (!main.stdout().includes(text)) {
          reject(
            new Error(
              `exited (code ${code}, signal ${signal}) before printing "${text}"\nstdout:\n${main.stdout()}\nstderr:\n${main.stderr()}`,
            ),
          );
        }
      });
    });
  }

  /** The process's own error lines, without Node/AWS SDK warnings. */
  const errorLines = (stderr: string) =>
    stderr.split('\n').filter((line) => line.startsWith('error:'));

  it('starts, prints the banner with the test client, serves /_health and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = tempDir('start');
    // A chunk an earlier build left (chunk names carry a content hash): removed at start, not kept.
    const stale = join(dataDir, 'bundles', 'functions', 'chunks', 'stale-0000.mjs');
    mkdirSync(dirname(stale), { recursive: true });
    writeFileSync(stale, 'export {};\n');
    const main = startMain({ PORT: String(port), DATA_DIR: dataDir });
    await waitForStdout(main, 'platform ready at');
    expect(existsSync(stale)).toBe(false);

    const baseUrl = `http://127.0.0.1:${port}`;
    const lines = main.stdout().split('\n');
    expect(lines).toContain(`platform ready at ${baseUrl}`);
    expect(lines).toContain(`  health     ${baseUrl}/_health`);
    expect(lines).toContain(`  discovery  ${baseUrl}/api/auth/.well-known/openid-configuration`);
    expect(lines).toContain(`  api docs   ${baseUrl}/docs`);
    expect(lines).toContain(`  console    ${baseUrl}/console`);
    expect(lines).toContain(`  metrics    ${baseUrl}/_metrics`);
    // The S3 emulator (S3_PORT 0 here: a free port), its bucket `exports` kept under the data directory.
    const s3Line = lines.find((line) => line.startsWith('  s3 '));
    expect(s3Line).toMatch(
      new RegExp(
        `^ {2}s3 {9}http://127\\.0\\.0\\.1:\\d+ \\(emulator: bucket exports, objects in ${dataDir}/s3\\)$`,
      ),
    );
    expect(existsSync(join(dataDir, 's3', 'exports'))).toBe(true);
    expect(lines.filter((line) => /^ {2}start-up {3}\d+\.\d s$/.test(line))).toHaveLength(1);
    expect(lines).toContain(`  data       ${dataDir}`);
    expect(lines).toContain(
      '  test client (TEST ONLY): client_id=local-dev client_secret=local-dev-secret',
    );
    // Every address the banner names answers.
    for (const path of ['/docs', '/console', '/_metrics']) {
      expect((await fetch(`${baseUrl}${path}`)).status, path).toBe(200);
    }
    expect(dynamoProcessesFor(dataDir)).toHaveLength(1);

    const health = await fetch(`${baseUrl}/_health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual(ALL_UP);
    // The printed test client works.
    await tokenFor(baseUrl, TEST_CLIENT);
    // The local identity provider, on the same port, with its test-only accounts.
    expect(lines).toContain(
      `  identity   ${baseUrl}/_idp (local OpenID provider, client_id=platform-local)`,
    );
    expect(lines).toContain('  development accounts (TEST ONLY):');
    expect(lines).toContain(
      '    dev@example.com / dev-password  (admin of the default organization)',
    );
    expect(lines).toContain('    member@example.com / member-password');
    const idp = await fetch(`${baseUrl}/_idp/.well-known/openid-configuration`);
    expect(((await idp.json()) as { issuer: string }).issuer).toBe(`${baseUrl}/_idp`);
    // The ledger runs embedded by default: no worker or writer process, no function bundles built.
    expect(lines).toContain(
      '  ledger     embedded: group commit in this process (LEDGER_WORKERS=N for Lambda-like workers)',
    );
    const workers = [
      ...childProcesses(main.child.pid!, 'ledger.mjs'),
      ...childProcesses(main.child.pid!, 'ledger-writer.mjs'),
    ];
    expect(workers).toEqual([]);
    expect(existsSync(join(dataDir, 'bundles'))).toBe(false);

    main.child.kill('SIGTERM');
    expect(await main.exit).toEqual({ code: 0, signal: null });
    expect(workers.filter(isAlive)).toEqual([]);
    expect(main.stdout()).toContain('stopping...');
    expect(errorLines(main.stderr())).toEqual([]);
    expect(await remainingDynamoProcesses(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'dynamodb-local.pid'))).toBe(false);
  });

  it('exits 1 with one error line when the port is in use, before starting Java', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const dataDir = tempDir('busy');

    const main = startMain({ PORT: String(port), DATA_DIR: dataDir });
    expect((await main.exit).code).toBe(1);
    const errors = errorLines(main.stderr());
    expect(errors).toHaveLength(1);
    expect(errors[0]!.startsWith(`error: port ${port} is already in use`)).toBe(true);
    expect(main.stdout()).not.toContain('platform ready at');
    expect(dynamoProcessesFor(dataDir)).toEqual([]);
    // DynamoDB Local makes its directory when it starts: it never did.
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
  });

  it('exits 1 with one error line naming LEDGER_WORKERS when it is not an integer from 1 to 64, before starting Java', async () => {
    // The three values side by side: each process its own port and data directory, checked on its own.
    await Promise.all(
      ['0', '65', 'two'].map(async (bad) => {
        const dataDir = tempDir('workers');
        const main = startMain({
          PORT: String(await freePort()),
          DATA_DIR: dataDir,
          LEDGER_WORKERS: bad,
        });
        expect((await main.exit).code).toBe(1);
        expect(errorLines(main.stderr())).toEqual([
          `error: LEDGER_WORKERS must be an integer from 1 to 64 (got "${bad}")`,
        ]);
        expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
      }),
    );
  });

  it('exits 1 with an error line naming the missing variable when a static secret references an unset one', async () => {
    const dir = tempDir('config');
    const configPath = join(dir, 'auth.yaml');
    writeFileSync(
      configPath,
      ['clients:', '  - id: ci-client', '    secrets:', '      - $MISSING_VAR_XYZ', ''].join('\n'),
    );
    const dataDir = join(dir, 'data');

    const main = startMain({
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      AUTH_CONFIG: configPath,
    });
    expect((await main.exit).code).toBe(1);
    const errors = errorLines(main.stderr());
    expect(errors).toEqual([
      `error: auth config ${configPath}: clients[0].secrets[0]: environment variable MISSING_VAR_XYZ is not set`,
    ]);
    expect(main.stdout()).not.toContain('platform ready at');
    // The configuration is read before anything starts: no JVM, not even its data directory.
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
    expect(await remainingDynamoProcesses(dataDir)).toEqual([]);
  });
});
