import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { leadingKeysPattern } from '../../lib/environments/key-scope.js';
import type { PlatformFunction } from './functions.js';
import { grantTable, type TableAccess } from './grants.js';

/** The session tag naming the environment a request's credentials are for (lib/dynamo/sts-credentials.ts). */
export const ENVIRONMENT_TAG = 'environment';

/** Partition keys of the environment the session is tagged with: `E#<environment>#*` (lib/environments). */
export const TAGGED_ENVIRONMENT_KEYS = leadingKeysPattern(
  `\${aws:PrincipalTag/${ENVIRONMENT_TAG}}`,
);

/**
 * The isolation guard of one function (docs/operations.md, "Isolation guard"; the AWS SaaS pattern): a role the
 * function assumes per environment with the session tag `environment=<id>`, allowed the function's DynamoDB
 * actions only on partition keys `E#<that id>#*`. The function's own role is given nothing on these tables: its
 * DynamoDB calls outside a request's environment (none but the JWKS read) fail closed, and a request's calls
 * cannot reach another environment's items whatever the code asks.
 */
export class EnvironmentAccess extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, fn: PlatformFunction) {
    super(scope, id);
    this.role = new Role(this, 'role', {
      description: `Isolation guard of the ${fn.node.id} function: one environment's items, assumed per request`,
      assumedBy: fn.role,
    });
    // Tagging the session: the function's role, with a non-empty environment tag and no other tag. A session
    // assumed without the tag matches no statement below (its policy variable does not resolve): it gets nothing.
    this.role.assumeRolePolicy?.addStatements(
      new PolicyStatement({
        actions: ['sts:TagSession'],
        principals: [fn.role],
        conditions: {
          StringLike: { [`aws:RequestTag/${ENVIRONMENT_TAG}`]: '?*' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [ENVIRONMENT_TAG] },
        },
      }),
    );
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sts:AssumeRole', 'sts:TagSession'],
        resources: [this.role.roleArn],
      }),
    );
    fn.fn.addEnvironment('ENVIRONMENT_ACCESS_ROLE_ARN', this.role.roleArn);
  }

  /** The function's access to `table` (and Query on `indexes`), for the tagged environment's items only. */
  grantTable(table: ITableV2, access: TableAccess, indexes: string[] = []): void {
    grantTable(this.role, table, access, indexes, [TAGGED_ENVIRONMENT_KEYS]);
  }
}
