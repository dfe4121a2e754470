import type { WebhookWorkerConfig } from '../../config/env.js';
import { workerDeps } from '../worker-env.js';
import type { DispatchDeps } from './dispatch-batch.js';

/** The dispatcher's dependencies from its configuration (see `workerDeps`). */
export function dispatchDeps(config: WebhookWorkerConfig): DispatchDeps {
  return workerDeps(config);
}
