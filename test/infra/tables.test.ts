import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PlatformStack } from '../../infra/stacks/platform-stack.js';
import { createTableInput } from '../../infra/local/provision.js';
import { TABLES } from '../../lib/resources/definitions.js';

const template = Template.fromStack(new PlatformStack(new App(), 'platform-test', { stage: 'dev' }));

describe('tables in the CDK stack', () => {
  it('has one table per definition, hardened', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', TABLES.length);
    for (const definition of TABLES) {
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TableName: `platform-test-${definition.id}`,
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        Replicas: [
          {
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
          },
        ],
        ...(definition.ttlAttribute ? { TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true } } : {}),
        ...(definition.stream ? { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } } : {}),
      });
    }
  });

  it('has the same keys and indexes the local platform creates (one definition, two consumers)', () => {
    const tables = template.findResources('AWS::DynamoDB::GlobalTable');
    for (const definition of TABLES) {
      const [, resource] = Object.entries(tables).find(([, r]) => r.Properties.TableName === `platform-test-${definition.id}`)!;
      const local = createTableInput(`platform-test-${definition.id}`, definition);
      expect(resource.Properties.KeySchema).toEqual(local.KeySchema);
      expect(new Set(resource.Properties.AttributeDefinitions)).toEqual(new Set(local.AttributeDefinitions));
      const cloudIndexes = (resource.Properties.GlobalSecondaryIndexes ?? []).map((i: { IndexName: string; KeySchema: unknown }) => ({ IndexName: i.IndexName, KeySchema: i.KeySchema }));
      const localIndexes = (local.GlobalSecondaryIndexes ?? []).map((i) => ({ IndexName: i.IndexName, KeySchema: i.KeySchema }));
      expect(cloudIndexes).toEqual(localIndexes);
    }
  });
});
