import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '../../../lib/observability/logger.js';
import { createQueuePoller } from '../pollers/queue-poller.js';
import type { FunctionBundles } from './function-bundles.js';
import { startFunctionPool } from './pool.js';

/**
 * The ledger writer (group commit) as the stack runs it: `functions/ledger-writer.ts` in worker processes, fed by
 * the ingress queue the way its SQS event source mapping does — one poller per allowed concurrent invocation, each
 * receiving only when it can invoke at once (a mapping's maximum concurrency), so no message waits in a poller
 * while a writer is busy draining the queue itself.
 */
export const DEFAULT_LEDGER_WRITERS = 1;
/** The writer function's timeout in the stack. */
const WRITER_TIMEOUT_MS = 30_000;

export interface LedgerWriters {
  healthy(): boolean;
  pids(): number[];
  /** Writers ready to work (a killed one is replaced by a fresh process, which takes a moment to load). */
  readyPids(): number[];
  stop(): Promise<void>;
}

export async function startLedgerWriters(options: {
  writers?: number;
  bundles: FunctionBundles;
  variables: NodeJS.ProcessEnv;
  /** Each process's V8 CPU profile, written there when it stops (bench/profile-platform.ts). */
  cpuProfileDir?: string | undefined;
  sqs: SQSClient;
  logger: Logger;
}): Promise<LedgerWriters> {
  const writers = options.writers ?? DEFAULT_LEDGER_WRITERS;
  const queueUrl = options.variables.LEDGER_INGRESS_QUEUE_URL;
  if (!queueUrl) throw new Error('the ledger ingress queue is not provisioned');
  const pool = await startFunctionPool({
    functionName: 'ledger-writer',
    modulePath: options.bundles.ledgerWriter,
    workerMain: options.bundles.workerMain,
    workers: writers,
    variables: options.variables,
    ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
    timeoutMs: WRITER_TIMEOUT_MS,
    logger: options.logger,
  });
  const pollers = Array.from({ length: writers }, () =>
    createQueuePoller({
      sqs: options.sqs,
      queueUrl,
      logger: options.logger,
      handler: async (records) =>
        (await pool.invoke({
          Records: records.map((r) => ({
            messageId: r.messageId,
            body: r.body,
            eventSource: 'aws:sqs',
          })),
        })) as { batchItemFailures: Array<{ itemIdentifier: string }> },
    }),
  );
  for (const poller of pollers) poller.start();
  return {
    healthy: pool.healthy,
    pids: pool.pids,
    readyPids: pool.readyPids,
    async stop() {
      await Promise.all(pollers.map((p) => p.stop()));
      await pool.stop();
    },
  };
}
