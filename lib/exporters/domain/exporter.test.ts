import { describe, expect, it } from 'vitest';
import { checkedConfiguration, exporterView, newExporter } from './exporter.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

describe('exporter configurations', () => {
  it('takes an s3 configuration, with its prefix made a folder', () => {
    expect(
      checkedConfiguration(
        { driver: 's3', config: { bucket: 'acme-ledger', prefix: 'exports' } },
        'prod',
      ),
    ).toEqual({ driver: 's3', config: { bucket: 'acme-ledger', prefix: 'exports/' } });
    expect(
      checkedConfiguration(
        { driver: 's3', config: { bucket: 'acme-ledger', format: 'ndjson', region: 'eu-west-3' } },
        'prod',
      ),
    ).toEqual({
      driver: 's3',
      config: { bucket: 'acme-ledger', format: 'ndjson', region: 'eu-west-3' },
    });
  });

  it('refuses, outside the local stage, an s3 endpoint and a plain-http or loopback receiver', () => {
    expect(
      refusal(() =>
        checkedConfiguration(
          { driver: 's3', config: { bucket: 'b-1', endpoint: 'http://127.0.0.1:4568' } },
          'prod',
        ),
      ),
    ).toBe('config.endpoint: only in the local stage (in AWS the worker writes to S3 itself)');
    expect(
      refusal(() =>
        checkedConfiguration(
          { driver: 'http', config: { url: 'http://sink.example/logs' } },
          'prod',
        ),
      ),
    ).toBe('config.url: must use https');
    expect(
      refusal(() =>
        checkedConfiguration({ driver: 'http', config: { url: 'https://127.0.0.1/logs' } }, 'prod'),
      ),
    ).toMatch(/^config\.url: must not target a non-public address/);
    expect(
      checkedConfiguration({ driver: 'http', config: { url: 'http://127.0.0.1:9/logs' } }, 'local'),
    ).toEqual({ driver: 'http', config: { url: 'http://127.0.0.1:9/logs' } });
  });

  it('refuses a malformed s3 configuration naming the field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'config.bucket: Invalid key: Expected "bucket" but received undefined'],
      [{ bucket: 'Not_A_Bucket' }, 'config.bucket: must be an S3 bucket name'],
      [
        { bucket: 'b-1', prefix: '/root' },
        'config.prefix: must be printable ASCII without spaces, not starting with /',
      ],
      [{ bucket: 'b-1', format: 'csv' }, 'config.format: must be parquet or ndjson'],
      [{ bucket: 'b-1', region: 'mars' }, 'config.region: must be an AWS region'],
    ];
    for (const [config, message] of cases)
      expect(refusal(() => checkedConfiguration({ driver: 's3', config }, 'local'))).toBe(message);
  });

  it('takes a kinesis stream by name or ARN; its endpoint only in the local stage', () => {
    expect(
      checkedConfiguration({ driver: 'kinesis', config: { stream: 'ledger-logs' } }, 'prod'),
    ).toEqual({ driver: 'kinesis', config: { stream: 'ledger-logs' } });
    const arn = 'arn:aws:kinesis:eu-west-3:123456789012:stream/ledger-logs';
    expect(checkedConfiguration({ driver: 'kinesis', config: { stream: arn } }, 'prod')).toEqual({
      driver: 'kinesis',
      config: { stream: arn },
    });
    expect(
      refusal(() =>
        checkedConfiguration(
          { driver: 'kinesis', config: { stream: 's', endpoint: 'http://127.0.0.1:4567' } },
          'prod',
        ),
      ),
    ).toBe('config.endpoint: only in the local stage (in AWS the worker writes to Kinesis itself)');
    expect(
      refusal(() =>
        checkedConfiguration(
          { driver: 'kinesis', config: { stream: 'arn:aws:kinesis:eu-west-3:1:stream/x' } },
          'local',
        ),
      ),
    ).toBe('config.stream: must be a Kinesis stream name or ARN');
  });

  it('never shows header values', () => {
    const exporter = newExporter(
      checkedConfiguration(
        {
          driver: 'http',
          config: {
            url: 'https://sink.example/',
            headers: { Authorization: 'Bearer x', 'X-Team': 'ops' },
          },
        },
        'prod',
      ),
      '2026-03-01T00:00:00Z',
    );
    expect(exporterView(exporter).config).toEqual({
      url: 'https://sink.example/',
      headers: { Authorization: '********', 'X-Team': '********' },
    });
    expect(exporter.config).toMatchObject({ headers: { Authorization: 'Bearer x' } });
  });
});
