import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { tableVariables } from '../resources/definitions.js';
import {
  ledgerWriterConfigFromVariables,
  localCommandSettingsFromVariables,
  platformConfigFromVariables,
} from './env.js';

const tables = tableVariables('x-');

describe('platform configuration', () => {
  it('derives issuer and audience from the public base URL', () => {
    const config = platformConfigFromVariables({
      ...tables,
      STAGE: 'prod',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(config.publicBaseUrl).toBe('https://api.example.com');
    expect(config.issuer).toBe('https://api.example.com/api/auth');
    expect(config.audience).toBe('https://api.example.com');
    expect(config.tables.auth).toBe('x-auth');
  });

  it('fails loudly on missing or unusable settings', () => {
    const fails = (env: NodeJS.ProcessEnv) => {
      expect(() => platformConfigFromVariables(env)).toThrow(ConfigurationError);
      try {
        platformConfigFromVariables(env);
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(fails({ ...tables })).toBe('environment variable PUBLIC_BASE_URL is required');
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'http://api.example.com', STAGE: 'prod' })).toBe(
      'PUBLIC_BASE_URL must use https in prod (got "http://api.example.com")',
    );
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'api.example.com' })).toBe(
      'PUBLIC_BASE_URL is not an absolute URL: "api.example.com"',
    );
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'https://a.example', STAGE: 'staging' })).toBe(
      'STAGE must be local, dev or prod (got "staging")',
    );
    const { AUTH_TABLE: _omit, ...noAuth } = tables;
    expect(fails({ ...noAuth, PUBLIC_BASE_URL: 'https://a.example' })).toBe(
      'environment variable AUTH_TABLE is required',
    );
    for (const raw of ['99', '20001', '1e3', '-5', 'lots']) {
      expect(
        fails({ ...tables, PUBLIC_BASE_URL: 'https://a.example', LEDGER_SCAN_READS: raw }),
        raw,
      ).toBe(`LEDGER_SCAN_READS must be an integer from 100 to 20000 (got "${raw}")`);
    }
  });

  it('reads LEDGER_SCAN_READS within its bounds, 1000 when unset', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example' };
    expect(platformConfigFromVariables(base).ledgerScanReads).toBe(1000);
    expect(platformConfigFromVariables({ ...base, LEDGER_SCAN_READS: '100' }).ledgerScanReads).toBe(
      100,
    );
    expect(
      platformConfigFromVariables({ ...base, LEDGER_SCAN_READS: '20000' }).ledgerScanReads,
    ).toBe(20000);
  });

  it('reads how new ledgers key their transactions: 256 ids a block and 8 time shards unless set', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example' };
    expect(platformConfigFromVariables(base).ledger.transactionKeys).toEqual({
      blockIds: 256,
      timeShards: 8,
    });
    expect(
      platformConfigFromVariables({ ...base, LEDGER_TX_BLOCK_IDS: '4', LEDGER_TX_TIME_SHARDS: '1' })
        .ledger.transactionKeys,
    ).toEqual({ blockIds: 4, timeShards: 1 });
    expect(() => platformConfigFromVariables({ ...base, LEDGER_TX_BLOCK_IDS: '1' })).toThrow(
      'LEDGER_TX_BLOCK_IDS must be an integer from 2 to 65536 (got "1")',
    );
    expect(() => platformConfigFromVariables({ ...base, LEDGER_TX_TIME_SHARDS: '65' })).toThrow(
      'LEDGER_TX_TIME_SHARDS must be an integer from 1 to 64 (got "65")',
    );
  });

  it('parses every service setting once: log level, clients, buckets, webhooks, auth', () => {
    const config = platformConfigFromVariables({
      ...tables,
      STAGE: 'local',
      PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      LOG_LEVEL: 'warn',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      LEDGER_BUCKET_TABLES: '{"heavy":"x-ledger-heavy"}',
      WEBHOOK_SECRET_OVERLAP_SECONDS: '600',
      WEBHOOK_HEADER_NAMES: 'service, standard,formance',
      KEY_MIN_PUBLISH_SECONDS: '0',
      AUTH_CONFIG_INLINE: 'clients: []',
    });
    expect(config).toMatchObject({
      logLevel: 'warn',
      awsRegion: 'eu-west-1',
      region: 'local',
      dynamo: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:8000' },
      sqs: { region: 'eu-west-1' },
      webhooks: {
        secretOverlapSeconds: 600,
        allowLoopback: true,
        headerSets: ['service', 'standard', 'formance'],
      },
      auth: { keyMinPublishSeconds: 0, staticClients: { name: 'AUTH_CONFIG_INLINE' } },
      queues: { deliveries: undefined, 'ledger-ingress': undefined },
    });
    expect(config.sqs).toEqual({ region: 'eu-west-1' });
    expect([...config.ledger.bucketTables]).toEqual([['heavy', 'x-ledger-heavy']]);
    const defaults = platformConfigFromVariables({
      ...tables,
      PUBLIC_BASE_URL: 'https://a.example',
    });
    expect(defaults).toMatchObject({
      stage: 'dev',
      logLevel: 'info',
      awsRegion: 'us-east-1',
      webhooks: {
        secretOverlapSeconds: 86_400,
        allowLoopback: false,
        headerSets: ['service', 'standard'],
      },
      auth: { keyMinPublishSeconds: 86_400, staticClients: undefined },
    });
    expect(defaults.ledger.bucketTables.size).toBe(0);
  });

  it('stops at the first bad value with one line naming it', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example' };
    const fails = (extra: Record<string, string>) => () =>
      platformConfigFromVariables({ ...base, ...extra });
    expect(fails({ LOG_LEVEL: 'verbose' })).toThrow(
      new ConfigurationError(
        'LOG_LEVEL must be one of debug, info, warn, error, silent (got "verbose")',
      ),
    );
    expect(fails({ KEY_MIN_PUBLISH_SECONDS: '1d' })).toThrow(
      new ConfigurationError(
        'KEY_MIN_PUBLISH_SECONDS must be an integer from 0 to 2592000 (got "1d")',
      ),
    );
    expect(fails({ LEDGER_BUCKET_TABLES: '{"a b":"t-ledger"}' })).toThrow(
      new ConfigurationError('LEDGER_BUCKET_TABLES: "a b" is not a valid bucket name'),
    );
    expect(fails({ LEDGER_BUCKET_TABLES: '["heavy"]' })).toThrow(
      new ConfigurationError(
        'LEDGER_BUCKET_TABLES must be a JSON object of bucket name to table name',
      ),
    );
    expect(fails({ WEBHOOK_HEADER_NAMES: 'service,svix' })).toThrow(
      new ConfigurationError(
        'WEBHOOK_HEADER_NAMES must be a comma-separated list of service, standard, formance (got "service,svix")',
      ),
    );
    expect(fails({ AUTH_CONFIG: '/nonexistent/auth.yaml' })).toThrow(
      new ConfigurationError('auth config /nonexistent/auth.yaml: cannot be read (ENOENT)'),
    );
  });

  it('ENVIRONMENT_ACCESS_ROLE_ARN: the isolation guard of DynamoDB (and only of DynamoDB); unset, none', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example', AWS_REGION: 'eu-west-1' };
    const role = 'arn:aws:iam::123456789012:role/platform-prod-ledgerenvironmentaccessrole-AbC1';
    expect(platformConfigFromVariables(base).dynamo).toEqual({ region: 'eu-west-1' });
    const guarded = platformConfigFromVariables({ ...base, ENVIRONMENT_ACCESS_ROLE_ARN: role });
    expect(guarded.dynamo).toEqual({ region: 'eu-west-1', environmentAccessRoleArn: role });
    expect(guarded.sqs).toEqual({ region: 'eu-west-1' });
    expect(() =>
      platformConfigFromVariables({
        ...base,
        ENVIRONMENT_ACCESS_ROLE_ARN: 'arn:aws:iam::1:user/x',
      }),
    ).toThrow(
      new ConfigurationError(
        'ENVIRONMENT_ACCESS_ROLE_ARN must be an IAM role ARN (got "arn:aws:iam::1:user/x")',
      ),
    );
    expect(() =>
      platformConfigFromVariables({
        ...base,
        ENVIRONMENT_ACCESS_ROLE_ARN: role,
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      }),
    ).toThrow(
      new ConfigurationError(
        'ENVIRONMENT_ACCESS_ROLE_ARN cannot be used with DYNAMODB_ENDPOINT (the guard is IAM)',
      ),
    );
  });

  it('DYNAMODB_LOCAL_ACCESS_KEY_ID: the key id sent to DynamoDB Local, with its endpoint only', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
    expect(
      platformConfigFromVariables({
        ...base,
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
        DYNAMODB_LOCAL_ACCESS_KEY_ID: 'platform7',
      }).dynamo,
    ).toEqual({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:8000',
      localAccessKeyId: 'platform7',
    });
    expect(
      platformConfigFromVariables({ ...base, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).dynamo,
    ).toEqual({ region: 'us-east-1', endpoint: 'http://127.0.0.1:8000' });
    expect(() =>
      platformConfigFromVariables({ ...base, DYNAMODB_LOCAL_ACCESS_KEY_ID: 'platform7' }),
    ).toThrow(
      new ConfigurationError(
        'DYNAMODB_LOCAL_ACCESS_KEY_ID is for DynamoDB Local: set it with DYNAMODB_ENDPOINT',
      ),
    );
    expect(() =>
      platformConfigFromVariables({
        ...base,
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
        DYNAMODB_LOCAL_ACCESS_KEY_ID: 'platform-7',
      }),
    ).toThrow(
      new ConfigurationError(
        'DYNAMODB_LOCAL_ACCESS_KEY_ID must be letters and digits (got "platform-7")',
      ),
    );
  });

  it('S3_ENDPOINT: the local stage only, an origin; the s3 exporters write there with the emulator key pair', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
    expect(platformConfigFromVariables({ ...base, STAGE: 'local' }).exports).toEqual({});
    expect(
      platformConfigFromVariables({ ...base, STAGE: 'local', S3_ENDPOINT: 'http://127.0.0.1:4568' })
        .exports,
    ).toEqual({
      localS3: {
        endpoint: 'http://127.0.0.1:4568',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      },
    });
    expect(() =>
      platformConfigFromVariables({ ...base, STAGE: 'dev', S3_ENDPOINT: 'http://127.0.0.1:4568' }),
    ).toThrow(
      new ConfigurationError(
        'S3_ENDPOINT is for the local stage only (STAGE is dev): in AWS the s3 driver writes to S3 itself',
      ),
    );
    expect(() =>
      platformConfigFromVariables({
        ...base,
        STAGE: 'local',
        S3_ENDPOINT: 'http://127.0.0.1:4568/b',
      }),
    ).toThrow(
      new ConfigurationError(
        'S3_ENDPOINT must be an http(s) URL with no path, such as http://127.0.0.1:4568 (got "http://127.0.0.1:4568/b")',
      ),
    );
  });

  it('the ledger writer needs its ingress queue', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example' };
    expect(() => ledgerWriterConfigFromVariables(base)).toThrow(
      new ConfigurationError('environment variable LEDGER_INGRESS_QUEUE_URL is required'),
    );
    expect(
      ledgerWriterConfigFromVariables({ ...base, LEDGER_INGRESS_QUEUE_URL: 'http://q' }).queues[
        'ledger-ingress'
      ],
    ).toBe('http://q');
  });

  it("npm start's own settings: PORT, DATA_DIR, LEDGER_WORKERS, where the static clients come from", () => {
    expect(localCommandSettingsFromVariables({})).toEqual({
      port: 8080,
      dataDir: '.data',
      s3Port: 4568,
      ledgerWorkers: undefined,
      staticClients: undefined,
    });
    expect(
      localCommandSettingsFromVariables({ PORT: '0', DATA_DIR: '/tmp/d', AUTH_CONFIG_INLINE: 'x' }),
    ).toMatchObject({ port: 0, dataDir: '/tmp/d', staticClients: 'AUTH_CONFIG_INLINE' });
    expect(localCommandSettingsFromVariables({ AUTH_CONFIG: 'a.yaml' }).staticClients).toBe(
      'a.yaml',
    );
    for (const bad of ['http', '65536', '-1'])
      expect(() => localCommandSettingsFromVariables({ PORT: bad })).toThrow(
        new ConfigurationError(`PORT must be a port number (got "${bad}")`),
      );
    expect(localCommandSettingsFromVariables({ S3_PORT: '9000' }).s3Port).toBe(9000);
    expect(() => localCommandSettingsFromVariables({ S3_PORT: 's3' })).toThrow(
      new ConfigurationError('S3_PORT must be a port number (got "s3")'),
    );
  });
});
