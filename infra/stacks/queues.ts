import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  deadLetterQueueName,
  QUEUES,
  type QueueDefinition,
  type QueueId,
} from '../../lib/resources/definitions.js';
import { acknowledge } from './nag.js';

/** Messages that failed every receive, or the dispatcher's failed stream batches: kept as long as SQS allows. */
const DEAD_LETTER_RETENTION = Duration.days(14);

const COMMON = {
  enforceSSL: true,
  encryption: QueueEncryption.SQS_MANAGED,
  removalPolicy: RemovalPolicy.RETAIN,
} as const;

/** A queue of `lib/resources/definitions.ts`, its definition, and the dead-letter queue it moves to after `maxReceiveCount`. */
export interface DefinedQueue {
  queue: Queue;
  deadLetters: Queue;
  definition: QueueDefinition;
}

/**
 * Every queue of `lib/resources/definitions.ts` (the ones `npm start` creates in fauxqs), each with its
 * dead-letter queue, and the dispatcher's on-failure queue. All SSL-only and encrypted (SQS-managed keys).
 */
export class PlatformQueues extends Construct {
  /** Webhook deliveries: `deliver` consumes it. */
  readonly deliveries: DefinedQueue;
  /** Ledger writes relayed to the sequenced writer: `ledger` sends, `ledger-writer` consumes. */
  readonly ledgerIngress: DefinedQueue;
  /** Where Lambda sends the description of a stream batch `dispatch` could not process (not the records). */
  readonly dispatchFailures: Queue;
  /** Pipelines to drain: the pipelines function sends (stream wakes, follow-ups) and consumes. */
  readonly pipelineWakes: DefinedQueue;
  /** The same as dispatchFailures, for the pipelines function's ledger stream mappings. */
  readonly pipelineStreamFailures: Queue;

  constructor(
    scope: Construct,
    id: string,
    private readonly physicalPrefix: string,
  ) {
    super(scope, id);
    this.deliveries = this.defined('deliveries');
    this.ledgerIngress = this.defined('ledger-ingress');
    this.dispatchFailures = new Queue(this, 'dispatch-failures', {
      ...COMMON,
      queueName: `${physicalPrefix}dispatch-failures`,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    this.pipelineWakes = this.defined('pipeline-wakes');
    this.pipelineStreamFailures = new Queue(this, 'pipeline-stream-failures', {
      ...COMMON,
      queueName: `${physicalPrefix}pipeline-stream-failures`,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    for (const failures of [this.dispatchFailures, this.pipelineStreamFailures])
      acknowledge(failures, {
        id: 'AwsSolutions-SQS3',
        reason:
          "This queue is itself a dead-letter destination (a stream mapping's on-failure destination); nothing consumes it, " +
          'an alarm fires on its first message, and a dead-letter queue of a dead-letter queue would only move the same messages again.',
      });
  }

  private defined(id: QueueId): DefinedQueue {
    const definition = QUEUES.find((q) => q.id === id);
    if (!definition) throw new Error(`lib/resources/definitions.ts has no ${id} queue`);
    const name = `${this.physicalPrefix}${definition.id}`;
    const deadLetters = new Queue(this, `${id}-dlq`, {
      ...COMMON,
      queueName: deadLetterQueueName(name),
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new Queue(this, id, {
      ...COMMON,
      queueName: name,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(definition.retentionSeconds),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: definition.maxReceiveCount },
    });
    return { queue, deadLetters, definition };
  }
}
