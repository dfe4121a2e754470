import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { privateKeyKey } from '../../lib/auth/store/keys.js';
import { leadingKeysPattern } from '../../lib/environments/key-scope.js';
import { DUE_HOLD_SHARD_PREFIX } from '../../lib/ledger/store/keys.js';
import { defaultMetricsNamespace } from '../../lib/observability/catalog.js';
import { tableVariables } from '../../lib/resources/definitions.js';
import { JWKS_ITEM_KEY } from '../../lib/tokens/jwks-item.js';
import { LEDGER_INGRESS_AGE_THRESHOLD, PlatformAlarms } from './alarms.js';
import { PlatformApi } from './api.js';
import { authConfigForFunction, checkAuthConfig } from './auth-config-check.js';
import { BUNDLED_FILES } from './bundled-files.js';
import type { StageConfig } from './config.js';
import { PlatformDashboard } from './dashboard.js';
import { EnvironmentAccess } from './environment-access.js';
import { type FunctionSpec, PlatformFunction } from './functions.js';
import { grantIndexQuery, grantTable } from './grants.js';
import { identityVariables } from './identity.js';
import { acknowledge } from './nag.js';
import { feedPipelines, grantExportTargets, PIPELINES_TIMEOUT } from './pipelines.js';
import { METRIC_SERVICES, PlatformMetrics } from './platform-metrics.js';
import { PlatformQueues } from './queues.js';
import { SigningKeyEncryption } from './signing-key-encryption.js';
import { staticClientSecretVariables } from './static-client-secrets.js';
import { bucketTableName, createBucketTables, createTables } from './tables.js';
import {
  CONNECTORS_WORKER_TIMEOUT,
  feedDeliver,
  feedDispatch,
  feedLedgerWriter,
  HOLD_SWEEPER_TIMEOUT,
  REPLY_SWEEPER_TIMEOUT,
  scheduleConnectorsTick,
  scheduleHoldSweep,
  scheduleKeyRotation,
  scheduleReplySweep,
} from './workers.js';

export interface PlatformStackProps extends StackProps {
  config: StageConfig;
}

/** The deliver function's timeout: one POST is at most 15 s (lib/webhooks/deliver), a batch runs concurrently. */
export const DELIVER_TIMEOUT = Duration.seconds(30);

/**
 * The ledger writer's timeout: its own batch, then up to 10 s draining the queue (`DRAIN_MS`,
 * lib/ledger/write/writer-env.ts), with room for a slow last commit. The ingress queue's visibility timeout
 * is six times this (lib/resources/definitions.ts; synth refuses less).
 */
export const LEDGER_WRITER_TIMEOUT = Duration.seconds(30);

/**
 * The platform in AWS (docs/architecture.md): tables from the definitions the local platform shares, the HTTP API
 * and one function per service, the ledger's queue-fed writer of busy ledgers, the dispatcher of the events and
 * ledger streams and the queue-fed deliverer, key rotation on a schedule, and alarms. Environment-agnostic (no
 * account/region lookups), so `cdk synth` works offline.
 */
export class PlatformStack extends Stack {
  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    const { config } = props;
    const prefix = `${id}-`;

    const tables = createTables(this, prefix);
    const bucketTables = createBucketTables(this, prefix, config.ledgerBuckets);
    const queues = new PlatformQueues(this, 'queues', prefix);
    const api = new PlatformApi(this, 'api', config, prefix);
    // The API's own endpoint unless a custom domain is configured. Functions reference the API (not its routes),
    // and routes reference the functions: no cycle.
    const publicBaseUrl = config.publicBaseUrl ?? api.api.apiEndpoint;

    const serviceVariables = {
      ...tableVariables(prefix),
      PUBLIC_BASE_URL: publicBaseUrl,
      ...(config.corsOrigins ? { CORS_ALLOWED_ORIGINS: config.corsOrigins.join(',') } : {}),
      // Persons log in through this provider (a Cognito user pool made here, an external one, or none).
      ...identityVariables(this, config.identityProvider, prefix),
      ...(config.platformAdmins.length > 0
        ? { PLATFORM_ADMINS: config.platformAdmins.join(',') }
        : {}),
    };
    const workerVariables = {
      WEBHOOKS_TABLE: tableVariables(prefix).WEBHOOKS_TABLE!,
      // The deliverer's operator events (an endpoint switched off, recovered) go through the outbox.
      EVENTS_TABLE: tableVariables(prefix).EVENTS_TABLE!,
      DELIVERIES_QUEUE_URL: queues.deliveries.queue.queueUrl,
    };
    // The ledger service and its writer see the same ledger tables and the same ingress queue.
    const ledgerVariables = {
      ...serviceVariables,
      ...(config.ledgerBuckets.length > 0
        ? {
            LEDGER_BUCKET_TABLES: JSON.stringify(
              Object.fromEntries(config.ledgerBuckets.map((b) => [b, bucketTableName(prefix, b)])),
            ),
          }
        : {}),
      LEDGER_INGRESS_QUEUE_URL: queues.ledgerIngress.queue.queueUrl,
    };
    // Private signing keys are sealed under this key; only the auth and rotate-keys functions may use it.
    const signingKeyEncryption = new SigningKeyEncryption(
      this,
      'signing-key-encryption',
      config,
      prefix,
    );
    const signingKeyVariables = { SIGNING_KEY_KMS_KEY_ID: signingKeyEncryption.key.keyArn };
    if (config.authConfig !== undefined)
      checkAuthConfig(config.authConfig, config.stage, Object.keys(config.staticClientSecrets));

    // Every function writes its metrics (EMF) under the stage's namespace, which the dashboard and alarms read.
    const metrics = new PlatformMetrics(defaultMetricsNamespace(config.stage));
    const make = (spec: Omit<FunctionSpec, 'memorySize'> & { memorySize?: number }) =>
      new PlatformFunction(
        this,
        {
          memorySize: 1024,
          ...spec,
          variables: { METRICS_NAMESPACE: metrics.namespace, ...spec.variables },
        },
        config,
        prefix,
      );

    const auth = make({
      name: 'auth',
      description: 'Auth service: OAuth 2.0 client credentials, clients, discovery and JWKS',
      timeout: Duration.seconds(10),
      // Its OpenAPI document; the API reference's merged document and Scalar's bundle (/docs, /openapi.json).
      afterBundling: BUNDLED_FILES.auth,
      variables: {
        ...serviceVariables,
        ...signingKeyVariables,
        ...(config.authConfig !== undefined
          ? { AUTH_CONFIG_INLINE: authConfigForFunction(config.authConfig) }
          : {}),
        ...staticClientSecretVariables(config.staticClientSecrets),
      },
    });
    const ledger = make({
      name: 'ledger',
      description: 'Ledger service: double-entry transactions, accounts, volumes, logs',
      timeout: Duration.seconds(15),
      afterBundling: BUNDLED_FILES.ledger,
      variables: ledgerVariables,
    });
    const ledgerWriter = make({
      name: 'ledger-writer',
      description: 'Ledger ingress queue to group commits of busy ledgers (sequenced writer)',
      timeout: LEDGER_WRITER_TIMEOUT,
      variables: ledgerVariables,
    });
    const payments = make({
      name: 'payments',
      description: 'Payments service: payment records and their events',
      timeout: Duration.seconds(10),
      afterBundling: BUNDLED_FILES.payments,
      variables: serviceVariables,
    });
    const webhooks = make({
      name: 'webhooks',
      description: 'Webhooks service: configs, deliveries, replay and test delivery',
      // The test delivery waits for one POST of up to 15 s; API Gateway answers 504 after 30 s anyway.
      timeout: Duration.seconds(25),
      afterBundling: BUNDLED_FILES.webhooks,
      variables: {
        ...serviceVariables,
        DELIVERIES_QUEUE_URL: queues.deliveries.queue.queueUrl,
      },
    });
    const platform = make({
      name: 'platform',
      description: 'Platform service: organizations, environments, members, personal tokens',
      timeout: Duration.seconds(10),
      afterBundling: BUNDLED_FILES.platform,
      // Personal tokens are signed with the auth service's keys: it opens the current private key.
      variables: { ...serviceVariables, ...signingKeyVariables },
    });
    const dispatch = make({
      name: 'dispatch',
      description: 'Events stream to webhook deliveries (one SQS message per matching config)',
      timeout: Duration.seconds(60),
      memorySize: 512,
      variables: workerVariables,
    });
    const deliver = make({
      name: 'deliver',
      description: 'Webhook deliveries queue to signed POSTs, retries and attempt records',
      timeout: DELIVER_TIMEOUT,
      memorySize: 512,
      variables: workerVariables,
    });
    // The console's static files (docs/guides/console.md): no variables beyond the defaults, no grant below.
    const consoleSite = make({
      name: 'console',
      description:
        "Console: the web console's page and assets (static files bundled beside the function)",
      timeout: Duration.seconds(10),
      memorySize: 512,
      afterBundling: BUNDLED_FILES.console,
      variables: {},
    });
    // Exporters: the ledger streams and the wakes queue drive pipelines; only the default table is written to.
    const pipelines = make({
      name: 'pipelines',
      description:
        'Exporters: ledger streams to pipeline wakes, each wake a drain of a pipeline to its exporter',
      timeout: PIPELINES_TIMEOUT,
      memorySize: 1024,
      variables: {
        ...tableVariables(prefix),
        PUBLIC_BASE_URL: publicBaseUrl,
        ...(ledgerVariables.LEDGER_BUCKET_TABLES
          ? { LEDGER_BUCKET_TABLES: ledgerVariables.LEDGER_BUCKET_TABLES }
          : {}),
        PIPELINE_WAKES_QUEUE_URL: queues.pipelineWakes.queue.queueUrl,
      },
    });
    // Payments connectors: a tick a minute runs the due fetches and initiations (found on the `due` index).
    const paymentsConnectors = make({
      name: 'payments-connectors',
      description:
        "Payments connectors' worker: scheduled fetches from providers, due payment initiations",
      timeout: CONNECTORS_WORKER_TIMEOUT,
      memorySize: 512,
      variables: { ...tableVariables(prefix), PUBLIC_BASE_URL: publicBaseUrl },
    });
    // The hold sweeper: a sweep a minute releases the expired holds of every ledger (found on the `due` index).
    const ledgerHolds = make({
      name: 'ledger-holds',
      description: 'Ledger hold sweeper: releases holds (pending transfers) past their expiry',
      timeout: HOLD_SWEEPER_TIMEOUT,
      memorySize: 512,
      variables: {
        ...tableVariables(prefix),
        PUBLIC_BASE_URL: publicBaseUrl,
        ...(ledgerVariables.LEDGER_BUCKET_TABLES
          ? { LEDGER_BUCKET_TABLES: ledgerVariables.LEDGER_BUCKET_TABLES }
          : {}),
      },
    });
    // The reply queues' sweeper: a sweep an hour deletes the reply queues of containers long gone.
    const ledgerReplySweep = make({
      name: 'ledger-reply-sweep',
      description: "Ledger reply queues' sweeper: deletes reply queues created more than a day ago",
      timeout: REPLY_SWEEPER_TIMEOUT,
      memorySize: 512,
      variables: {
        ...tableVariables(prefix),
        PUBLIC_BASE_URL: publicBaseUrl,
        LEDGER_INGRESS_QUEUE_URL: queues.ledgerIngress.queue.queueUrl,
      },
    });
    const rotateKeys = make({
      name: 'rotate-keys',
      description: 'Scheduled signing key rotation step',
      timeout: Duration.seconds(30),
      memorySize: 512,
      variables: { ...serviceVariables, ...signingKeyVariables },
    });

    // Least privilege, function by function (docs/operations.md lists the same).
    grantTable(auth.fn, tables.auth, 'readWrite', ['gsi1']);
    // Logins recorded, memberships read (token exchange); the single-use assertion records are in its own table.
    grantTable(auth.fn, tables.platform, 'readWrite');
    // Tokens are verified with the published keys: the JWKS item, nothing else of the auth table (the platform
    // service's grant below includes it).
    for (const service of [ledger, payments, webhooks])
      grantTable(service.fn, tables.auth, 'getItem', [], [JWKS_ITEM_KEY.pk]);

    // The isolation guard (docs/operations.md): the data functions reach their tables only through a role
    // assumed per request, for the request's environment's items; their own roles get nothing of them.
    const ledgerAccess = new EnvironmentAccess(ledger, 'environment-access', ledger);
    for (const table of [tables.ledger, ...bucketTables.values()])
      ledgerAccess.grantTable(table, 'readWrite', ['gsi1']);
    // Relays the writes of a busy ledger to its writer; the results it reads back are in the ledger's own table.
    queues.ledgerIngress.queue.grant(ledger.fn, 'sqs:SendMessage');
    grantReplyQueues(this, queues, ledger, ledgerWriter, ledgerReplySweep);
    // The writer decides and commits (the registry is in the default table), reading items by key only: no index.
    const writerAccess = new EnvironmentAccess(ledgerWriter, 'environment-access', ledgerWriter);
    for (const table of [tables.ledger, ...bucketTables.values()])
      writerAccess.grantTable(table, 'readWrite');
    feedLedgerWriter(ledgerWriter.fn, LEDGER_WRITER_TIMEOUT, queues); // grants consuming the queue, which it also drains itself
    const paymentsAccess = new EnvironmentAccess(payments, 'environment-access', payments);
    paymentsAccess.grantTable(tables.payments, 'readWrite', ['gsi1']);
    paymentsAccess.grantTable(tables.events, 'putItems'); // its outbox rows are the environment's too
    const webhooksAccess = new EnvironmentAccess(webhooks, 'environment-access', webhooks);
    webhooksAccess.grantTable(tables.webhooks, 'readWrite', ['gsi1']);
    queues.deliveries.queue.grantSendMessages(webhooks.fn); // replay enqueues one more attempt

    // The directory; the signing keys (the set and the private keys' items, opened with KMS) for personal tokens;
    // and one Limit-1 Query of an environment's list partition per service table before deleting it (empty?).
    grantTable(platform.fn, tables.platform, 'readWrite');
    grantTable(platform.fn, tables.auth, 'getItem', [], [JWKS_ITEM_KEY.pk, privateKeyKey('*').pk]);
    for (const table of [tables.ledger, tables.webhooks, tables.payments, tables.auth])
      grantIndexQuery(platform.fn, table, 'gsi1', [leadingKeysPattern('*')]);

    // The workers take each record's environment from its key; they keep their direct grants (no guard yet).
    grantTable(dispatch.fn, tables.webhooks, 'readWrite');
    queues.deliveries.queue.grantSendMessages(dispatch.fn);
    // The events table's stream and every ledger table's; grants each stream's read and the failure queue send.
    feedDispatch(dispatch.fn, tables.events, [tables.ledger, ...bucketTables.values()], queues);
    grantTable(deliver.fn, tables.webhooks, 'readWrite');
    grantTable(deliver.fn, tables.events, 'putItems'); // operator events (endpoint health), in its transactions
    queues.deliveries.queue.grantSendMessages(deliver.fn); // retries go back on the queue with a delay
    feedDeliver(deliver.fn, DELIVER_TIMEOUT, queues); // grants consuming the queue
    // Pipelines read logs and pipelines and move cursors; they reach destinations the stage names, and no other.
    for (const table of [tables.ledger, ...bucketTables.values()])
      grantTable(pipelines.fn, table, 'readAndUpdate');
    feedPipelines(pipelines.fn, [tables.ledger, ...bucketTables.values()], queues);
    grantExportTargets(pipelines, config.exportTargets);
    // The connectors' worker writes what providers report, with its outbox rows; it finds work on `due`.
    grantTable(paymentsConnectors.fn, tables.payments, 'readWrite', ['gsi1', 'due']);
    grantTable(paymentsConnectors.fn, tables.events, 'putItems');
    scheduleConnectorsTick(this, paymentsConnectors.fn);
    // The hold sweeper finds due holds of every environment on `due` (its own role: that index's shards only), then
    // releases each ledger's through the isolation guard, as the writer commits: that environment's items only.
    for (const table of [tables.ledger, ...bucketTables.values()])
      grantIndexQuery(ledgerHolds.fn, table, 'due', [`${DUE_HOLD_SHARD_PREFIX}*`]);
    const holdsAccess = new EnvironmentAccess(ledgerHolds, 'environment-access', ledgerHolds);
    for (const table of [tables.ledger, ...bucketTables.values()])
      holdsAccess.grantTable(table, 'readWrite', ['gsi1']);
    scheduleHoldSweep(this, ledgerHolds.fn);
    scheduleReplySweep(this, ledgerReplySweep.fn);
    grantTable(rotateKeys.fn, tables.auth, 'readWrite');
    // `/versions` reports each service healthy when its table is ACTIVE: the auth function may describe them.
    for (const table of [tables.auth, tables.ledger, tables.webhooks, tables.payments])
      grantTable(auth.fn, table, 'describe');
    // The auth service seals its first keys and opens the current one; rotation only seals new keys; the platform
    // service only opens the current one.
    signingKeyEncryption.allow('AuthFunctionSealsAndOpens', auth.role, [
      'kms:GenerateDataKey',
      'kms:Decrypt',
    ]);
    signingKeyEncryption.allow('RotateKeysFunctionSeals', rotateKeys.role, ['kms:GenerateDataKey']);
    signingKeyEncryption.allow('PlatformFunctionOpens', platform.role, ['kms:Decrypt']);
    scheduleKeyRotation(this, rotateKeys.fn);

    api.route('auth', auth.fn);
    api.route('ledger', ledger.fn);
    api.route('webhooks', webhooks.fn);
    api.route('payments', payments.fn);
    api.route('platform', platform.fn);
    api.routeVersions(auth.fn);
    api.routeDocs(auth.fn);
    api.routeConsole(consoleSite.fn);

    const alarms = new PlatformAlarms(this, 'alarms', {
      physicalPrefix: prefix,
      ...(config.alarmEmail ? { email: config.alarmEmail } : {}),
    });
    for (const f of [
      auth,
      ledger,
      ledgerWriter,
      payments,
      webhooks,
      platform,
      dispatch,
      deliver,
      rotateKeys,
      consoleSite,
      pipelines,
      paymentsConnectors,
      ledgerHolds,
      ledgerReplySweep,
    ])
      alarms.functionHealth(f.node.id, f.fn);
    alarms.connectors(metrics);
    alarms.iteratorAge(dispatch.fn);
    alarms.pipelines(pipelines.fn, queues, metrics);
    alarms.queueAge(
      'ledger-ingress-age',
      queues.ledgerIngress.queue,
      LEDGER_INGRESS_AGE_THRESHOLD,
      `ledger-writer: relayed ledger writes have waited ${LEDGER_INGRESS_AGE_THRESHOLD.toHumanString()} or more (the writer is behind or failing; past 8 s requests are answered 503)`,
    );
    alarms.queueNotEmpty(
      'ledger-ingress-dlq-depth',
      queues.ledgerIngress.deadLetters,
      'Relayed ledger writes in the dead-letter queue (failed 5 receives; their requesters were answered 504; past their deadlines, they can no longer be committed)',
    );
    alarms.queueNotEmpty(
      'deliveries-dlq-depth',
      queues.deliveries.deadLetters,
      'Webhook delivery messages in the dead-letter queue (failed every receive)',
    );
    alarms.queueNotEmpty(
      'dispatch-failures-depth',
      queues.dispatchFailures,
      'dispatch gave up on a batch of the events or a ledger stream (its description is in the queue)',
    );
    alarms.apiServerErrors(api.api);
    alarms.platformMetrics(metrics, METRIC_SERVICES);
    new PlatformDashboard(this, 'dashboard', { physicalPrefix: prefix, metrics });

    new CfnOutput(this, 'ApiUrl', {
      value: publicBaseUrl,
      description: 'PUBLIC_BASE_URL of the functions',
    });
    new CfnOutput(this, 'Issuer', {
      value: `${publicBaseUrl}/api/auth`,
      description: 'Token issuer and discovery base',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
  }
}

/**
 * The reply channel of group commit (lib/ledger/write/replies.ts): each ledger container creates its own reply
 * queue, named after the ingress queue with `-r-` and a random suffix, and long-polls it; the writer sends results
 * there; the sweeper deletes those created more than a day ago (lib/ledger/worker/reply-queue-sweep.ts). Queues are
 * created at run time, so the grant names their prefix — no queue of any other name.
 */
/** The finding's id names the ingress queue by its logical id, which the queue's construct path fixes. */
const REPLY_QUEUES_FINDING =
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:<queuesledgeringressACA55C30.QueueName>-r-*]';

function grantReplyQueues(
  stack: Stack,
  queues: PlatformQueues,
  requester: PlatformFunction,
  writer: PlatformFunction,
  sweeper: PlatformFunction,
): void {
  const replyQueues = stack.formatArn({
    service: 'sqs',
    resource: `${queues.ledgerIngress.queue.queueName}-r-*`,
  });
  requester.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['sqs:CreateQueue', 'sqs:ReceiveMessage'],
      resources: [replyQueues],
    }),
  );
  writer.fn.addToRolePolicy(
    new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [replyQueues] }),
  );
  sweeper.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['sqs:DeleteQueue', 'sqs:GetQueueAttributes'],
      resources: [replyQueues],
    }),
  );
  // ListQueues takes no resource (IAM authorizes it on `*` only); it names queues, it reads and changes none.
  sweeper.fn.addToRolePolicy(
    new PolicyStatement({ actions: ['sqs:ListQueues'], resources: ['*'] }),
  );
  const reason =
    'Reply queues are created at run time, one per ledger container (lib/ledger/write/replies.ts): the grant ' +
    "names the ingress queue's name and the `-r-` prefix, so it reaches those queues and no other.";
  for (const fn of [requester, writer, sweeper])
    acknowledge(fn.role, { id: REPLY_QUEUES_FINDING, reason });
  acknowledge(sweeper.role, {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'sqs:ListQueues supports no resource-level permission: IAM authorizes it on `*` only. It answers queue ' +
      'URLs under a name prefix, nothing of their messages; every other action of the sweeper is on the reply ' +
      "queues' prefix.",
  });
}
