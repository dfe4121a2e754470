import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * DynamoDB access in the item-level actions the code actually sends, never `dynamodb:*` and never Scan
 * (no request may do unbounded work, so no role can run a scan). Transactions need no action of their own:
 * TransactWriteItems is authorised per item (Put/Update/Delete/ConditionCheck), TransactGetItems per Get.
 */
export const TABLE_ACTIONS = {
  /** GetItem and BatchGetItem only. */
  getItems: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
  /** GetItem alone: reads of named items (with `leadingKeys`: the JWKS, the signing keys). */
  getItem: ['dynamodb:GetItem'],
  /**
   * A service's own table: reads, queries on the key, writes and transaction condition checks. BatchWriteItem is
   * an action of its own to IAM (the ledger writes transaction and result items with it after a group commit);
   * it grants nothing PutItem and DeleteItem do not.
   */
  readWrite: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:PutItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  /** The pipeline worker: reads the log and its pipelines, and moves a pipeline's cursor (UpdateItem) only. */
  readAndUpdate: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:UpdateItem',
  ],
  /** The outbox: services only append event rows (inside their state-change transaction). */
  putItems: ['dynamodb:PutItem'],
  /** DescribeTable only: a table's status, never its items (the auth function's `/versions` health probes). */
  describe: ['dynamodb:DescribeTable'],
  /** A global secondary index can only be queried. */
  queryIndex: ['dynamodb:Query'],
} as const;

export type TableAccess = keyof Omit<typeof TABLE_ACTIONS, 'queryIndex'>;

/**
 * Grants `access` on the table itself and Query on the named indexes only (not `index/*`). With `leadingKeys`,
 * only on items (and index partitions) whose partition key matches one of the patterns (`*` and `?` wildcards,
 * IAM policy variables allowed): the condition every statement then carries is `leadingKeysCondition`.
 */
export function grantTable(
  grantee: IGrantable,
  table: ITableV2,
  access: TableAccess,
  indexes: string[] = [],
  leadingKeys?: string[],
): void {
  const conditions = leadingKeys ? leadingKeysCondition(leadingKeys) : undefined;
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...TABLE_ACTIONS[access]],
      resources: [table.tableArn],
      ...(conditions ? { conditions } : {}),
    }),
  );
  if (indexes.length > 0) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...TABLE_ACTIONS.queryIndex],
        resources: indexes.map((index) => `${table.tableArn}/index/${index}`),
        ...(conditions ? { conditions } : {}),
      }),
    );
  }
}

/** Query on one index of `table` (not the table), for index partitions matching `leadingKeys` only. */
export function grantIndexQuery(
  grantee: IGrantable,
  table: ITableV2,
  index: string,
  leadingKeys: string[],
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...TABLE_ACTIONS.queryIndex],
      resources: [`${table.tableArn}/index/${index}`],
      conditions: leadingKeysCondition(leadingKeys),
    }),
  );
}

/**
 * Every partition key the request names (an item's, a batch's or transaction's items', a Query's partition, of
 * the table or of the index queried) matches one of `patterns`. `ForAllValues` alone holds vacuously when a
 * request names no key (a Scan): the `Null` test refuses that too, whatever actions a statement lists.
 */
export function leadingKeysCondition(patterns: string[]): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns },
    Null: { 'dynamodb:LeadingKeys': 'false' },
  };
}
