import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isEnvironmentId } from '../../environments/environment-id.js';
import { LEDGER_NAME } from '../../validation/names.js';
import { isPipelineId, type PipelineRef } from '../domain/pipeline.js';

/**
 * Why a pipeline is drained: `wake`, something happened (a ledger logged, a pipeline was created, started or
 * reset, a backfill has more); `retry`, a failed pipeline's back-off is over (or a stage of a longer one is).
 */
export type WakeKind = 'wake' | 'retry';

/** A message of the pipeline-wakes queue: a pointer to a pipeline, never a log. */
export interface PipelineWake {
  ref: PipelineRef;
  kind: WakeKind;
}

export const encodeWake = ({ ref, kind }: PipelineWake): string =>
  JSON.stringify({ environment: ref.environment, ledger: ref.ledger, id: ref.id, kind });

/** The wake a message holds, or undefined when it is none (it is then dropped). */
export function decodeWake(body: string): PipelineWake | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { environment, ledger, id, kind } = parsed ?? {};
  if (!isEnvironmentId(environment) || typeof ledger !== 'string' || !LEDGER_NAME.test(ledger))
    return undefined;
  if (typeof id !== 'string' || !isPipelineId(id) || (kind !== 'wake' && kind !== 'retry'))
    return undefined;
  return { ref: { environment, ledger, id }, kind };
}

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;

/**
 * The pipeline-wakes queue, and the only code that sends to it: the pipelines function queues the pipelines a
 * ledger stream woke, and each drain's follow-up (a backfill's next round, a failure's retry after its back-off).
 */
export class PipelineWakeQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** Each wake after its delay (seconds, ≤ 900); throws when SQS took not all of them (the caller retries). */
  async send(wakes: ReadonlyArray<PipelineWake & { delaySeconds: number }>): Promise<void> {
    for (let i = 0; i < wakes.length; i += SQS_BATCH) {
      const chunk = wakes.slice(i, i + SQS_BATCH);
      const { Failed = [] } = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((wake, n) => ({
            Id: String(n),
            MessageBody: encodeWake(wake),
            DelaySeconds: wake.delaySeconds,
          })),
        }),
      );
      if (Failed.length > 0)
        throw new Error(
          `SendMessageBatch to the pipeline-wakes queue failed: ${Failed[0]!.Code ?? ''} ${Failed[0]!.Message ?? ''}`.trim(),
        );
    }
  }
}
