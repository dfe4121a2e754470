import { describe, expect, it } from 'vitest';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

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
const { template } = synthPlatform({ stage: 'dev', alarmEmail: 'ops@example.com' });
const dev = templateReader(template);
const alarms = Object.values(dev.resources)
  .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
  .map((r) => r.Properties);
const topic = dev.logicalId('AWS::SNS::Topic', () => true);

/**
 * An alarm as "namespace metric dimension statistic >= threshold": a resource dimension as its logical id, the
 * platform's own dimensions as name=value pairs.
 */
const describeAlarm = (a: Record<string, any>) => {
  const dimensions = (a.Dimensions ?? []) as Array<{ Name: string; Value: any }>;
  const target =
    dimensions
      .map((d) =>
        typeof d.Value === 'string'
          ? `${d.Name}=${d.Value}`
          : (d.Value.Ref ?? d.Value['Fn::GetAtt']?.[0]),
      )
      .join(',') || '-';
  return `${a.Namespace} ${a.MetricName} ${target} ${a.ExtendedStatistic ?? a.Statistic} >= ${a.Threshold}`;
};

describe('alarms', () => {
  it('cover errors and throttles of every function, stream age, ledger ingress age, the dead-letter and failure queues, API 5xx, and the platform metrics (5xx and p99 latency per service, webhook failures, token failures)', () => {
    const fn = (name: string) => dev.fnId(`platform-dev-${name}`);
    expect(alarms.map(describeAlarm).sort()).toEqual(
      [
        ...FUNCTIONS.flatMap((n) => [
          `AWS/Lambda Errors ${fn(n)} Sum >= 1`,
          `AWS/Lambda Throttles ${fn(n)} Sum >= 1`,
        ]),
        `AWS/Lambda IteratorAge ${fn('dispatch')} Maximum >= 3600000`,
        `AWS/Lambda IteratorAge ${fn('pipelines')} Maximum >= 3600000`,
        `AWS/SQS ApproximateNumberOfMessagesVisible ${dev.queueId('platform-dev-pipeline-stream-failures')} Maximum >= 1`,
        `AWS/SQS ApproximateNumberOfMessagesVisible ${dev.queueId('platform-dev-pipeline-wakes-dlq')} Maximum >= 1`,
        'Platform/dev PipelineLag service=ledger Maximum >= 900000',
        'Platform/dev ConnectorRuns outcome=failed,service=payments Sum >= 5',
        'Platform/dev ConnectorLag service=payments Maximum >= 900000',
        'Platform/dev PipelineDrains outcome=failed,service=ledger Sum >= 5',
        'Platform/dev PipelineDrains outcome=error,service=ledger Sum >= 1',
        `AWS/SQS ApproximateAgeOfOldestMessage ${dev.queueId('platform-dev-ledger-ingress')} Maximum >= 5`,
        `AWS/SQS ApproximateNumberOfMessagesVisible ${dev.queueId('platform-dev-ledger-ingress-dlq')} Maximum >= 1`,
        `AWS/SQS ApproximateNumberOfMessagesVisible ${dev.queueId('platform-dev-deliveries-dlq')} Maximum >= 1`,
        `AWS/SQS ApproximateNumberOfMessagesVisible ${dev.queueId('platform-dev-dispatch-failures')} Maximum >= 1`,
        `AWS/ApiGateway 5xx ${dev.logicalId('AWS::ApiGatewayV2::Api', () => true)} Sum >= 10`,
        ...['ledger', 'webhooks', 'payments', 'auth', 'platform'].flatMap((service) => [
          `Platform/dev Requests service=${service},status_class=5xx Sum >= 10`,
          `Platform/dev Latency service=${service} p99 >= 2000`,
        ]),
        'Platform/dev WebhookDeliveries outcome=failed,service=webhooks Sum >= 10',
        'Platform/dev WebhookDeliveries outcome=error,service=webhooks Sum >= 5',
        'Platform/dev TokenFailures reason=invalid_client,service=auth Sum >= 50',
        'Platform/dev TokenFailures reason=throttled,service=auth Sum >= 10',
      ].sort(),
    );
  });

  it('evaluate five-minute periods, treat missing data as fine, and notify the alarm topic on alarm and on recovery', () => {
    for (const a of alarms) {
      expect(a).toMatchObject({
        Period: 300,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: topic }],
        OKActions: [{ Ref: topic }],
      });
      expect(a.AlarmDescription.length).toBeGreaterThan(10);
    }
  });

  it('the topic is encrypted with a rotated key CloudWatch may use, SSL-only, with the configured e-mail subscribed', () => {
    // The topic's own key (the stack has others, e.g. the signing keys').
    const key = dev.resources[topic]!.Properties.KmsMasterKeyId['Fn::GetAtt'][0] as string;
    expect(dev.resources[topic]!.Properties).toMatchObject({
      TopicName: 'platform-dev-alarms',
      KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] },
    });
    const keyProperties = dev.resources[key]!.Properties;
    expect(keyProperties.EnableKeyRotation).toBe(true);
    expect(keyProperties.KeyPolicy.Statement).toContainEqual({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Resource: '*',
    });
    const policy = Object.values(dev.resources).find(
      (r) => r.Type === 'AWS::SNS::TopicPolicy',
    )!.Properties;
    expect(policy.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topic },
    });
  });

  it('subscribes nobody when no e-mail is configured', () => {
    synthPlatform({ stage: 'prod' }).template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});
