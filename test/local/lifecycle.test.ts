/**
 * `npm start` as a user runs it (npm, its shell, node and the JVM and worker processes under it, in a process
 * group of their own, as a terminal would put them): SIGTERM to the top process and Ctrl+C (SIGINT to the group)
 * stop everything without an error line; a second start on the same DATA_DIR is refused in one line and leaves
 * the first one serving; DynamoDB Local runs with telemetry off and its optimizing compiler; /_health polls write
 * no log lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/free-port.js';
import { testClientToken, until } from '../support/platform.js';
import { isRunning } from '../support/processes.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
  tempDirs.push(dir);
  return dir;
}

interface NpmStart {
  child: ChildProcess;
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}
const started: NpmStart[] = [];
afterEach(() => {
  // Only if a test failed midway: nothing of what it started stays behind.
  for (const s of started.splice(0))
    for (const pid of groupMembers(s.child.pid!)) process.kill(pid, 'SIGKILL');
});

/** `npm start` in a process group of its own (the group's id is npm's pid). */
async function npmStart(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<NpmStart> {
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    detached: true,
    // S3_PORT 0: a free port for the S3 emulator, so runs side by side never meet on 4568.
    env: {
      ...process.env,
      PORT: String(port),
      S3_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const run = {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    exit,
  };
  started.push(run);
  return run;
}

async function ready(run: NpmStart): Promise<void> {
  let exited = false;
  void run.exit.then(() => (exited = true));
  await until('platform ready', () => {
    if (exited)
      throw new Error(`npm start exited before it was ready:\n${run.stdout()}\n${run.stderr()}`);
    return run.stdout().includes('platform ready at') ? true : undefined;
  });
}

/** Live (not zombie) processes of a process group, from /proc. */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) === pgid) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const dynamoLocalOf = (run: NpmStart) =>
  groupMembers(run.child.pid!).filter((pid) =>
    commandLine(pid).some((a) => a.endsWith('DynamoDBLocal.jar')),
  );
/** The lines the platform (or npm) wrote as errors; Node's and the AWS SDK's warnings are not. */
const errorLines = (text: string) =>
  text.split('\n').filter((line) => /^error:|^npm (error|ERR!)|"level":"ERROR"/.test(line));
const healthLogLines = (text: string) =>
  text.split('\n').filter((line) => line.startsWith('{') && line.includes('_health'));

describe('npm start as a process group', () => {
  // One data directory through three starts, each stopped a way a user can stop it, each restart what the stop
  // before it must allow: a first start (its steps, DynamoDB Local's flags, quiet health polls, a second start
  // refused) stopped with Ctrl+C; a start there that serves, its node process killed outright (kill -9); a start
  // again, with logs for people and a worker process, stopped with SIGTERM to npm alone.
  it('refuses a second start on its DATA_DIR, runs DynamoDB Local without telemetry, logs no health polls; stops whole on Ctrl+C (SIGINT to the process group) and frees its DATA_DIR; a start there serves, leaves no DynamoDB Local behind when its node process is killed outright (kill -9); a start again serves, logs for people, and stops whole on SIGTERM to npm', async () => {
    const dataDir = tempDir();
    const first = await npmStart(dataDir);
    await ready(first);

    // What it does while it starts, step by step, each with the seconds since the start.
    const head = first.stdout().slice(0, first.stdout().indexOf('platform ready at'));
    expect(head).toContain(`starting the platform (data in ${dataDir})\n`);
    expect(
      head
        .split('\n')
        .filter((line) => /^ +\d+\.\d s {2}/.test(line))
        .map((line) => line.replace(/^ +\d+\.\d s {2}/, '')),
    ).toEqual([
      'starting DynamoDB Local (Java)',
      'starting the SQS and S3 emulators',
      'creating tables and queues',
      'starting the services',
      'starting the workers',
    ]);

    // DynamoDB Local: one, telemetry off, by flag and by environment.
    expect(dynamoLocalOf(first)).toHaveLength(1);
    const [jvm] = dynamoLocalOf(first);
    expect(jvm).toBeDefined();
    expect(commandLine(jvm!)).toContain('-disableTelemetry');
    // A platform that serves for long compiles with the JVM's optimizing compiler too, not C1 only (as tests do).
    expect(commandLine(jvm!)).not.toContain('-XX:TieredStopAtLevel=1');
    expect(readFileSync(`/proc/${jvm}/environ`, 'utf8').split('\0')).toContain(
      'DDB_LOCAL_TELEMETRY=0',
    );

    // Health polls: answered, and not one log line for them.
    for (let i = 0; i < 3; i++) expect((await fetch(`${first.baseUrl}/_health`)).status).toBe(200);
    // Answered 200, or it throws.
    await testClientToken(first);
    // The token request is logged (so logging is on), the polls before it are not.
    await until('the token request logged', () =>
      first.stdout().includes('"route":"/api/auth/oauth/token"') ? true : undefined,
    );
    expect(healthLogLines(first.stdout())).toEqual([]);

    // A second start on the same DATA_DIR: one clear line, exit 1, nothing of the first touched.
    const second = await npmStart(dataDir);
    const { code } = await second.exit;
    expect(code).toBe(1);
    expect(errorLines(second.stderr())).toEqual([
      `error: DATA_DIR ${dataDir} is in use by another platform (pid ${readFileSync(join(dataDir, 'platform.lock'), 'utf8').trim()}); stop it, or set DATA_DIR to another directory`,
    ]);
    expect(second.stdout()).not.toContain('platform ready');
    expect(dynamoLocalOf(first)).toEqual([jvm]);
    expect((await fetch(`${first.baseUrl}/_health`)).status).toBe(200);

    // Ctrl+C: SIGINT to the whole process group.
    process.kill(-first.child.pid!, 'SIGINT');
    // npm's own status: 0 when its shell waits for node (bash), or death by SIGINT when the shell itself is
    // interrupted (dash) and npm re-raises it, as a shell expects after Ctrl+C. Never an error status.
    expect([
      { code: 0, signal: null },
      { code: null, signal: 'SIGINT' },
    ]).toContainEqual(await first.exit);
    await until('every process of npm start gone', () =>
      groupMembers(first.child.pid!).length === 0 ? true : undefined,
    );
    expect(first.stdout()).toContain('stopping...');
    expect(errorLines(first.stdout() + first.stderr())).toEqual([]);
    expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);

    // And the data directory is free again: a new start on it serves.
    const again = await npmStart(dataDir);
    await ready(again);
    expect((await fetch(`${again.baseUrl}/_health`)).status).toBe(200);

    // Its node process killed outright: nothing of the group stays, the JVM first among them.
    const [againJvm] = dynamoLocalOf(again);
    expect(againJvm).toBeDefined();
    const node = groupMembers(again.child.pid!).filter((pid) =>
      commandLine(pid).includes('infra/local/main.ts'),
    );
    expect(node).toHaveLength(1);

    process.kill(node[0]!, 'SIGKILL');
    await until('every process of the killed start gone, the JVM first among them', () =>
      groupMembers(again.child.pid!).length === 0 ? true : undefined,
    );
    expect(isRunning(againJvm!)).toBe(false);

    // Started again, with logs for people (LOG_FORMAT=pretty): the services in its process and the ledger's
    // worker processes alike.
    const third = await npmStart(dataDir, { LOG_FORMAT: 'pretty', LEDGER_WORKERS: '1' });
    await ready(third);
    expect((await fetch(`${third.baseUrl}/_health`)).status).toBe(200);
    const ledgers = await fetch(`${third.baseUrl}/api/ledger/v2`, {
      headers: { authorization: `Bearer ${await testClientToken(third)}` },
    });
    expect(ledgers.status).toBe(200);
    await until('both request lines', () =>
      / ledger {2}.*\/api\/ledger\/v2/.test(third.stdout()) ? true : undefined,
    );
    const requestLines = third
      .stdout()
      .split('\n')
      .filter((line) => /\/api\/(auth\/oauth\/token|ledger\/v2)/.test(line));
    expect(requestLines).toEqual([
      expect.stringMatching(
        /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}auth {2}request {2}requestId=\S+ method=POST route=\/api\/auth\/oauth\/token path=\/api\/auth\/oauth\/token status=200 /,
      ),
      expect.stringMatching(
        /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}ledger {2}request {2}.*function_name=ledger .* method=GET route=\/api\/ledger\/v2 path=\/api\/ledger\/v2 status=200 /,
      ),
    ]);

    // SIGTERM to the top process only (npm): the whole group goes, worker processes too, without an error line.
    const members = groupMembers(third.child.pid!);
    // npm, sh, node, java, and the ledger's worker and writer processes.
    expect(members.length).toBeGreaterThanOrEqual(4);
    third.child.kill('SIGTERM');
    await third.exit;
    await until('every process of the third start gone', () =>
      groupMembers(third.child.pid!).length === 0 ? true : undefined,
    );
    expect(third.stdout()).toContain('stopping...');
    expect(errorLines(third.stdout() + third.stderr())).toEqual([]);
    expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);
  });
});
