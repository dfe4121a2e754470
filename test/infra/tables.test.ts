import { describe, expect, it } from 'vitest';
import { createTableInput } from '../../infra/local/provision.js';
import { TABLES } from '../../lib/resources/definitions.js';
import { synthPlatform } from './synth.js';

const { template } = synthPlatform({ stage: 'dev' });
const ledger = TABLES.find((t) => t.id === 'ledger')!;

describe('tables in the CDK stack', () => {
  it('has one table per definition, hardened (point-in-time recovery asserted on each: cdk-nag does not check TableV2)', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', TABLES.length);
    for (const definition of TABLES) {
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TableName: `platform-dev-${definition.id}`,
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        Replicas: [
          {
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: {
              PointInTimeRecoveryEnabled: true,
              RecoveryPeriodInDays: 35,
            },
          },
        ],
        ...(definition.ttlAttribute
          ? { TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true } }
          : {}),
        ...(definition.stream ? { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } } : {}),
      });
    }
  });

  it('has the same keys and indexes the local platform creates (one definition, two consumers)', () => {
    const tables = template.findResources('AWS::DynamoDB::GlobalTable');
    for (const definition of TABLES) {
      const [, resource] = Object.entries(tables).find(
        ([, r]) => r.Properties.TableName === `platform-dev-${definition.id}`,
      )!;
      const local = createTableInput(`platform-dev-${definition.id}`, definition);
      expect(resource.Properties.KeySchema).toEqual(local.KeySchema);
      expect(new Set(resource.Properties.AttributeDefinitions)).toEqual(
        new Set(local.AttributeDefinitions),
      );
      const cloudIndexes = (resource.Properties.GlobalSecondaryIndexes ?? []).map(
        (i: { IndexName: string; KeySchema: unknown }) => ({
          IndexName: i.IndexName,
          KeySchema: i.KeySchema,
        }),
      );
      const localIndexes = (local.GlobalSecondaryIndexes ?? []).map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
      }));
      expect(cloudIndexes).toEqual(localIndexes);
    }
  });

  it('gives each bucket of context "ledgerBuckets" its own table, built and hardened like the default ledger table', () => {
    const withBuckets = synthPlatform({
      stage: 'prod',
      ledgerBuckets: '["heavy","reports"]',
    }).template;
    withBuckets.resourceCountIs('AWS::DynamoDB::GlobalTable', TABLES.length + 2);
    const tables = withBuckets.findResources('AWS::DynamoDB::GlobalTable');
    const local = createTableInput('x', ledger);
    for (const bucket of ['heavy', 'reports']) {
      const [, resource] = Object.entries(tables).find(
        ([, r]) => r.Properties.TableName === `platform-prod-ledger-${bucket}`,
      )!;
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        Replicas: [
          {
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: {
              PointInTimeRecoveryEnabled: true,
              RecoveryPeriodInDays: 35,
            },
          },
        ],
        TimeToLiveSpecification: { AttributeName: ledger.ttlAttribute, Enabled: true },
        KeySchema: local.KeySchema,
      });
      // Their log and mapping items carry the ledger's events, as the default table's do.
      expect(resource.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
      expect(
        resource.Properties.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName),
      ).toEqual(['gsi1', 'due']);
      expect(resource.DeletionPolicy).toBe('Retain');
    }
  });

  it('retains every table when the stack is deleted', () => {
    for (const resource of Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))) {
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    }
  });
});
