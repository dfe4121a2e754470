import type { PlatformConfig } from '../../config/env.js';
import { ConfigurationError } from '../../errors/index.js';
import { createRuntime } from '../../runtime/runtime.js';
import { createSqsClient } from '../../sqs/client.js';
import { PipelineWakeQueue } from '../store/pipeline-wakes.js';
import { exportStores } from '../stores.js';
import { createPipelineWorker } from './create-worker.js';
import type { PipelineLambdaDeps } from './pipeline-lambda.js';

/**
 * How long one drain keeps starting batches: well inside the function's timeout (60 s in the stack), since its
 * last batch may take one send more (an http receiver has 15 s).
 */
export const DRAIN_BUDGET_MS = 30_000;

/** What the pipelines Lambda needs, from its configuration: its one composition (functions/pipelines.ts). */
export function pipelineLambdaDeps(config: PlatformConfig): PipelineLambdaDeps {
  const wakesQueueUrl = config.queues['pipeline-wakes'];
  // The function cannot work without its queue: fail at start-up, loudly.
  if (!wakesQueueUrl) throw new ConfigurationError('PIPELINE_WAKES_QUEUE_URL is required');
  // Log amounts are read back as bigint, as the ledger reads them.
  const runtime = createRuntime(config, { bigintNumbers: true });
  return {
    worker: createPipelineWorker(runtime),
    stores: exportStores(runtime.doc, config.tables.ledger),
    queue: new PipelineWakeQueue(createSqsClient(config.sqs), wakesQueueUrl),
    logger: runtime.logger,
    now: Date.now,
    drainBudgetMs: DRAIN_BUDGET_MS,
  };
}
