import type { Logger } from '../../observability/logger.js';
import { decodeWake, type PipelineWake, type PipelineWakeQueue } from '../store/pipeline-wakes.js';
import type { ExportStores } from '../stores.js';
import type { PipelineWorker } from './drain-pipeline.js';
import { type FollowUp, followUpOf } from './follow-up.js';
import { pipelinesOfWake, type WakeRecord, wakesOf } from './stream-wakes.js';

/** A record of either event source of the pipelines function. */
export type PipelineEventRecord =
  | (WakeRecord & { eventSource: 'aws:dynamodb' })
  | { eventSource: 'aws:sqs'; messageId: string; body: string };

export interface PipelineLambdaDeps {
  worker: PipelineWorker;
  stores: ExportStores;
  queue: PipelineWakeQueue;
  logger: Logger;
  now: () => number;
  /** How long a drain keeps starting batches (its last batch may run past it, by one send at most). */
  drainBudgetMs: number;
}

export interface BatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/**
 * The pipelines function (docs/decisions/exporters.md, "Exporters and pipelines"). A ledger table's stream batch only says
 * which pipelines to wake: they are queued, so no pipeline's destination ever holds a stream (and with it other
 * ledgers' pipelines). A batch of the wakes queue drains its pipelines, in parallel, and queues what each outcome
 * asks for next: the rest of a backfill at once, a failed batch after its back-off.
 */
export async function handlePipelineEvent(
  records: readonly PipelineEventRecord[],
  deps: PipelineLambdaDeps,
): Promise<BatchResponse> {
  const stream = records.filter((r) => r.eventSource === 'aws:dynamodb');
  const messages = records.filter((r) => r.eventSource === 'aws:sqs');
  if (stream.length > 0) await queueStreamWakes(stream, deps);
  return messages.length > 0 ? drainMessages(messages, deps) : { batchItemFailures: [] };
}

/** Queues every running pipeline the stream records wake; throws (the batch is retried) when that fails. */
async function queueStreamWakes(records: WakeRecord[], deps: PipelineLambdaDeps): Promise<void> {
  const wakes: Array<PipelineWake & { delaySeconds: number }> = [];
  for (const wake of wakesOf(records))
    for (const ref of await pipelinesOfWake(wake, deps.stores))
      wakes.push({ ref, kind: 'wake', delaySeconds: 0 });
  await deps.queue.send(wakes);
}

/**
 * Drains each pipeline the messages name, once even if named twice, and queues the follow-ups. A message whose
 * drain or follow-up failed is reported, and SQS brings it back after its visibility timeout (after five receives
 * it goes to the dead-letter queue, which is alarmed); an unreadable message is dropped, with a warning.
 */
async function drainMessages(
  messages: Array<{ messageId: string; body: string }>,
  deps: PipelineLambdaDeps,
): Promise<BatchResponse> {
  const byPipeline = new Map<string, { wake: PipelineWake; messageIds: string[] }>();
  for (const { messageId, body } of messages) {
    const wake = decodeWake(body);
    if (!wake) {
      deps.logger.log('warn', 'pipeline wake dropped: not a wake message', { messageId });
      continue;
    }
    const key = `${wake.ref.environment}/${wake.ref.ledger}/${wake.ref.id}`;
    const entry = byPipeline.get(key) ?? { wake, messageIds: [] };
    // A retry among them keeps its meaning: a back-off longer than SQS's delay needs its next hop.
    if (wake.kind === 'retry') entry.wake = wake;
    entry.messageIds.push(messageId);
    byPipeline.set(key, entry);
  }
  const failed: string[] = [];
  await Promise.all(
    [...byPipeline.values()].map(async ({ wake, messageIds }) => {
      try {
        const next = await drainOnce(wake, deps);
        if (next) await deps.queue.send([{ ref: wake.ref, ...next }]);
      } catch (err) {
        deps.logger.log('error', 'pipeline drain failed', { ...wake.ref, error: String(err) });
        failed.push(...messageIds);
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}

async function drainOnce(
  wake: PipelineWake,
  deps: PipelineLambdaDeps,
): Promise<FollowUp | undefined> {
  const outcome = await deps.worker.drain(wake.ref, {
    deadlineMs: deps.now() + deps.drainBudgetMs,
  });
  if (outcome.state === 'failed')
    deps.logger.log('warn', 'pipeline batch refused', { ...wake.ref, error: outcome.error });
  return followUpOf(wake.kind, outcome, deps.now());
}
