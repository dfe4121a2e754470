import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '../../../lib/errors/index.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { FetchHandler } from '../gateway.js';
import { httpFunction } from './http-function.js';
import { startFunctionPool } from './pool.js';

/**
 * How many ledger workers `npm start` runs unless LEDGER_WORKERS says otherwise: several, as a user gets on AWS
 * (Lambda runs a container per concurrent request). Concurrent writes of one ledger are the protocol's to order
 * (direct commits conditional on HEAD, group commit when busy), never one process's.
 */
export const DEFAULT_LEDGER_WORKERS = 4;
export const MAX_LEDGER_WORKERS = 64;
/** The ledger function's timeout in the stack (`infra/stacks/platform-stack.ts`). */
const LEDGER_TIMEOUT_MS = 15_000;
const LEDGER_MODULE = fileURLToPath(new URL('../../../functions/ledger.ts', import.meta.url));

/** LEDGER_WORKERS, validated: an integer from 1 to 64, or the default when unset. */
export function ledgerWorkersFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.LEDGER_WORKERS;
  if (raw === undefined || raw === '') return DEFAULT_LEDGER_WORKERS;
  const workers = /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(workers >= 1 && workers <= MAX_LEDGER_WORKERS)) {
    throw new ConfigurationError(
      `LEDGER_WORKERS must be an integer from 1 to ${MAX_LEDGER_WORKERS} (got "${raw}")`,
    );
  }
  return workers;
}

export interface LedgerWorkers {
  /** `/api/ledger/*` through API Gateway semantics to the workers. */
  fetch: FetchHandler;
  /** Every worker alive and ready. */
  healthy(): boolean;
  pids(): number[];
  stop(): Promise<void>;
}

/** `functions/ledger.ts` in `workers` processes, each one request at a time as a Lambda container serves. */
export async function startLedgerWorkers(options: {
  workers?: number;
  env: NodeJS.ProcessEnv;
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
    modulePath: LEDGER_MODULE,
    workers,
    env: options.env,
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
