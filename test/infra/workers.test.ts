import { Duration } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import type { PlatformQueues } from '../../infra/stacks/queues.js';
import { feedLedgerWriter } from '../../infra/stacks/workers.js';
import { QUEUES } from '../../lib/resources/definitions.js';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

const { template } = synthPlatform({ stage: 'dev' });
const dev = templateReader(template);
const mappings = Object.values(dev.resources)
  .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')
  .map((r) => r.Properties);

/** dispatch's mapping of a table's stream. */
const streamMapping = (reader: typeof dev, table: string) =>
  Object.values(reader.resources)
    .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')
    .map((r) => r.Properties)
    .find(
      (m) =>
        JSON.stringify(m.EventSourceArn) ===
        JSON.stringify({ 'Fn::GetAtt': [reader.tableId(table), 'StreamArn'] }),
    );

/** Only ledger items with `ev` (log and mapping items) invoke dispatch. */
const LEDGER_FILTER = {
  Filters: [
    { Pattern: JSON.stringify({ dynamodb: { NewImage: { ev: { S: [{ exists: true }] } } } }) },
  ],
};

describe('dispatch: the events stream', () => {
  it('is fed from the oldest record, in batches, with partial failures, bisection, bounded age and retries, and a failure queue', () => {
    const mapping = streamMapping(dev, 'platform-dev-events')!;
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [dev.tableId('platform-dev-events'), 'StreamArn'] },
      FunctionName: { Ref: dev.fnId('platform-dev-dispatch') },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: 6 * 3600,
      MaximumRetryAttempts: 20,
      DestinationConfig: {
        OnFailure: {
          Destination: { 'Fn::GetAtt': [dev.queueId('platform-dev-dispatch-failures'), 'Arn'] },
        },
      },
    });
    // Streams keep records 24 h: the mapping must give up (to the failure queue) well before they vanish.
    expect(mapping.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(12 * 3600);
  });

  it('the events table streams new images', () => {
    expect(
      dev.resources[dev.tableId('platform-dev-events')]!.Properties.StreamSpecification,
    ).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });
});

describe("dispatch: the ledger tables' streams", () => {
  const prod = templateReader(
    synthPlatform({ stage: 'prod', ledgerBuckets: '["heavy","reports"]' }).template,
  );

  it.each([
    [dev, 'platform-dev-ledger', 'platform-dev'],
    [prod, 'platform-prod-ledger', 'platform-prod'],
    [prod, 'platform-prod-ledger-heavy', 'platform-prod'],
    [prod, 'platform-prod-ledger-reports', 'platform-prod'],
  ] as const)(
    '%#: %s feeds dispatch like the events table, filtered to the items that carry events',
    (reader, table, stack) => {
      expect(reader.resources[reader.tableId(table)]!.Properties.StreamSpecification).toEqual({
        StreamViewType: 'NEW_IMAGE',
      });
      expect(streamMapping(reader, table)).toEqual({
        EventSourceArn: { 'Fn::GetAtt': [reader.tableId(table), 'StreamArn'] },
        FunctionName: { Ref: reader.fnId(`${stack}-dispatch`) },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 25,
        MaximumBatchingWindowInSeconds: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BisectBatchOnFunctionError: true,
        MaximumRecordAgeInSeconds: 6 * 3600,
        MaximumRetryAttempts: 20,
        DestinationConfig: {
          OnFailure: {
            Destination: { 'Fn::GetAtt': [reader.queueId(`${stack}-dispatch-failures`), 'Arn'] },
          },
        },
        FilterCriteria: LEDGER_FILTER,
      });
    },
  );

  it('one mapping per stream: the events table and each ledger table', () => {
    const streams = (reader: typeof dev) =>
      Object.values(reader.resources).filter(
        (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.StartingPosition,
      ).length;
    // dispatch's (the events table and each ledger table), then the pipelines function's (each ledger table).
    expect([streams(dev), streams(prod)]).toEqual([3, 7]);
  });
});

describe('deliver: the deliveries queue', () => {
  it('is fed in batches of 10 with partial failures and bounded concurrency', () => {
    const mapping = mappings.find((m) => m.FunctionName.Ref === dev.fnId('platform-dev-deliver'))!;
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [dev.queueId('platform-dev-deliveries'), 'Arn'] },
      FunctionName: { Ref: dev.fnId('platform-dev-deliver') },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
    expect(mappings).toHaveLength(6);
  });
});

describe('ledger-writer: the ledger ingress queue', () => {
  it('is fed in batches of 10 at once (no batching window), with partial failures, at most two writers at a time', () => {
    const mapping = mappings.find(
      (m) => m.FunctionName.Ref === dev.fnId('platform-dev-ledger-writer'),
    )!;
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [dev.queueId('platform-dev-ledger-ingress'), 'Arn'] },
      FunctionName: { Ref: dev.fnId('platform-dev-ledger-writer') },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('its messages outlive their retries: retention covers every receive before the dead-letter queue', () => {
    const ingress = QUEUES.find((q) => q.id === 'ledger-ingress')!;
    expect(ingress.retentionSeconds).toBeGreaterThanOrEqual(
      ingress.maxReceiveCount * ingress.visibilityTimeoutSeconds,
    );
  });
});

describe('queues of the shared definitions', () => {
  it.each([
    ['deliveries', 'deliver'],
    ['ledger-ingress', 'ledger-writer'],
  ] as const)(
    "%s: the definition, a visibility timeout of at least 6x its consumer's timeout, a DLQ after maxReceiveCount",
    (id, consumer) => {
      const definition = QUEUES.find((q) => q.id === id)!;
      const queue = dev.resources[dev.queueId(`platform-dev-${id}`)]!.Properties;
      expect(queue).toEqual({
        QueueName: `platform-dev-${id}`,
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        MessageRetentionPeriod: definition.retentionSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dev.queueId(`platform-dev-${id}-dlq`), 'Arn'] },
          maxReceiveCount: definition.maxReceiveCount,
        },
      });
      expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * dev.fn(`platform-dev-${consumer}`).Timeout,
      );
      expect(dev.resources[dev.queueId(`platform-dev-${id}-dlq`)]!.Properties).toEqual({
        QueueName: `platform-dev-${id}-dlq`,
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    },
  );

  it("a consumer whose timeout the queue's visibility does not cover six times is refused at synth", () => {
    const fed = (timeout: number) => () =>
      synthPlatform({ stage: 'dev' }, (stack) => {
        const fn = new LambdaFunction(stack, 'slow', {
          runtime: Runtime.NODEJS_22_X,
          handler: 'index.handler',
          code: Code.fromInline('export const handler = () => {}'),
          timeout: Duration.seconds(timeout),
        });
        feedLedgerWriter(
          fn,
          Duration.seconds(timeout),
          stack.node.findChild('queues') as PlatformQueues,
        );
      });
    expect(fed(31)).toThrow(
      'ledger-ingress queue visibility timeout 180 s is under 6 x the timeout of its consumer (31 s)',
    );
    expect(fed(30)).not.toThrow();
  });

  it('every queue refuses non-TLS access and is retained with the stack', () => {
    const queueIds = Object.entries(dev.resources)
      .filter(([, r]) => r.Type === 'AWS::SQS::Queue')
      .map(([id]) => id);
    expect(queueIds).toHaveLength(8);
    const policies = Object.values(dev.resources)
      .filter((r) => r.Type === 'AWS::SQS::QueuePolicy')
      .map((r) => r.Properties);
    for (const id of queueIds) {
      expect(dev.resources[id]!.DeletionPolicy).toBe('Retain');
      const policy = policies.find((p) => p.Queues.some((q: { Ref: string }) => q.Ref === id))!;
      expect(policy.PolicyDocument.Statement).toEqual([
        {
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Resource: { 'Fn::GetAtt': [id, 'Arn'] },
        },
      ]);
    }
  });
});

describe('rotate-keys', () => {
  it('runs hourly from EventBridge, with bounded retries', () => {
    template.resourceCountIs('AWS::Events::Rule', 4);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [dev.fnId('platform-dev-rotate-keys'), 'Arn'] },
          Id: 'Target0',
          RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 2 },
        },
      ],
    });
  });
});

describe('payments-connectors', () => {
  it('runs every minute from EventBridge, never retried (the next tick is a minute away)', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [dev.fnId('platform-dev-payments-connectors'), 'Arn'] },
          Id: 'Target0',
          RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 },
        },
      ],
    });
  });

  it('reads and writes the payments table and queries its gsi1 and due indexes, appends events, nothing else', () => {
    const lines = dev.permissions('platform-dev-payments-connectors');
    expect(lines.join('\n')).not.toContain('dynamodb:Scan');
    expect(lines.filter((l) => l.includes('dynamodb:'))).toMatchInlineSnapshot(`
      [
        "dynamodb:BatchGetItem,dynamodb:BatchWriteItem,dynamodb:ConditionCheckItem,dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:Query,dynamodb:UpdateItem on paymentstable3808D7D7.Arn",
        "dynamodb:PutItem on eventstable4F1BCE5F.Arn",
        "dynamodb:Query on paymentstable3808D7D7.Arn/index/due",
        "dynamodb:Query on paymentstable3808D7D7.Arn/index/gsi1",
      ]
    `);
    expect(dev.fn('platform-dev-payments-connectors').Timeout).toBe(600);
  });
});

describe('ledger-holds', () => {
  it('runs every minute from EventBridge, never retried (the next sweep is a minute away)', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [dev.fnId('platform-dev-ledger-holds'), 'Arn'] },
          Id: 'Target0',
          RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 },
        },
      ],
    });
  });

  it("its own role queries the ledger table's due shards only; the rest goes through its isolation guard", () => {
    const lines = dev.permissions('platform-dev-ledger-holds');
    expect(lines.join('\n')).not.toContain('dynamodb:Scan');
    expect(lines.filter((l) => l.includes('dynamodb:'))).toMatchInlineSnapshot(`
      [
        "dynamodb:Query on ledgertable16CC0D5A.Arn/index/due if LeadingKeys HOLDS#*",
      ]
    `);
    expect(dev.fn('platform-dev-ledger-holds').Timeout).toBe(300);
  });
});

describe('ledger-reply-sweep', () => {
  it('runs every hour from EventBridge, never retried (the next sweep is an hour away)', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [dev.fnId('platform-dev-ledger-reply-sweep'), 'Arn'] },
          Id: 'Target0',
          RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 0 },
        },
      ],
    });
    expect(dev.fn('platform-dev-ledger-reply-sweep').Timeout).toBe(300);
  });
});
