import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableEncryptionV2, TableV2, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, type KeyAttribute, type TableDefinition, type TableId } from '../../lib/resources/definitions.js';

const attribute = (key: KeyAttribute): Attribute => ({ name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER });

/**
 * Every table of `lib/resources/definitions.ts`, the module `npm start` also provisions from: on-demand,
 * point-in-time recovery, deletion protection, encryption, TTL and streams as defined.
 */
export function createTables(scope: Construct, prefix: string): Record<TableId, TableV2> {
  return Object.fromEntries(TABLES.map((definition) => [definition.id, createTable(scope, prefix, definition)])) as Record<TableId, TableV2>;
}

function createTable(scope: Construct, prefix: string, definition: TableDefinition): TableV2 {
  return new TableV2(scope, `${definition.id}-table`, {
    tableName: `${prefix}${definition.id}`,
    partitionKey: attribute(definition.partitionKey),
    sortKey: attribute(definition.sortKey),
    billing: Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: 35 },
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

/** Kept for the stack issue: streams retain records 24 h, so the dispatcher must alarm long before. */
