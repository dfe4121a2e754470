import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../lib/observability/logger.js';
import { type FunctionInitError, PoolStoppedError } from './errors.js';
import { WorkerProcess, type WorkerSpec } from './worker-process.js';

export interface FunctionPoolOptions {
  functionName: string;
  /** Absolute path of the function's module; it exports the handler as Lambda's `handler` setting names it. */
  modulePath: string;
  /** The bundled worker entry that runs a bundled module (see `WorkerSpec`); absent: tsx. */
  workerMain?: string;
  /** Default `handler`. */
  handlerExport?: string;
  /** How many worker processes (Lambda containers): the most invocations that run at once. */
  workers: number;
  /** The function's variables, the only ones its workers see. */
  variables: NodeJS.ProcessEnv;
  /** The function's timeout (Lambda's `timeout`); an invocation may ask for a shorter one. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping a worker (default 2 s). */
  stopGraceMs?: number;
  /** How long a worker may take to load the module (default 60 s: a cold tsx cache on a busy machine). */
  startTimeoutMs?: number;
  logger: Logger;
  /** Each worker's V8 CPU profile, written there when it stops (`WorkerSpec`). */
  cpuProfileDir?: string;
}

export interface InvokeOptions {
  timeoutMs?: number;
  /** Lambda's request id for this invocation (default: a new one). */
  awsRequestId?: string;
}

export interface FunctionPool {
  invoke(event: unknown, options?: InvokeOptions): Promise<unknown>;
  /** Pids of the live workers, in slot order. */
  pids(): number[];
  /** Pids of the workers ready to serve (their module loaded), in slot order. */
  readyPids(): number[];
  /** True while every worker is alive (a replaced worker counts once it is ready). */
  healthy(): boolean;
  stop(): Promise<void>;
}

interface Queued {
  event: unknown;
  options: InvokeOptions;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/**
 * A Lambda function's containers, locally: `workers` processes, each running one invocation at a time. While
 * all are busy, invocations wait in FIFO order and go to the first worker that is free. A worker that dies
 * (a crash, a timeout) fails only its own invocation and is replaced by a fresh process, which starts cold.
 * Resolves once every worker has loaded the module; the first start-up failure rejects (and stops the rest).
 */
export async function startFunctionPool(options: FunctionPoolOptions): Promise<FunctionPool> {
  const pool = new WorkerPool(options);
  await pool.start();
  // Plain functions: callers pass them on unbound (`healthy: pool.healthy`).
  return {
    invoke: (event, invokeOptions = {}) => pool.invoke(event, invokeOptions),
    pids: () => pool.pids(),
    readyPids: () => pool.readyPids(),
    healthy: () => pool.healthy(),
    stop: () => pool.stop(),
  };
}

/** The pool's slots, its ready workers and the invocations waiting for one. */
class WorkerPool {
  private readonly spec: WorkerSpec;
  private readonly graceMs: number;
  /** One slot per container; `undefined` while a replacement could not start. */
  private readonly slots: Array<WorkerProcess | undefined> = [];
  private readonly ready = new Set<WorkerProcess>();
  private readonly queue: Queued[] = [];
  private stopped = false;
  private lastInitError: FunctionInitError | undefined;

  constructor(private readonly options: FunctionPoolOptions) {
    this.spec = {
      functionName: options.functionName,
      modulePath: options.modulePath,
      ...(options.workerMain ? { workerMain: options.workerMain } : {}),
      handlerExport: options.handlerExport ?? 'handler',
      variables: options.variables,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
    };
    this.graceMs = options.stopGraceMs ?? 2000;
  }

  /** Every worker placed and loaded; the first start-up failure stops the rest and rejects. */
  async start(): Promise<void> {
    for (let i = 0; i < this.options.workers; i++) this.place(i);
    try {
      await Promise.all(this.slots.map((w) => w!.ready));
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  invoke(event: unknown, invokeOptions: InvokeOptions): Promise<unknown> {
    if (this.stopped) return Promise.reject(new PoolStoppedError(this.options.functionName));
    return new Promise((resolve, reject) => {
      this.queue.push({ event, options: invokeOptions, resolve, reject });
      this.dispatch();
    });
  }

  pids(): number[] {
    return this.slots.flatMap((w) => (w?.alive ? [w.pid] : []));
  }

  readyPids(): number[] {
    return this.slots.flatMap((w) => (w?.alive && this.ready.has(w) ? [w.pid] : []));
  }

  healthy(): boolean {
    return !this.stopped && this.slots.every((w) => w !== undefined && this.ready.has(w));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const waiting of this.queue.splice(0))
      waiting.reject(new PoolStoppedError(this.options.functionName));
    await Promise.all(this.slots.map((w) => w?.stop(this.graceMs)));
  }

  /** Hands waiting invocations to free ready workers, in FIFO order. */
  private dispatch(): void {
    const { options, queue, slots } = this;
    while (queue.length > 0) {
      const worker = slots.find((w) => w && this.ready.has(w) && w.alive && !w.busy);
      if (!worker) break;
      const { event, options: invokeOptions, resolve, reject } = queue.shift()!;
      const timeoutMs = Math.min(invokeOptions.timeoutMs ?? options.timeoutMs, options.timeoutMs);
      worker
        .invoke(event, invokeOptions.awsRequestId ?? randomUUID(), timeoutMs)
        .then(resolve, reject)
        .finally(() => this.dispatch());
    }
    // With no worker left to serve them, waiting invocations would wait forever.
    if (queue.length > 0 && slots.every((w) => w === undefined)) {
      for (const waiting of queue.splice(0))
        waiting.reject(this.lastInitError ?? new PoolStoppedError(options.functionName));
    }
  }

  /** Starts a worker in slot `index`, replaced by a fresh one when it dies after serving. */
  private place(index: number): WorkerProcess {
    const worker = new WorkerProcess(this.spec);
    this.slots[index] = worker;
    void worker.ready.then(
      () => {
        this.ready.add(worker);
        this.dispatch();
      },
      () => undefined, // reported by whoever awaits `ready`
    );
    void worker.exited.then((exit) => this.replace(index, worker, exit));
    return worker;
  }

  private replace(index: number, worker: WorkerProcess, exit: string): void {
    const { functionName, logger } = this.options;
    // One that never got ready is a start-up failure, reported through `ready`, not replaced in a loop — unless
    // it was killed (a signal from outside, as when a test or the bench kills a container while it starts).
    const served = this.ready.delete(worker);
    if (this.stopped || this.slots[index] !== worker || (!served && !exit.startsWith('signal')))
      return;
    logger.log('warn', 'lambda worker exited; starting a fresh one', {
      function: functionName,
      pid: worker.pid,
      exit,
    });
    this.place(index).ready.catch((err: FunctionInitError) => {
      if (this.stopped) return; // stopped while it started: not a failure
      this.lastInitError = err;
      this.slots[index] = undefined;
      logger.log('error', 'lambda worker could not be replaced', {
        function: functionName,
        error: err.message,
      });
      this.dispatch();
    });
  }
}
