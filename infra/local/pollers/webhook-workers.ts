import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBStreamsClient,
  type DynamoDBStreamsClientConfig,
} from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlatformConfig } from '../../../lib/config/env.js';
import { webhookWorkerConfigFromVariables } from '../../../lib/config/env.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import type { Logger } from '../../../lib/observability/logger.js';
import { deliverBatch } from '../../../lib/webhooks/deliver/deliver-batch.js';
import { dispatchBatch } from '../../../lib/webhooks/dispatch/dispatch-batch.js';
import { DeliveryQueue } from '../../../lib/webhooks/store/delivery-queue.js';
import { pendingDeliveriesOfEveryEnvironment } from '../../../lib/webhooks/store/pending-everywhere.js';
import {
  createDeliverDeps,
  createDispatchDeps,
  workerSettings,
} from '../../../lib/webhooks/workers.js';
import type { LedgerWrites } from '../ledger-events/ledger-writes.js';
import { dynamoLogTailCheckpoints } from '../ledger-events/log-tail-checkpoints.js';
import type { WriteSignal } from '../write-signal.js';
import { startDispatchPollers } from './dispatch-pollers.js';
import { createQueuePoller } from './queue-poller.js';
import { requeuePendingDeliveries } from './requeue-pending.js';
import { dynamoStreamCheckpoints } from './stream-checkpoints.js';

export interface WebhookWorkersOptions {
  /** The functions' environment the workers' settings are read from, as their functions read it. */
  variables: NodeJS.ProcessEnv;
  config: PlatformConfig;
  /** The clients of this process, shared. */
  doc: DynamoDBDocumentClient;
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  /** The connection the streams client is made with (region, credentials, DynamoDB Local's endpoint). */
  streamsConnection: DynamoDBStreamsClientConfig;
  tables: Record<string, string>;
  logger: Logger;
  /** Each stop registered as it is started, so a failure later stops what was started. */
  onStop: (stop: () => Promise<void>) => void;
  /** The gateway's writes, which wake the idle stream pollers. */
  writes?: WriteSignal;
  /** The embedded platform's ledger writes: its stream-less ledger tables are read through their logs. */
  ledgerWrites?: LedgerWrites;
}

/**
 * `dispatch` and `deliver` as their event source mappings feed them: the streams of the events table and of every
 * ledger table to `dispatch`, the deliveries queue to `deliver`. Resolves once every poller is positioned.
 */
export async function startWebhookWorkers(options: WebhookWorkersOptions): Promise<void> {
  const { variables, config, sqs, logger, tables, onStop } = options;
  const streamsClient = new DynamoDBStreamsClient(options.streamsConnection);
  onStop(async () => streamsClient.destroy());
  // The webhook workers as their functions compose them, from the settings their functions read; the clients
  // of this process shared.
  const settings = workerSettings(webhookWorkerConfigFromVariables(variables));
  const clients = { doc: options.doc, sqs, logger };
  const deps = createDispatchDeps(settings, clients);
  // The queue is in memory: pending deliveries whose messages a restart lost get one again, before anything runs.
  await requeuePendingDeliveries(
    pendingDeliveriesOfEveryEnvironment(options.doc, settings.table),
    new DeliveryQueue({ sqs, queueUrl: settings.queueUrl }),
  );
  // The events table's stream and every ledger table's, each as its own event source mapping would.
  const stopDispatch = await startDispatchPollers({
    dynamo: options.dynamo,
    streams: streamsClient,
    eventsTable: tables.EVENTS_TABLE!,
    ledgerTables: new BucketTables(config.tables.ledger, config.ledger.bucketTables).all(),
    handler: (records) => dispatchBatch(records, deps),
    logger,
    // Checkpoints kept beside the data: after a restart, events committed meanwhile are dispatched too.
    checkpoints: dynamoStreamCheckpoints(options.doc, tables.WEBHOOKS_TABLE!),
    ...(options.writes ? { wakeOn: options.writes } : {}),
    ...(options.ledgerWrites
      ? {
          logTail: {
            writes: options.ledgerWrites,
            checkpoints: (ledgerTable: string) =>
              dynamoLogTailCheckpoints(
                options.doc,
                tables.WEBHOOKS_TABLE!,
                ledgerTable,
                'dispatch',
              ),
          },
        }
      : {}),
  });
  onStop(stopDispatch);
  // And the deliveries queue to `deliver`, as its SQS event source mapping does.
  const deliverDeps = createDeliverDeps(settings, clients);
  const deliveries = createQueuePoller({
    sqs,
    queueUrl: settings.queueUrl,
    handler: (records) => deliverBatch(records, deliverDeps),
    logger,
  });
  deliveries.start();
  onStop(() => deliveries.stop());
}
