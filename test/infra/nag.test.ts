import { Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthPlatform } from './synth.js';

/**
 * Every finding the platform acknowledges, as `<construct path relative to the stack> <rule id>`. Adding an
 * acknowledgement anywhere makes this test fail until it is added here too — reviewed, not slipped in.
 */
const FUNCTIONS = [
  'auth',
  'ledger',
  'ledger-writer',
  'payments',
  'platform',
  'webhooks',
  'dispatch',
  'deliver',
  'rotate-keys',
  'console',
  'pipelines',
  'payments-connectors',
  'ledger-holds',
  'ledger-reply-sweep',
];
const ACKNOWLEDGED = [
  ...FUNCTIONS.map((fn) => `${fn}/function AwsSolutions-L1`),
  ...['auth', 'ledger', 'webhooks', 'payments', 'platform'].flatMap((service) => [
    `api/http-api/ANY--api--${service} AwsSolutions-APIG4`,
    `api/http-api/ANY--api--${service}--{proxy+} AwsSolutions-APIG4`,
  ]),
  'api/http-api/GET--versions AwsSolutions-APIG4',
  // The API reference and the merged OpenAPI document: public, they describe the API.
  'api/http-api/GET--docs AwsSolutions-APIG4',
  'api/http-api/GET--docs--{proxy+} AwsSolutions-APIG4',
  'api/http-api/GET--openapi.json AwsSolutions-APIG4',
  // The console's page and assets: public static files, no data.
  'api/http-api/GET--console AwsSolutions-APIG4',
  'api/http-api/GET--console--{proxy+} AwsSolutions-APIG4',
  'queues/dispatch-failures AwsSolutions-SQS3',
  'queues/pipeline-stream-failures AwsSolutions-SQS3',
  // The reply channel's queues are created at run time: the grant names their prefix.
  ...['ledger', 'ledger-writer', 'ledger-reply-sweep'].map(
    (fn) =>
      `${fn}/role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:<queuesledgeringressACA55C30.QueueName>-r-*]`,
  ),
  // ListQueues has no resource-level permission: the sweeper's role lists on `*`.
  'ledger-reply-sweep/role AwsSolutions-IAM5[Resource::*]',
].sort();

function acknowledgements(stack: IConstruct): Array<{ where: string; id: string; reason: string }> {
  const found: Array<{ where: string; id: string; reason: string }> = [];
  const walk = (node: IConstruct) => {
    for (const entry of node.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({
          where: node.node.path.slice(stack.node.path.length + 1),
          id: id.replace(/^annotation::/i, ''),
          reason,
        });
      }
    }
    node.node.children.forEach(walk);
  };
  walk(stack);
  return found;
}

describe.each([
  { stage: 'dev', context: { stage: 'dev' }, alsoAcknowledged: [] as string[] },
  {
    stage: 'dev with active tracing',
    context: { stage: 'dev', tracing: 'true' },
    // Lambda's X-Ray permissions name no resource: the one wildcard, on each role, for that reason only.
    alsoAcknowledged: FUNCTIONS.map((fn) => `${fn}/role AwsSolutions-IAM5[Resource::*]`),
  },
  {
    stage: 'prod with bucket tables, a custom domain and static clients',
    context: {
      stage: 'prod',
      ledgerBuckets: 'heavy',
      publicBaseUrl: 'https://api.example.com',
      authConfig: 'clients:\n  - id: billing\n    secrets: [$BILLING_SECRET]\n',
      staticClientSecrets: '{"BILLING_SECRET":"platform/billing#secret"}',
      alarmEmail: 'ops@example.com',
    },
    alsoAcknowledged: [],
  },
])('cdk-nag AwsSolutions on the $stage stack', ({ context, alsoAcknowledged }) => {
  const { stack } = synthPlatform(context);

  it('reports no finding that is not acknowledged (errors and warnings alike)', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges exactly the listed findings, each with a reason', () => {
    const found = acknowledgements(stack);
    expect(found.map((a) => `${a.where} ${a.id}`).sort()).toEqual(
      [...ACKNOWLEDGED, ...alsoAcknowledged].sort(),
    );
    for (const { reason } of found) expect(reason.length).toBeGreaterThan(80);
  });
});

describe('cdk-nag wiring', () => {
  it('still reports an unacknowledged finding (the check is live, not silenced wholesale)', () => {
    // A fresh, unacknowledged copy of an acknowledged problem must still be reported.
    const { stack } = synthPlatform(
      { stage: 'dev' },
      (s) => new Queue(s, 'stray', { enforceSSL: true }),
    );
    const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    expect(rules).toEqual(['AwsSolutions-SQS3']);
  });
});
