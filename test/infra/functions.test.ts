import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TAGGED_ENVIRONMENT_KEYS } from '../../infra/stacks/environment-access.js';
import { loadAuthConfig } from '../../lib/auth/domain/static-clients.js';
import {
  ledgerWriterConfigFromVariables,
  platformConfigFromVariables,
  webhookWorkerConfigFromVariables,
} from '../../lib/config/env.js';
import { BucketTables } from '../../lib/ledger/store/bucket-tables.js';
import { writerDeps } from '../../lib/ledger/write/writer-env.js';
import { tableVariables } from '../../lib/resources/definitions.js';
import { workerSettings } from '../../lib/webhooks/workers.js';
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
] as const;
const dev = templateReader(synthPlatform({ stage: 'dev' }).template);
const prod = templateReader(
  synthPlatform({
    stage: 'prod',
    ledgerBuckets: '["heavy"]',
    publicBaseUrl: 'https://api.example.com',
    authConfig: 'clients:\n  - id: billing\n    secrets: [$BILLING_SECRET]\n',
    staticClientSecrets: '{"BILLING_SECRET":"platform/billing#secret"}',
    sourcemap: 'true',
  }).template,
);

const READ_WRITE =
  'dynamodb:BatchGetItem,dynamodb:BatchWriteItem,dynamodb:ConditionCheckItem,dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:Query,dynamodb:UpdateItem';
const LOGS = 'logs:CreateLogStream,logs:PutLogEvents';
const SEND = 'sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:SendMessage';
const CONSUME =
  'sqs:ChangeMessageVisibility,sqs:DeleteMessage,sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:ReceiveMessage';
const INGRESS_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/platform-prod-ledger-ingress';

describe('Lambda functions', () => {
  it('one per file in functions/ (what npm run build bundles), no more, no fewer', () => {
    const files = readdirSync(join(import.meta.dirname, '..', '..', 'functions'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''));
    const deployed = Object.values(dev.resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => r.Properties.FunctionName.replace(/^platform-dev-/, ''));
    expect([files.sort(), deployed.sort()]).toEqual([[...FUNCTIONS].sort(), [...FUNCTIONS].sort()]);
  });

  it.each(FUNCTIONS)(
    '%s: arm64, Node.js 22, ESM bundle handler, its own log group and role',
    (name) => {
      const fn = dev.fn(`platform-dev-${name}`);
      expect(fn.Runtime).toBe('nodejs22.x');
      expect(fn.Architectures).toEqual(['arm64']);
      expect(fn.Handler).toBe('index.handler');
      expect(fn.LoggingConfig).toEqual({
        LogGroup: { Ref: dev.logGroupId(`/aws/lambda/platform-dev-${name}`) },
      });
      expect(fn.Role['Fn::GetAtt'][0]).toMatch(/^[a-z]+role[0-9A-F]{8}$/i);
      const role = dev.resources[fn.Role['Fn::GetAtt'][0]]!.Properties;
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'lambda.amazonaws.com' },
        },
      ]);
      expect(role.ManagedPolicyArns).toBeUndefined();
    },
  );

  it("sizes and timeouts: HTTP functions under API Gateway's 30 s, deliver and ledger-writer at 30 s for their queues' 180 s visibility", () => {
    const sizes = Object.fromEntries(
      FUNCTIONS.map((n) => [
        n,
        [dev.fn(`platform-dev-${n}`).MemorySize, dev.fn(`platform-dev-${n}`).Timeout],
      ]),
    );
    expect(sizes).toEqual({
      auth: [1024, 10],
      ledger: [1024, 15],
      'ledger-holds': [512, 300],
      'ledger-reply-sweep': [512, 300],
      'ledger-writer': [1024, 30],
      payments: [1024, 10],
      platform: [1024, 10],
      webhooks: [1024, 25],
      dispatch: [512, 60],
      deliver: [512, 30],
      'rotate-keys': [512, 30],
      console: [512, 10],
      // A drain starts batches for 30 s, its last may take an http send more; the wakes queue's 720 s covers 6x.
      pipelines: [1024, 60],
      // A tick a minute; runs are bounded (20 pages each) and hold 15-minute leases.
      'payments-connectors': [512, 600],
    });
  });

  it('log groups keep dev logs 30 days (deleted with the stack) and prod logs a year (retained)', () => {
    for (const name of FUNCTIONS) {
      const devGroup = dev.resources[dev.logGroupId(`/aws/lambda/platform-dev-${name}`)]!;
      expect([devGroup.Properties.RetentionInDays, devGroup.DeletionPolicy]).toEqual([
        30,
        'Delete',
      ]);
      const prodGroup = prod.resources[prod.logGroupId(`/aws/lambda/platform-prod-${name}`)]!;
      expect([prodGroup.Properties.RetentionInDays, prodGroup.DeletionPolicy]).toEqual([
        365,
        'Retain',
      ]);
    }
  });

  it('environment: stage, table names from the shared definitions, the API endpoint as PUBLIC_BASE_URL', () => {
    const api = {
      'Fn::GetAtt': [dev.logicalId('AWS::ApiGatewayV2::Api', () => true), 'ApiEndpoint'],
    };
    const service = {
      STAGE: 'dev',
      LOG_LEVEL: 'info',
      METRICS_NAMESPACE: 'Platform/dev',
      ...tableVariables('platform-dev-'),
      PUBLIC_BASE_URL: api,
    };
    const queue = { Ref: dev.queueId('platform-dev-deliveries') };
    const ingress = { Ref: dev.queueId('platform-dev-ledger-ingress') };
    const worker = {
      STAGE: 'dev',
      LOG_LEVEL: 'info',
      METRICS_NAMESPACE: 'Platform/dev',
      WEBHOOKS_TABLE: 'platform-dev-webhooks',
      EVENTS_TABLE: 'platform-dev-events',
      DELIVERIES_QUEUE_URL: queue,
    };
    const env = (name: string) => dev.fn(`platform-dev-${name}`).Environment.Variables;
    const signingKey = {
      SIGNING_KEY_KMS_KEY_ID: {
        'Fn::GetAtt': [
          dev.logicalId('AWS::KMS::Key', (p) => String(p.Description).includes('signing keys')),
          'Arn',
        ],
      },
    };
    // The data functions' isolation guard: the role they assume per environment (environment-access.test.ts).
    const guard = (name: string) => ({
      ENVIRONMENT_ACCESS_ROLE_ARN: { 'Fn::GetAtt': [dev.guardRoleId(name), 'Arn'] },
    });
    expect(env('auth')).toEqual({ ...service, ...signingKey });
    expect(env('ledger')).toEqual({
      ...service,
      LEDGER_INGRESS_QUEUE_URL: ingress,
      ...guard('ledger'),
    });
    expect(env('ledger-writer')).toEqual({
      ...service,
      LEDGER_INGRESS_QUEUE_URL: ingress,
      ...guard('ledger-writer'),
    });
    expect(env('payments')).toEqual({ ...service, ...guard('payments') });
    expect(env('webhooks')).toEqual({
      ...service,
      DELIVERIES_QUEUE_URL: queue,
      ...guard('webhooks'),
    });
    expect(env('platform')).toEqual({ ...service, ...signingKey });
    expect(env('rotate-keys')).toEqual({ ...service, ...signingKey });
    // The reply queues' sweeper: the ingress queue's URL names the reply queues (and the configuration it is read with).
    expect(env('ledger-reply-sweep')).toEqual({ ...service, LEDGER_INGRESS_QUEUE_URL: ingress });
    expect(env('dispatch')).toEqual(worker);
    expect(env('deliver')).toEqual(worker);
    // The console serves files: its log level and metrics namespace, nothing of the platform's.
    expect(env('console')).toEqual({
      STAGE: 'dev',
      LOG_LEVEL: 'info',
      METRICS_NAMESPACE: 'Platform/dev',
    });
  });

  it('active tracing only on the tracing switch, for every function, with the X-Ray writes it needs', () => {
    for (const name of FUNCTIONS)
      expect(dev.fn(`platform-dev-${name}`).TracingConfig).toBeUndefined();
    const traced = templateReader(synthPlatform({ stage: 'dev', tracing: 'true' }).template);
    for (const name of FUNCTIONS) {
      expect(traced.fn(`platform-dev-${name}`).TracingConfig).toEqual({ Mode: 'Active' });
      expect(traced.permissions(`platform-dev-${name}`)).toContain(
        'xray:PutTelemetryRecords,xray:PutTraceSegments on *',
      );
    }
  });

  it('CORS origins from context reach every HTTP function, not the workers', () => {
    const cors = templateReader(
      synthPlatform({ stage: 'dev', corsOrigins: 'https://console.example.com' }).template,
    );
    for (const name of ['auth', 'ledger', 'payments', 'webhooks', 'platform'])
      expect(cors.fn(`platform-dev-${name}`).Environment.Variables.CORS_ALLOWED_ORIGINS).toBe(
        'https://console.example.com',
      );
    for (const name of ['dispatch', 'deliver'])
      expect(
        cors.fn(`platform-dev-${name}`).Environment.Variables.CORS_ALLOWED_ORIGINS,
      ).toBeUndefined();
  });

  it('prod environment: custom domain, bucket tables, static clients with Secrets Manager references, source maps', () => {
    const auth = prod.fn('platform-prod-auth').Environment.Variables;
    expect(auth.STAGE).toBe('prod');
    expect(auth.PUBLIC_BASE_URL).toBe('https://api.example.com');
    // The operator's YAML, as JSON: the one form the bundled function parses (infra/lambda-yaml.ts).
    expect(auth.AUTH_CONFIG_INLINE).toBe(
      '{"clients":[{"id":"billing","secrets":["$BILLING_SECRET"]}]}',
    );
    expect(auth.BILLING_SECRET).toBe(
      '{{resolve:secretsmanager:platform/billing:SecretString:secret::}}',
    );
    expect(auth.NODE_OPTIONS).toBe('--enable-source-maps');
    for (const name of ['ledger', 'ledger-writer'])
      expect(prod.fn(`platform-prod-${name}`).Environment.Variables.LEDGER_BUCKET_TABLES).toBe(
        '{"heavy":"platform-prod-ledger-heavy"}',
      );
    // Only the auth function sees the static client secrets.
    for (const name of FUNCTIONS.filter((n) => n !== 'auth'))
      expect(prod.fn(`platform-prod-${name}`).Environment.Variables.BILLING_SECRET).toBeUndefined();
  });
});

describe('the environment the stack sets is what the code reads (start-up validation passes)', () => {
  /** Deploy-time values for the template's references: the API endpoint, the queue URL, a resolved secret. */
  const resolved = (env: Record<string, unknown>): NodeJS.ProcessEnv =>
    Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        typeof v === 'string' && !v.startsWith('{{resolve:')
          ? v
          : k === 'PUBLIC_BASE_URL'
            ? 'https://abc123.execute-api.eu-west-1.amazonaws.com'
            : k === 'DELIVERIES_QUEUE_URL'
              ? 'https://sqs.eu-west-1.amazonaws.com/123456789012/platform-prod-deliveries'
              : k === 'LEDGER_INGRESS_QUEUE_URL'
                ? INGRESS_URL
                : k === 'ENVIRONMENT_ACCESS_ROLE_ARN'
                  ? 'arn:aws:iam::123456789012:role/platform-ledger-environment-access'
                  : k.startsWith('IDENTITY_PROVIDER_')
                    ? 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC'
                    : 'a-secret-from-secrets-manager',
      ]),
    );

  it.each(['auth', 'ledger', 'ledger-writer', 'payments', 'platform', 'webhooks', 'rotate-keys'])(
    '%s: platformConfigFromVariables',
    (name) => {
      for (const [reader, stage] of [
        [dev, 'dev'],
        [prod, 'prod'],
      ] as const) {
        const config = platformConfigFromVariables(
          resolved(reader.fn(`platform-${stage}-${name}`).Environment.Variables),
        );
        expect(config.stage).toBe(stage);
        // The data functions' DynamoDB calls go through their isolation guard.
        expect(config.dynamo.environmentAccessRoleArn !== undefined).toBe(
          ['ledger', 'ledger-writer', 'payments', 'webhooks'].includes(name),
        );
        expect(config.tables).toEqual({
          auth: `platform-${stage}-auth`,
          ledger: `platform-${stage}-ledger`,
          events: `platform-${stage}-events`,
          webhooks: `platform-${stage}-webhooks`,
          payments: `platform-${stage}-payments`,
          platform: `platform-${stage}-platform`,
        });
      }
    },
  );

  it('auth: the static clients load, secrets resolved, in prod', () => {
    const env = resolved(prod.fn('platform-prod-auth').Environment.Variables);
    const config = platformConfigFromVariables(env);
    expect(loadAuthConfig(config.auth.staticClients, 'prod').clients.map((c) => c.id)).toEqual([
      'billing',
    ]);
  });

  it.each(['ledger', 'ledger-writer'])(
    '%s: the bucket map names the bucket tables, the ingress queue is set',
    (name) => {
      const env = resolved(prod.fn(`platform-prod-${name}`).Environment.Variables);
      const config = platformConfigFromVariables(env);
      const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
      expect([buckets.tableFor('heavy'), buckets.tableFor('other')]).toEqual([
        'platform-prod-ledger-heavy',
        'platform-prod-ledger',
      ]);
      expect(config.queues['ledger-ingress']).toBe(INGRESS_URL);
    },
  );

  it("ledger-writer: writerDeps (the function's own start-up), in dev and in prod with a bucket table", () => {
    for (const [reader, stage] of [
      [dev, 'dev'],
      [prod, 'prod'],
    ] as const) {
      const deps = writerDeps(
        ledgerWriterConfigFromVariables(
          resolved(reader.fn(`platform-${stage}-ledger-writer`).Environment.Variables),
        ),
      );
      expect([deps.ingress.queueUrl, deps.tableFor('other')]).toEqual([
        INGRESS_URL,
        `platform-${stage}-ledger`,
      ]);
    }
    expect(
      writerDeps(
        ledgerWriterConfigFromVariables(
          resolved(prod.fn('platform-prod-ledger-writer').Environment.Variables),
        ),
      ).tableFor('heavy'),
    ).toBe('platform-prod-ledger-heavy');
  });

  it('ledger-reply-sweep: ledgerWriterConfigFromVariables (its start-up), the ingress queue set', () => {
    for (const [reader, stage] of [
      [dev, 'dev'],
      [prod, 'prod'],
    ] as const) {
      const config = ledgerWriterConfigFromVariables(
        resolved(reader.fn(`platform-${stage}-ledger-reply-sweep`).Environment.Variables),
      );
      expect([config.stage, config.queues['ledger-ingress']]).toEqual([stage, INGRESS_URL]);
    }
  });

  it.each(['dispatch', 'deliver'])('%s: webhookWorkerConfigFromVariables', (name) => {
    const settings = workerSettings(
      webhookWorkerConfigFromVariables(
        resolved(prod.fn(`platform-prod-${name}`).Environment.Variables),
      ),
    );
    expect([settings.table, settings.queueUrl]).toEqual([
      'platform-prod-webhooks',
      'https://sqs.eu-west-1.amazonaws.com/123456789012/platform-prod-deliveries',
    ]);
  });
});

describe('least-privilege roles: exactly these permissions, function by function', () => {
  const t = (id: string) => `${dev.tableId(`platform-dev-${id}`)}.Arn`;
  const gsi1 = (id: string) => `dynamodb:Query on ${t(id)}/index/gsi1`;
  const logs = (name: string) =>
    `${LOGS} on ${dev.logGroupId(`/aws/lambda/platform-dev-${name}`)}.Arn`;
  const deliveries = `${dev.queueId('platform-dev-deliveries')}.Arn`;
  const ingress = `${dev.queueId('platform-dev-ledger-ingress')}.Arn`;
  // The reply channel's queues, created at run time under the ingress queue's name (lib/ledger/write/replies.ts).
  const replyQueues = `arn:AWS::Partition:sqs:AWS::Region:AWS::AccountId:${dev.queueId('platform-dev-ledger-ingress')}.QueueName-r-*`;
  const stream = `${dev.tableId('platform-dev-events')}.StreamArn`;
  const ledgerStream = `${dev.tableId('platform-dev-ledger')}.StreamArn`;
  // Every service reads the published keys, and nothing else of the auth table.
  const jwks = `dynamodb:GetItem on ${t('auth')} if LeadingKeys JWKS`;
  const assume = (name: string) => `sts:AssumeRole,sts:TagSession on ${dev.guardRoleId(name)}.Arn`;
  const own = `LeadingKeys ${TAGGED_ENVIRONMENT_KEYS}`;

  it.each([
    // DescribeTable on every service table, for `/versions` (a table's status, none of its items). The platform
    // table: logins recorded, memberships read by the token exchange.
    [
      'auth',
      [
        logs('auth'),
        `${READ_WRITE} on ${t('auth')}`,
        gsi1('auth'),
        `${READ_WRITE} on ${t('platform')}`,
        ...['auth', 'ledger', 'webhooks', 'payments'].map(
          (id) => `dynamodb:DescribeTable on ${t(id)}`,
        ),
      ],
    ],
    // Its tables only through its isolation guard. Relays busy ledgers' writes: SendMessage on the ingress queue.
    // Creates its own reply queue and reads its replies there.
    [
      'ledger',
      [
        logs('ledger'),
        jwks,
        `sqs:CreateQueue,sqs:ReceiveMessage on ${replyQueues}`,
        `sqs:SendMessage on ${ingress}`,
        assume('ledger'),
      ],
    ],
    // Verifies no token (no auth table); consumes the queue, and drains it itself; its tables through its guard;
    // sends results to the requesters' reply queues.
    [
      'ledger-writer',
      [
        logs('ledger-writer'),
        `sqs:SendMessage on ${replyQueues}`,
        `${CONSUME} on ${ingress}`,
        assume('ledger-writer'),
      ],
    ],
    ['payments', [logs('payments'), jwks, assume('payments')]],
    ['webhooks', [logs('webhooks'), jwks, `${SEND} on ${deliveries}`, assume('webhooks')]],
    // The directory; the signing keys (personal tokens); one Query of an environment's list partition per table.
    [
      'platform',
      [
        logs('platform'),
        `dynamodb:GetItem on ${t('auth')} if LeadingKeys JWKS|SIGNING_KEY#*`,
        `${READ_WRITE} on ${t('platform')}`,
        ...['ledger', 'webhooks', 'payments', 'auth'].map(
          (id) => `${gsi1(id)} if LeadingKeys E#*#*`,
        ),
      ],
    ],
    [
      'dispatch',
      [
        logs('dispatch'),
        `${READ_WRITE} on ${t('webhooks')}`,
        `${SEND} on ${deliveries}`,
        `${SEND} on ${dev.queueId('platform-dev-dispatch-failures')}.Arn`,
        `dynamodb:ListStreams on ${stream}`,
        `dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator on ${stream}`,
        `dynamodb:ListStreams on ${ledgerStream}`,
        `dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator on ${ledgerStream}`,
      ],
    ],
    [
      'deliver',
      [
        logs('deliver'),
        `${READ_WRITE} on ${t('webhooks')}`,
        `dynamodb:PutItem on ${t('events')}`,
        `${SEND} on ${deliveries}`,
        `${CONSUME} on ${deliveries}`,
      ],
    ],
    ['rotate-keys', [logs('rotate-keys'), `${READ_WRITE} on ${t('auth')}`]],
    // Reads the age of and deletes the reply queues only; lists queue names (IAM allows ListQueues on `*` only).
    [
      'ledger-reply-sweep',
      [
        logs('ledger-reply-sweep'),
        `sqs:DeleteQueue,sqs:GetQueueAttributes on ${replyQueues}`,
        'sqs:ListQueues on *',
      ],
    ],
    // Static files: its own log group and nothing else (no table, queue or key).
    ['console', [logs('console')]],
  ] as const)('%s', (name, expected) => {
    expect(dev.permissions(`platform-dev-${name}`)).toEqual([...expected].sort());
  });

  it.each([
    // The ledger's tables and their gsi1; the writer reads items by key only (no index).
    ['ledger', [`${READ_WRITE} on ${t('ledger')} if ${own}`, `${gsi1('ledger')} if ${own}`]],
    ['ledger-writer', [`${READ_WRITE} on ${t('ledger')} if ${own}`]],
    // Payments' outbox rows in the events table are the environment's too.
    [
      'payments',
      [
        `${READ_WRITE} on ${t('payments')} if ${own}`,
        `${gsi1('payments')} if ${own}`,
        `dynamodb:PutItem on ${t('events')} if ${own}`,
      ],
    ],
    ['webhooks', [`${READ_WRITE} on ${t('webhooks')} if ${own}`, `${gsi1('webhooks')} if ${own}`]],
  ] as const)(
    "%s's isolation guard: its tables, for the tagged environment's items only",
    (name, expected) => {
      expect(dev.rolePermissions(dev.guardRoleId(name))).toEqual([...expected].sort());
    },
  );

  it("ledger's guard also reads and writes each bucket table (and its gsi1), the writer's by key", () => {
    const heavy = `${prod.tableId('platform-prod-ledger-heavy')}.Arn`;
    const ledger = prod.rolePermissions(prod.guardRoleId('ledger'));
    expect(ledger).toContain(`${READ_WRITE} on ${heavy} if ${own}`);
    expect(ledger).toContain(`dynamodb:Query on ${heavy}/index/gsi1 if ${own}`);
    expect(ledger).toHaveLength(4);
    const writer = prod.rolePermissions(prod.guardRoleId('ledger-writer'));
    expect(writer.filter((line) => line.includes('heavy'))).toEqual([
      `${READ_WRITE} on ${heavy} if ${own}`,
    ]);
    expect(writer).toHaveLength(2);
    // Neither function's own role touches a bucket table.
    for (const name of ['ledger', 'ledger-writer'])
      expect(
        prod.permissions(`platform-prod-${name}`).filter((line) => line.includes('heavy')),
      ).toEqual([]);
  });

  it('dispatch also reads the stream of each bucket table (and nothing else of it)', () => {
    const heavy = `${prod.tableId('platform-prod-ledger-heavy')}.StreamArn`;
    const permissions = prod.permissions('platform-prod-dispatch');
    expect(
      permissions.filter((line) => line.includes(prod.tableId('platform-prod-ledger-heavy'))),
    ).toEqual([
      `dynamodb:DescribeStream,dynamodb:GetRecords,dynamodb:GetShardIterator on ${heavy}`,
      `dynamodb:ListStreams on ${heavy}`,
    ]);
    expect(permissions).toHaveLength(10);
  });

  it('no role can Scan, use a wildcard action, or touch a wildcard resource', () => {
    const guards = ['ledger', 'ledger-writer', 'payments', 'webhooks'];
    for (const [reader, stage] of [
      [dev, 'dev'],
      [prod, 'prod'],
    ] as const) {
      const lines = [
        ...FUNCTIONS.flatMap((name) => reader.permissions(`platform-${stage}-${name}`)),
        ...guards.flatMap((name) => reader.rolePermissions(reader.guardRoleId(name))),
      ];
      // Wildcards are only in leading-key patterns (the items a statement allows), never an action or resource —
      // but for the reply queues, which exist only at run time: their name's prefix, on SQS, for these three roles;
      // and the sweeper's ListQueues, which IAM authorizes on `*` only.
      const replyQueues =
        /^sqs:(CreateQueue,sqs:ReceiveMessage|SendMessage|DeleteQueue,sqs:GetQueueAttributes) on arn:AWS::Partition:sqs:AWS::Region:AWS::AccountId:\w+\.QueueName-r-\*$/;
      const listQueues = 'sqs:ListQueues on *';
      for (const line of lines.filter((l) => !replyQueues.test(l) && l !== listQueues))
        expect(line.split(' if ')[0]).not.toMatch(/Scan|\*/);
      expect(lines.filter((l) => replyQueues.test(l))).toHaveLength(3);
      expect(lines.filter((l) => l === listQueues)).toHaveLength(1);
    }
  });
});
