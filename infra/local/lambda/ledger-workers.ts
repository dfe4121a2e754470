import { DEFAULT_LEDGER_WORKERS, MAX_LEDGER_WORKERS } from '../../../lib/config/env.js';
import { ConfigurationError } from '../../../lib/errors/index.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { FetchHandler } from '../gateway.js';
import type { FunctionBundles } from './function-bundles.js';
import { httpFunction } from './http-function.js';
import { startFunctionPool } from './pool.js';

/** The ledger function's timeout in the stack (`infra/stacks/platform-stack.ts`). */
const LEDGER_TIMEOUT_MS = 15_000;

export interface LedgerWorkers {
  /** `/api/ledger/*` through API Gateway semantics to the workers. */
  fetch: FetchHandler;
  /** Every worker alive and ready. */
  healthy(): boolean;
  pids(): number[];
  stop(): Promise<void>;
}

/**
 * `functions/ledger.ts`, bundled as the stack bundles it, in `workers` processes, each one request at a time as
 * a Lambda container serves.
 */
export async function startLedgerWorkers(options: {
  workers?: number;
  bundles: FunctionBundles;
  variables: NodeJS.ProcessEnv;
  /** Each process's V8 CPU profile, written there when it stops (bench/profile-platform.ts). */
  cpuProfileDir?: string | undefined;
  logger: Logger;
}): Promise<LedgerWorkers> {
  const workers = options.workers ?? DEFAULT_LEDGER_WORKERS;
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_LEDGER_WORKERS) {
    throw new ConfigurationError(
      `ledger workers must be an integer from 1 to ${MAX_LEDGER_WORKERS} (got ${workers})`,
    );
  }
  const pool = await startFunctionPool({
    functionName: 'ledger',
    modulePath: options.bundles.ledger,
    workerMain: options.bundles.workerMain,
    workers,
    variables: options.variables,
    ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
    timeoutMs: LEDGER_TIMEOUT_MS,
    logger: options.logger,
  });
  return {
    fetch: httpFunction(pool, { prefix: '/api/ledger', logger: options.logger }),
    healthy: pool.healthy,
    pids: pool.pids,
    stop: pool.stop,
  };
}
