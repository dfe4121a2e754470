import { describe, expect, it } from 'vitest';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

const dev = templateReader(synthPlatform({ stage: 'dev' }).template);
const targeted = templateReader(
  synthPlatform({
    stage: 'dev',
    exportBuckets: 'acme-lake/ledger/',
    exportStreams: 'ledger-logs,arn:aws:kinesis:eu-west-3:123456789012:stream/audit',
  }).template,
);
const mappingsOf = (reader: typeof dev) =>
  Object.values(reader.resources)
    .filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        r.Properties.FunctionName.Ref === reader.fnId('platform-dev-pipelines'),
    )
    .map((r) => r.Properties);

describe('the pipelines function', () => {
  it('is fed by the ledger stream (log items and running pipelines only) and by the wakes queue', () => {
    const [stream, queue] = [...mappingsOf(dev)].sort((a, b) =>
      a.StartingPosition ? -1 : b.StartingPosition ? 1 : 0,
    );
    expect(mappingsOf(dev)).toHaveLength(2);
    expect(stream).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [dev.tableId('platform-dev-ledger'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 500,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 20,
      MaximumRecordAgeInSeconds: 21600,
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({ dynamodb: { NewImage: { ev: { S: [{ exists: true }] } } } }),
          },
          {
            Pattern: JSON.stringify({
              dynamodb: {
                Keys: { sk: { S: [{ prefix: 'P#' }] } },
                NewImage: { enabled: { BOOL: [true] } },
              },
            }),
          },
        ],
      },
    });
    expect(queue).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [dev.queueId('platform-dev-pipeline-wakes'), 'Arn'] },
      FunctionName: { Ref: dev.fnId('platform-dev-pipelines') },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it('may put objects under the configured bucket prefixes and records to the configured streams, nothing more', () => {
    const extra = (reader: typeof dev) =>
      reader.permissions('platform-dev-pipelines').filter((line) => /^(s3|kinesis):/.test(line));
    expect(extra(dev)).toEqual([]);
    expect(extra(targeted)).toEqual([
      'kinesis:PutRecord on arn:AWS::Partition:kinesis:AWS::Region:AWS::AccountId:stream/ledger-logs',
      'kinesis:PutRecord on arn:aws:kinesis:eu-west-3:123456789012:stream/audit',
      's3:PutObject on arn:AWS::Partition:s3:::acme-lake/ledger/*',
    ]);
    // Its tables: read and cursor updates only (no Put, no Delete, no Scan).
    const tables = dev
      .permissions('platform-dev-pipelines')
      .filter((line) => line.startsWith('dynamodb:') && line.includes('UpdateItem'));
    expect(tables).toEqual([
      `dynamodb:BatchGetItem,dynamodb:GetItem,dynamodb:Query,dynamodb:UpdateItem on ${dev.tableId('platform-dev-ledger')}.Arn`,
    ]);
  });
});
