import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { localMetrics } from '../metrics/registry.js';
import {
  FunctionCrashedError,
  FunctionError,
  FunctionInitError,
  FunctionTimeoutError,
} from './errors.js';
import type { FromWorker, ToWorker } from './protocol.js';

/**
 * The project runs TypeScript through tsx: each worker is `node --import <tsx> worker-main.ts`, the same loader
 * `npm start` uses. Resolved to an absolute URL so the worker starts whatever the current directory.
 */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const WORKER_MAIN = fileURLToPath(new URL('./worker-main.ts', import.meta.url));
/**
 * V8's sampling profiler for the whole life of a worker, sampling every 4 ms: at the default 1 ms, 30 profiled
 * processes on two cores slowed the load they were profiling by half.
 */
const cpuProfileFlags = (dir: string) => [
  '--cpu-prof',
  '--cpu-prof-interval=4000',
  `--cpu-prof-dir=${dir}`,
];
/** How much of a worker's stderr is kept to explain a start-up failure. */
const STDERR_TAIL = 4096;

export interface WorkerSpec {
  functionName: string;
  /** Absolute path of the function's module (`functions/ledger.ts`, or its bundle). */
  modulePath: string;
  /**
   * The bundled worker entry (function-bundles.ts): the process runs it on plain Node, with source maps. Absent:
   * `worker-main.ts` through tsx, which can load TypeScript modules (test fixtures).
   */
  workerMain?: string;
  handlerExport: string;
  /** The function's variables: all the worker's process sees, as in a Lambda container. */
  variables: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** Where the process writes its V8 CPU profile when it exits (`--cpu-prof`, bench/profile-platform.ts); absent: none. */
  cpuProfileDir?: string;
}

interface Running {
  id: number;
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** One worker process: loads the module once, then takes one invocation at a time. */
export class WorkerProcess {
  readonly pid: number;
  /** Resolves once the module is loaded; rejects with a `FunctionInitError`. */
  readonly ready: Promise<void>;
  /** Resolves with how the process ended, whoever ended it. */
  readonly exited: Promise<string>;
  private readonly child: ChildProcess;
  private running: Running | undefined;
  private nextId = 1;
  private stderrTail = '';

  constructor(private readonly spec: WorkerSpec) {
    this.child = fork(spec.workerMain ?? WORKER_MAIN, [spec.modulePath, spec.handlerExport], {
      execArgv: [
        ...(spec.workerMain ? ['--enable-source-maps'] : ['--import', TSX_LOADER]),
        ...(spec.cpuProfileDir ? cpuProfileFlags(spec.cpuProfileDir) : []),
      ],
      env: lambdaVariables(spec),
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'json',
    });
    if (this.child.pid === undefined)
      throw new FunctionInitError(spec.functionName, 'the worker process could not be spawned');
    this.pid = this.child.pid;
    this.child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL);
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) =>
        resolve(signal ? `signal ${signal}` : `code ${code}`),
      ),
    );
    this.ready = this.waitUntilReady();
    this.ready.catch(() => this.child.kill('SIGKILL'));
    this.child.on('message', (message: FromWorker) => this.settle(message));
    // Without a listener an 'error' (a signal to a process already gone) would throw in the parent; a failed
    // send is reported by its callback and a death by 'exit', which is what settles invocations.
    this.child.on('error', () => undefined);
    void this.exited.then(
      (exit) =>
        this.running &&
        this.finish(this.running.id, undefined, new FunctionCrashedError(spec.functionName, exit)),
    );
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** False from the moment it is killed, before the exit is seen: nothing more is sent to it. */
  get alive(): boolean {
    return !this.child.killed && this.child.exitCode === null && this.child.signalCode === null;
  }

  invoke(event: unknown, awsRequestId: string, timeoutMs: number): Promise<unknown> {
    if (this.running) throw new Error(`worker ${this.pid} is busy: one invocation at a time`);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Lambda ends a container whose invocation overran; the next one starts cold.
        this.child.kill('SIGKILL');
        this.finish(id, undefined, new FunctionTimeoutError(this.spec.functionName, timeoutMs));
      }, timeoutMs);
      this.running = { id, resolve, reject, timer };
      const message: ToWorker = {
        type: 'invoke',
        id,
        event,
        context: { awsRequestId, deadlineMs: Date.now() + timeoutMs },
      };
      this.child.send(
        message,
        (err) =>
          err &&
          this.finish(id, undefined, new FunctionCrashedError(this.spec.functionName, err.message)),
      );
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs: number): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const kill = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(kill);
  }

  private waitUntilReady(): Promise<void> {
    const { functionName, startTimeoutMs } = this.spec;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new FunctionInitError(functionName, `not ready within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      );
      const done = (err?: Error) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      this.child.on('message', (message: FromWorker) => {
        if (message.type === 'ready') done();
        if (message.type === 'init-error')
          done(
            new FunctionInitError(
              functionName,
              `${message.error.errorType}: ${message.error.errorMessage}`,
            ),
          );
      });
      // A worker that dies before saying anything (a loader failure) is explained by what it printed.
      void this.exited.then((exit) =>
        done(
          new FunctionInitError(
            functionName,
            `the worker exited (${exit}) before it was ready${this.stderrTail ? `:\n${this.stderrTail.trim()}` : ''}`,
          ),
        ),
      );
    });
  }

  private settle(message: FromWorker): void {
    // Before the result it precedes: a response's figures are on `/_metrics` by the time it is answered.
    if (message.type === 'metrics') localMetrics.ingestEmf(message.emf);
    if (message.type === 'result') this.finish(message.id, message.result);
    if (message.type === 'error')
      this.finish(
        message.id,
        undefined,
        new FunctionError(
          this.spec.functionName,
          message.error.errorType,
          message.error.errorMessage,
        ),
      );
  }

  /** Settles the running invocation `id` once: the first of answer, timeout or exit wins. */
  private finish(id: number, result: unknown, err?: Error): void {
    const running = this.running;
    if (running?.id !== id) return;
    this.running = undefined;
    clearTimeout(running.timer);
    if (err) running.reject(err);
    else running.resolve(result);
  }
}

/** What a Lambda container's process sees: the function's variables and the few the runtime itself sets. */
function lambdaVariables(spec: WorkerSpec): NodeJS.ProcessEnv {
  return {
    ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    AWS_LAMBDA_FUNCTION_NAME: spec.functionName,
    ...spec.variables,
  };
}
