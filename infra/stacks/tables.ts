import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  Billing,
  StreamViewType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  type KeyAttribute,
  TABLES,
  type TableDefinition,
  type TableId,
} from '../../lib/resources/definitions.js';

const attribute = (key: KeyAttribute): Attribute => ({
  name: key.name,
  type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
});

/**
 * Every table of `lib/resources/definitions.ts`, the module `npm start` also provisions from: on-demand,
 * point-in-time recovery, deletion protection, encryption, TTL and streams as defined.
 */
export function createTables(scope: Construct, prefix: string): Record<TableId, TableV2> {
  return Object.fromEntries(
    TABLES.map((definition) => [
      definition.id,
      createTable(scope, `${definition.id}-table`, `${prefix}${definition.id}`, definition),
    ]),
  ) as Record<TableId, TableV2>;
}

/** Physical name of a bucket's own ledger table. */
export const bucketTableName = (prefix: string, bucket: string): string =>
  `${prefix}ledger-${bucket}`;

/**
 * One table per ledger bucket moved off the default ledger table, each built from the ledger table's definition
 * (same keys, index, TTL and hardening). Returns bucket → table, the source of `LEDGER_BUCKET_TABLES`.
 */
export function createBucketTables(
  scope: Construct,
  prefix: string,
  buckets: readonly string[],
): Map<string, TableV2> {
  const ledger = TABLES.find((t) => t.id === 'ledger')!;
  return new Map(
    buckets.map((bucket) => [
      bucket,
      createTable(scope, `ledger-bucket-${bucket}-table`, bucketTableName(prefix, bucket), ledger),
    ]),
  );
}

function createTable(
  scope: Construct,
  id: string,
  tableName: string,
  definition: TableDefinition,
): TableV2 {
  return new TableV2(scope, id, {
    tableName,
    partitionKey: attribute(definition.partitionKey),
    sortKey: attribute(definition.sortKey),
    billing: Billing.onDemand(),
    pointInTimeRecoverySpecification: {
      pointInTimeRecoveryEnabled: true,
      recoveryPeriodInDays: 35,
    },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    encryption: TableEncryptionV2.awsManagedKey(),
    ...(definition.ttlAttribute ? { timeToLiveAttribute: definition.ttlAttribute } : {}),
    ...(definition.stream ? { dynamoStream: StreamViewType.NEW_IMAGE } : {}),
    globalSecondaryIndexes: definition.globalIndexes.map((index) => ({
      indexName: index.name,
      partitionKey: attribute(index.partitionKey),
      ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
    })),
  });
}
