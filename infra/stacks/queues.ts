import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUES, deadLetterQueueName, type QueueDefinition } from '../../lib/resources/definitions.js';
import { acknowledge } from './nag.js';

/** Messages that failed every receive, or the dispatcher's failed stream batches: kept as long as SQS allows. */
const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * The deliveries queue of `lib/resources/definitions.ts` (the one `npm start` creates in fauxqs) with its
 * dead-letter queue, and the dispatcher's on-failure queue. All SSL-only and encrypted (SQS-managed keys).
 */
export class PlatformQueues extends Construct {
  readonly deliveries: Queue;
  readonly deliveriesDeadLetters: Queue;
  /** Where Lambda sends the description of a stream batch `dispatch` could not process (not the records). */
  readonly dispatchFailures: Queue;
  readonly definition: QueueDefinition;

  constructor(scope: Construct, id: string, physicalPrefix: string) {
    super(scope, id);
    const definition = QUEUES.find((q) => q.id === 'deliveries');
    if (!definition) throw new Error('lib/resources/definitions.ts has no deliveries queue');
    this.definition = definition;
    const name = `${physicalPrefix}${definition.id}`;
    const common = { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED, removalPolicy: RemovalPolicy.RETAIN } as const;
    this.deliveriesDeadLetters = new Queue(this, 'deliveries-dlq', {
      ...common,
      queueName: deadLetterQueueName(name),
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    this.deliveries = new Queue(this, 'deliveries', {
      ...common,
      queueName: name,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(definition.retentionSeconds),
      deadLetterQueue: { queue: this.deliveriesDeadLetters, maxReceiveCount: definition.maxReceiveCount },
    });
    this.dispatchFailures = new Queue(this, 'dispatch-failures', {
      ...common,
      queueName: `${physicalPrefix}dispatch-failures`,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    acknowledge(this.dispatchFailures, {
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination (the events stream mapping's on-failure destination); nothing consumes it, " +
        'an alarm fires on its first message, and a dead-letter queue of a dead-letter queue would only move the same messages again.',
    });
  }
}
