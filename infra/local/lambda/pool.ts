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
  /** The function's environment, the only one its workers see. */
  env: NodeJS.ProcessEnv;
  /** The function's timeout (Lambda's `timeout`); an invocation may ask for a shorter one. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping a worker (default 2 s). */
  stopGraceMs?: number;
  /** How long a worker may take to load the module (default 60 s: a cold tsx cache on a busy machine). */
  startTimeoutMs?: number;
  logger: Logger;
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
  const { functionName, logger } = options;
  const spec: WorkerSpec = {
    functionName,
    modulePath: options.modulePath,
    ...(options.workerMain ? { workerMain: options.workerMain } : {}),
    handlerExport: options.handlerExport ?? 'handler',
    env: options.env,
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
  };
  const graceMs = options.stopGraceMs ?? 2000;
  /** One slot per container; `undefined` while a replacement could not start. */
  const slots: Array<WorkerProcess | undefined> = [];
  const ready = new Set<WorkerProcess>();
  const queue: Queued[] = [];
  let stopped = false;
  let lastInitError: FunctionInitError | undefined;

  const dispatch = () => {
    while (queue.length > 0) {
      const worker = slots.find((w) => w && ready.has(w) && w.alive && !w.busy);
      if (!worker) break;
      const { event, options: invokeOptions, resolve, reject } = queue.shift()!;
      const timeoutMs = Math.min(invokeOptions.timeoutMs ?? options.timeoutMs, options.timeoutMs);
      worker
        .invoke(event, invokeOptions.awsRequestId ?? randomUUID(), timeoutMs)
        .then(resolve, reject)
        .finally(dispatch);
    }
    // With no worker left to serve them, waiting invocations would wait forever.
    if (queue.length > 0 && slots.every((w) => w === undefined)) {
      for (const waiting of queue.splice(0))
        waiting.reject(lastInitError ?? new PoolStoppedError(functionName));
    }
  };

  const place = (index: number): WorkerProcess => {
    const worker = new WorkerProcess(spec);
    slots[index] = worker;
    void worker.ready.then(
      () => {
        ready.add(worker);
        dispatch();
      },
      () => undefined, // reported by whoever awaits `ready`
    );
    void worker.exited.then((exit) => {
      // One that never got ready is a start-up failure, reported through `ready`, not replaced in a loop — unless
      // it was killed (a signal from outside, as when a test or the bench kills a container while it starts).
      const served = ready.delete(worker);
      if (stopped || slots[index] !== worker || (!served && !exit.startsWith('signal'))) return;
      logger.log('warn', 'lambda worker exited; starting a fresh one', {
        function: functionName,
        pid: worker.pid,
        exit,
      });
      place(index).ready.catch((err: FunctionInitError) => {
        if (stopped) return; // stopped while it started: not a failure
        lastInitError = err;
        slots[index] = undefined;
        logger.log('error', 'lambda worker could not be replaced', {
          function: functionName,
          error: err.message,
        });
        dispatch();
      });
    });
    return worker;
  };

  const stop = async () => {
    stopped = true;
    for (const waiting of queue.splice(0)) waiting.reject(new PoolStoppedError(functionName));
    await Promise.all(slots.map((w) => w?.stop(graceMs)));
  };

  for (let i = 0; i < options.workers; i++) place(i);
  try {
    await Promise.all(slots.map((w) => w!.ready));
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    invoke(event, invokeOptions = {}) {
      if (stopped) return Promise.reject(new PoolStoppedError(functionName));
      return new Promise((resolve, reject) => {
        queue.push({ event, options: invokeOptions, resolve, reject });
        dispatch();
      });
    },
    pids: () => slots.flatMap((w) => (w?.alive ? [w.pid] : [])),
    readyPids: () => slots.flatMap((w) => (w?.alive && ready.has(w) ? [w.pid] : [])),
    healthy: () => !stopped && slots.every((w) => w !== undefined && ready.has(w)),
    stop,
  };
}
