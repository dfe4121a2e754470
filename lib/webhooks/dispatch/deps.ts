import { workerDepsFromEnv } from '../settings-from-env.js';
import type { DispatchDeps } from './dispatch-batch.js';

/** The dispatcher's dependencies from a function's environment (see `workerDepsFromEnv`). */
export function dispatchDepsFromEnv(env: NodeJS.ProcessEnv = process.env): DispatchDeps {
  return workerDepsFromEnv(env);
}
