import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * DynamoDB access in the item-level actions the code actually sends, never `dynamodb:*` and never Scan
 * (the design forbids unbounded scans, so no role can run one). Transactions need no action of their own:
 * TransactWriteItems is authorised per item (Put/Update/Delete/ConditionCheck), TransactGetItems per Get.
 */
export const TABLE_ACTIONS = {
  /** GetItem and BatchGetItem only: the JWKS read every service does to verify tokens. */
  getItems: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
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
  /** The outbox: services only append event rows (inside their state-change transaction). */
  putItems: ['dynamodb:PutItem'],
  /** DescribeTable only: a table's status, never its items (the auth function's `/versions` health probes). */
  describe: ['dynamodb:DescribeTable'],
  /** A global secondary index can only be queried. */
  queryIndex: ['dynamodb:Query'],
} as const;

export type TableAccess = keyof Omit<typeof TABLE_ACTIONS, 'queryIndex'>;

/** Grants `access` on the table itself and Query on the named indexes only (not `index/*`). */
export function grantTable(
  grantee: IGrantable,
  table: ITableV2,
  access: TableAccess,
  indexes: string[] = [],
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn] }),
  );
  if (indexes.length > 0) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...TABLE_ACTIONS.queryIndex],
        resources: indexes.map((index) => `${table.tableArn}/index/${index}`),
      }),
    );
  }
}
