/**
 * The one description of every table and queue the platform uses.
 *
 * Two consumers read it: the CDK stack (cloud) and `infra/local/provision.ts` (DynamoDB Local + fauxqs), so
 * the local platform and production cannot drift apart. Plain data only: no CDK or AWS SDK imports here.
 */

export type KeyAttribute = { name: string; type: 'S' | 'N' };

export interface IndexDefinition {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Logical id, also the suffix of the physical name (`<prefix><id>`). */
  id: TableId;
  /** Environment variable through which a function learns the physical table name. */
  variable: string;
  partitionKey: KeyAttribute;
  sortKey: KeyAttribute;
  globalIndexes: IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry, when records of this table expire. */
  ttlAttribute?: string;
  /** DynamoDB stream view, when something consumes the table's changes. */
  stream?: 'NEW_IMAGE';
  description: string;
}

export type TableId = 'auth' | 'ledger' | 'events' | 'webhooks' | 'payments' | 'platform';

const pk: KeyAttribute = { name: 'pk', type: 'S' };
const sk: KeyAttribute = { name: 'sk', type: 'S' };
/** A generic sparse index: items that set gsi1pk/gsi1sk are listable by type. */
const gsi1: IndexDefinition = {
  name: 'gsi1',
  partitionKey: { name: 'gsi1pk', type: 'S' },
  sortKey: { name: 'gsi1sk', type: 'S' },
};

export const TABLES: readonly TableDefinition[] = [
  {
    id: 'auth',
    variable: 'AUTH_TABLE',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    ttlAttribute: 'expiresAt',
    description:
      'OAuth clients (with secret digests), signing keys and the JWKS, token-endpoint failure counters',
  },
  {
    id: 'ledger',
    variable: 'LEDGER_TABLE',
    partitionKey: pk,
    sortKey: sk,
    // `due`: holds (pending transfers) due to expire, of every environment and ledger, by when: what the hold
    // sweeper reads (lib/ledger/store/due-holds.ts). Sparse: only an unresolved hold with an expiry carries `dueKey`.
    globalIndexes: [
      gsi1,
      {
        name: 'due',
        partitionKey: { name: 'dueKey', type: 'S' },
        sortKey: { name: 'dueAt', type: 'S' },
      },
    ],
    ttlAttribute: 'expiresAt',
    // Log items and the mapping item carry the ledger's events (`ev`): the stream takes them to dispatch.
    stream: 'NEW_IMAGE',
    description:
      'Default ledger table (and the model of every bucket table): every bucket not mapped to a table of its own',
  },
  {
    id: 'events',
    variable: 'EVENTS_TABLE',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [],
    ttlAttribute: 'expiresAt',
    stream: 'NEW_IMAGE',
    description:
      'Transactional outbox of payments: one row per event, carried onward by the table stream',
  },
  {
    id: 'webhooks',
    variable: 'WEBHOOKS_TABLE',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    ttlAttribute: 'expiresAt',
    description: 'Webhook configs, deliveries and attempts',
  },
  {
    id: 'payments',
    variable: 'PAYMENTS_TABLE',
    partitionKey: pk,
    sortKey: sk,
    // `due`: the connectors' schedules and the initiations waiting for a time, by when (lib/payments/store/due-index.ts).
    globalIndexes: [
      gsi1,
      {
        name: 'due',
        partitionKey: { name: 'dueKey', type: 'S' },
        sortKey: { name: 'nextRunAtMs', type: 'N' },
      },
    ],
    description: 'Payment records',
  },
  {
    // Organizations, their environments and members, persons' profiles (lib/platform/store/keys.ts). Shared by
    // every environment: its items are the directory that says which environments exist and who may use them.
    id: 'platform',
    variable: 'PLATFORM_TABLE',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [],
    description: 'Organizations, environments, members and persons (the platform service)',
  },
];

export type QueueId = 'deliveries' | 'ledger-ingress' | 'pipeline-wakes';

export interface QueueDefinition {
  id: QueueId;
  variable: string;
  /** Seconds; the stack also keeps it at least 6x the consumer's timeout. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  retentionSeconds: number;
}

export const QUEUES: readonly QueueDefinition[] = [
  {
    // Ledger writes relayed to the sequenced writer (group commit) of busy ledgers. A message carries its own
    // deadline (seconds), so its retention only needs to outlast retries (5 receives x 180 s).
    id: 'ledger-ingress',
    variable: 'LEDGER_INGRESS_QUEUE_URL',
    // 6 x the writer's 30 s timeout, AWS's advice for an event source mapping: Lambda may retry a throttled
    // invocation with the batch still in flight, and the writer also takes messages itself while draining.
    // A longer invisibility costs nothing here: an intent that comes back after it is past its 8 s deadline
    // anyway, and is answered "expired", never committed.
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionSeconds: 3600,
  },
  {
    id: 'deliveries',
    variable: 'DELIVERIES_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionSeconds: 4 * 24 * 3600,
  },
  {
    // Pipelines to drain (lib/exporters/worker/pipeline-lambda.ts): woken by the ledger streams, sent again with a
    // delay for a failed pipeline's back-off or a long backfill's next round. 6 x the pipelines function's 120 s.
    id: 'pipeline-wakes',
    variable: 'PIPELINE_WAKES_QUEUE_URL',
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    retentionSeconds: 4 * 24 * 3600,
  },
];

export const deadLetterQueueName = (queueName: string): string => `${queueName}-dlq`;

export function tableName(prefix: string, id: TableId): string {
  return `${prefix}${id}`;
}

/** Environment entries (`AUTH_TABLE=...`) for every table under a name prefix. */
export function tableVariables(prefix: string): Record<string, string> {
  return Object.fromEntries(TABLES.map((t) => [t.variable, tableName(prefix, t.id)]));
}
