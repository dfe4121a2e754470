import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createAdaptorServer } from '@hono/node-server';
import { createAuthApp } from '../../lib/auth/app.js';
import { loadAuthConfig } from '../../lib/auth/domain/static-clients.js';
import type { ThrottlePolicy } from '../../lib/auth/domain/throttle.js';
import { keyStoreFor } from '../../lib/auth/keys/vault-for-runtime.js';
import { SERVICES } from '../../lib/bearer/scopes.js';
import {
  logLevelFromEnv,
  platformConfigFromEnv,
  staticClientsSource,
  webhookWorkerConfigFromEnv,
} from '../../lib/config/env.js';
import { createLedgerApp } from '../../lib/ledger/app.js';
import { BucketTables } from '../../lib/ledger/store/bucket-tables.js';
import { createLogger } from '../../lib/observability/logger.js';
import { installMetricSink } from '../../lib/observability/metrics.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import { DOCUMENT_PATH } from '../../lib/openapi/serve.js';
import { createPaymentsApp } from '../../lib/payments/app.js';
import { createPlatformApp } from '../../lib/platform/app.js';
import { PlatformDirectory } from '../../lib/platform/store/directory.js';
import { createProtectedApp } from '../../lib/runtime/protected-app.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { createVersionsApp } from '../../lib/runtime/versions.js';
import { createWebhooksApp } from '../../lib/webhooks/app.js';
import { deliverBatch } from '../../lib/webhooks/deliver/deliver-batch.js';
import { dispatchBatch } from '../../lib/webhooks/dispatch/dispatch-batch.js';
import { DeliveryQueue } from '../../lib/webhooks/store/delivery-queue.js';
import { pendingDeliveriesOfEveryEnvironment } from '../../lib/webhooks/store/pending-everywhere.js';
import {
  createDeliverDeps,
  createDispatchDeps,
  workerSettings,
} from '../../lib/webhooks/workers.js';
import { lockDataDir } from './data-dir-lock.js';
import { durableWrites } from './durability-barrier.js';
import { type DynamoLocal, startDynamoLocal } from './dynamodb-local.js';
import { createGateway, type FetchHandler, type HealthReport } from './gateway.js';
import { type LocalIdentityConfig, loadLocalIdentityConfig } from './identity/config.js';
import {
  isIdentityPath,
  type LocalIdentityProvider,
  startLocalIdentityProvider,
} from './identity/local-identity-provider.js';
import { startKeyRotation } from './key-rotation.js';
import { type FunctionBundles, temporaryFunctionBundles } from './lambda/function-bundles.js';
import { startLedgerWorkers } from './lambda/ledger-workers.js';
import { startLedgerWriters } from './lambda/ledger-writers.js';
import { localMetrics } from './metrics/registry.js';
import { startDispatchPollers } from './pollers/dispatch-pollers.js';
import { createQueuePoller } from './pollers/queue-poller.js';
import { requeuePendingDeliveries } from './pollers/requeue-pending.js';
import { dynamoStreamCheckpoints } from './pollers/stream-checkpoints.js';
import { ensureQueues, ensureTables } from './provision.js';
import { startSqsLocal } from './sqs-local.js';

export const DEFAULT_AUTH_CONFIG = fileURLToPath(new URL('./auth.local.yaml', import.meta.url));
/** The stack runs `rotate-keys` hourly; the local timer does the same. */
const KEY_ROTATION_INTERVAL_MS = 3600_000;
/** The caller's settings `npm start` passes on to the services (README, "Configuration"). */
const PASSED_ON = [
  'LOG_LEVEL',
  'LEDGER_BUCKET_TABLES',
  'CORS_ALLOWED_ORIGINS',
  'KEY_MIN_PUBLISH_SECONDS',
  'IDENTITY_PROVIDER_ISSUER',
  'IDENTITY_PROVIDER_CLIENT_ID',
  'PLATFORM_ADMINS',
] as const;

function passedOn(callerEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    PASSED_ON.filter((name) => callerEnv[name]).map((name) => [name, callerEnv[name]]),
  );
}

export interface PlatformOptions {
  port: number;
  host?: string;
  /** Where DynamoDB Local keeps its tables; absent → in memory. */
  dataDir?: string;
  /** Use an already running DynamoDB (the tests' shared DynamoDB Local) instead of starting one. */
  dynamoEndpoint?: string;
  /** Prefix of every table and queue name. */
  resourcePrefix?: string;
  /** The caller's environment: AUTH_CONFIG, AUTH_CONFIG_INLINE, the `$NAME` secrets they name, and PASSED_ON. */
  env?: NodeJS.ProcessEnv;
  throttle?: ThrottlePolicy;
  /** Feed the events table's and the ledger tables' streams to `dispatch` (default true). */
  dispatch?: boolean;
  /** How often the signing-key rotation step runs, as the stack's hourly schedule does (default 1 hour). */
  keyRotationIntervalMs?: number;
  /** How many processes run `functions/ledger.ts`, each one request at a time (default `DEFAULT_LEDGER_WORKERS`). */
  ledgerWorkers?: number;
  /**
   * The ledger's function bundles, already built (the tests build them once for the whole run); absent: built
   * at start into a temporary directory, removed at stop.
   */
  functionBundles?: FunctionBundles;
  /** Concurrent ledger writer invocations (the ingress queue mapping's maximum concurrency; default 1). */
  ledgerWriters?: number;
  /**
   * The local identity provider's accounts and client (default: infra/local/identity.local.yaml); false: none.
   * None either when the caller names another provider (IDENTITY_PROVIDER_ISSUER).
   */
  identity?: LocalIdentityConfig | false;
}

export interface RunningPlatform {
  baseUrl: string;
  /** The environment the services were built from (table names, endpoints, issuer). */
  env: NodeJS.ProcessEnv;
  health(): Promise<HealthReport>;
  onFatal(listener: (reason: string) => void): void;
  stop(): Promise<void>;
  /** Ledger worker processes (Lambda-like containers) serving requests, and ledger writer processes. */
  ledgerWorkers: number;
  ledgerWriters: number;
  /** Pids of every ledger worker and of the writers ready to work (tests and the bench kill them). */
  ledgerPids(): { workers: number[]; writers: number[] };
  /** The local identity provider at `<baseUrl>/_idp`, with its development accounts (test only). */
  identityProvider?: Pick<LocalIdentityProvider, 'issuer' | 'clientId' | 'accounts'>;
}

export class PortInUseError extends Error {}

/**
 * The whole platform on one machine: DynamoDB Local, the in-process SQS emulator, tables and queues from the
 * shared definitions, and every service app behind one HTTP server that routes like API Gateway.
 * The port is bound first, so a port in use fails fast, before Java starts.
 */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  // The auth configuration first: a bad file fails at once, before any port or process is taken. `$NAME`
  // secrets resolve against the caller's environment.
  const callerEnv = options.env ?? {};
  const authConfig = loadAuthConfig(
    staticClientsSource(
      callerEnv.AUTH_CONFIG || callerEnv.AUTH_CONFIG_INLINE
        ? callerEnv
        : { ...callerEnv, AUTH_CONFIG: DEFAULT_AUTH_CONFIG },
    ),
    'local',
  );
  const identityConfig =
    options.identity === false || callerEnv.IDENTITY_PROVIDER_ISSUER
      ? undefined
      : (options.identity ?? loadLocalIdentityConfig());
  // Then the data directory, before the port: a second platform on it is refused before it touches anything.
  const lock = options.dataDir ? lockDataDir(options.dataDir) : undefined;
  let handler: FetchHandler = () => Response.json({ status: 'starting' }, { status: 503 });
  // The identity provider (a Node handler: oidc-provider is Koa) answers `/_idp` on the same server.
  let identity: LocalIdentityProvider | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => handler(request, env),
    createServer: ((serverOptions: object, listener: RequestListener) =>
      createServer(serverOptions, (req, res) =>
        identity && isIdentityPath(req.url) ? identity.handle(req, res) : listener(req, res),
      )) as typeof createServer,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new PortInUseError(`port ${options.port} is already in use (set PORT to use another)`)
          : err,
      ),
    );
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  }).catch((err: unknown) => {
    lock?.release();
    throw err;
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const stops: Array<() => Promise<void>> = [
    async () => lock?.release(),
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  ];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  const fatalListeners: Array<(reason: string) => void> = [];

  try {
    let dynamo: DynamoLocal | undefined;
    let dynamoEndpoint = options.dynamoEndpoint;
    if (!dynamoEndpoint) {
      dynamo = await startDynamoLocal(options.dataDir ? { dataDir: options.dataDir } : {});
      stops.push(dynamo.stop);
      dynamo.onUnexpectedExit((code) => {
        for (const l of fatalListeners) l(`DynamoDB Local exited unexpectedly (code ${code})`);
      });
      dynamoEndpoint = dynamo.endpoint;
    }
    const sqs = await startSqsLocal();
    stops.push(sqs.stop);

    const local = {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    };
    const dynamoClient = new DynamoDBClient({ ...local, endpoint: dynamoEndpoint });
    const sqsClient = new SQSClient({ ...local, endpoint: sqs.endpoint });
    stops.push(async () => {
      dynamoClient.destroy();
      sqsClient.destroy();
    });
    if (identityConfig) {
      const idpLogger = createLogger(logLevelFromEnv(callerEnv));
      identity = await startLocalIdentityProvider(baseUrl, identityConfig, {
        onError: (err) =>
          idpLogger.log('error', 'identity provider error', {
            error: err instanceof Error ? err.message : String(err),
          }),
      });
    }
    const prefix = options.resourcePrefix ?? 'platform-';
    const tables = await ensureTables(dynamoClient, prefix);
    const queues = await ensureQueues(sqsClient, prefix);

    // The functions' environment, as the stack sets it, with the caller's settings that `npm start` passes on.
    const env: NodeJS.ProcessEnv = {
      ...passedOn(callerEnv),
      STAGE: 'local',
      PUBLIC_BASE_URL: baseUrl,
      AWS_REGION: 'us-east-1',
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      SQS_ENDPOINT: sqs.endpoint,
      ...tables,
      ...queues,
      ...(identity ? identityEnv(identity, callerEnv) : {}),
    };
    // The services in this process record into the registry `/_metrics` renders; the workers' EMF joins it.
    const uninstallMetrics = installMetricSink(localMetrics);
    stops.push(async () => uninstallMetrics());
    const logger = createLogger(logLevelFromEnv(env));
    // The ledger runs as its Lambda does: worker processes from the function's own module, which read `env` at
    // load as a container does (a bad value is their init error), behind API Gateway's event mapping (design
    // rule 9). The other services stay in this process.
    const bundles = await ledgerBundles(options.functionBundles, stops);
    const ledger = await startLedgerWorkers({
      workers: options.ledgerWorkers,
      bundles,
      env,
      logger,
    });
    stops.push(ledger.stop);
    // Busy ledgers relay their writes to the sequenced writer (group commit), fed by the ingress queue.
    const writers = await startLedgerWriters({
      ...(options.ledgerWriters ? { writers: options.ledgerWriters } : {}),
      bundles,
      env,
      sqs: sqsClient,
      logger,
    });
    stops.push(writers.stop);
    // The services in this process read the same environment, once, as their Lambda entries do.
    const config = platformConfigFromEnv(env);
    const runtime = createRuntime(config);
    // Their OpenAPI documents are generated from their routes here (the functions read theirs from the files
    // bundled beside them). The ledger's workers run its Lambda module, which finds no such file beside its
    // source: its document is answered here too, from the routes of an in-process ledger app that serves nothing else.
    const documents = generatedDocuments;
    const ledgerDocument = createLedgerApp(runtime, { documents });
    const apps: Record<string, { fetch: FetchHandler }> = {
      auth: createAuthApp({
        runtime,
        documents,
        authConfig,
        ...(options.throttle ? { throttle: options.throttle } : {}),
      }),
      ledger: {
        fetch: (request, env) =>
          new URL(request.url).pathname === `/api/ledger${DOCUMENT_PATH}`
            ? ledgerDocument.fetch(request, env)
            : ledger.fetch(request, env),
      },
      payments: createPaymentsApp(runtime, { documents }),
      webhooks: createWebhooksApp(runtime, { documents }),
      platform: createPlatformApp({ runtime, documents }),
    };
    // The default organization and environment, with PLATFORM_ADMINS as its admins, before anything is served.
    await new PlatformDirectory(runtime.doc, config.tables.platform).ensureDefaults(
      config.platform.admins,
      new Date().toISOString(),
    );
    for (const service of SERVICES) apps[service] ??= createProtectedApp(service, runtime);
    // The stack's scheduled `rotate-keys`, locally: the same step on a timer (KEY_MIN_PUBLISH_SECONDS applies).
    stops.push(
      startKeyRotation({
        store: keyStoreFor(runtime),
        intervalMs: options.keyRotationIntervalMs ?? KEY_ROTATION_INTERVAL_MS,
        minNextAgeSeconds: config.auth.keyMinPublishSeconds,
        logger,
      }),
    );

    if (options.dispatch !== false) {
      const streamsClient = new DynamoDBStreamsClient({ ...local, endpoint: dynamoEndpoint });
      stops.push(async () => streamsClient.destroy());
      // The webhook workers as their functions compose them, from the settings their functions read; the clients
      // of this process shared.
      const settings = workerSettings(webhookWorkerConfigFromEnv(env));
      const clients = { doc: runtime.doc, sqs: sqsClient, logger };
      const deps = createDispatchDeps(settings, clients);
      // The queue is in memory: pending deliveries whose messages a restart lost get one again, before anything runs.
      await requeuePendingDeliveries(
        pendingDeliveriesOfEveryEnvironment(runtime.doc, settings.table),
        new DeliveryQueue({ sqs: sqsClient, queueUrl: settings.queueUrl }),
      );
      // The events table's stream and every ledger table's, each as its own event source mapping would.
      const stopDispatch = await startDispatchPollers({
        dynamo: dynamoClient,
        streams: streamsClient,
        eventsTable: tables.EVENTS_TABLE!,
        ledgerTables: new BucketTables(config.tables.ledger, config.ledger.bucketTables).all(),
        handler: (records) => dispatchBatch(records, deps),
        logger,
        // Checkpoints kept beside the data: after a restart, events committed meanwhile are dispatched too.
        checkpoints: dynamoStreamCheckpoints(runtime.doc, tables.WEBHOOKS_TABLE!),
      });
      stops.push(stopDispatch);
      // And the deliveries queue to `deliver`, as its SQS event source mapping does.
      const deliverDeps = createDeliverDeps(settings, clients);
      const deliveries = createQueuePoller({
        sqs: sqsClient,
        queueUrl: settings.queueUrl,
        handler: (records) => deliverBatch(records, deliverDeps),
        logger,
      });
      deliveries.start();
      stops.push(() => deliveries.stop());
    }

    const health = async (): Promise<HealthReport> => {
      const components: Record<string, 'up' | 'down'> = {};
      const check = async (name: string, probe: () => Promise<boolean>) => {
        components[name] = await probe().then(
          (ok) => (ok ? 'up' : 'down'),
          () => 'down' as const,
        );
      };
      await Promise.all([
        // Each of its own tables described: ListTables pages at 100 names, and a DynamoDB Local shared by many
        // platforms (the tests') holds more than that.
        check('dynamodb', async () => {
          const described = await Promise.all(
            Object.values(tables).map((TableName) =>
              dynamoClient.send(new DescribeTableCommand({ TableName })),
            ),
          );
          return described.every((d) => d.Table?.TableStatus === 'ACTIVE');
        }),
        check('ledger-workers', async () => ledger.healthy()),
        check('ledger-writers', async () => writers.healthy()),
        check('sqs', async () => {
          for (const url of Object.values(queues))
            await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: url }));
          return true;
        }),
        ...Object.entries(apps).map(([name, app]) =>
          check(
            name,
            async () =>
              (await app.fetch(new Request(`${baseUrl}/api/${name}/_health`))).status === 200,
          ),
        ),
      ]);
      return {
        status: Object.values(components).every((s) => s === 'up') ? 'ok' : 'unavailable',
        components,
      };
    };
    const versions = createVersionsApp({
      env: runtime.config.stage,
      region: config.region,
      // The reference's services, as the SDK's `getVersions` lists them (the platform API is not one of them).
      probes: Object.entries(apps)
        .filter(([name]) => (SERVICES as readonly string[]).includes(name))
        .map(([name, app]) => ({
          name,
          healthy: async () =>
            (await app.fetch(new Request(`${baseUrl}/api/${name}/_health`))).status === 200,
        })),
    });
    const gateway = createGateway(apps, health, versions).fetch;
    // Only a DynamoDB Local of our own on disk can lose an answered write to a crash (see durability-barrier.ts).
    handler =
      dynamo && options.dataDir
        ? durableWrites(gateway, dynamoClient, tables.WEBHOOKS_TABLE!)
        : gateway;
    return {
      baseUrl,
      env,
      health,
      stop,
      onFatal: (l) => fatalListeners.push(l),
      ledgerWorkers: ledger.pids().length,
      ledgerWriters: writers.pids().length,
      ledgerPids: () => ({ workers: ledger.pids(), writers: writers.readyPids() }),
      ...(identity
        ? {
            identityProvider: {
              issuer: identity.issuer,
              clientId: identity.clientId,
              accounts: identity.accounts,
            },
          }
        : {}),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The services trust the local identity provider; its accounts marked `platformAdmin` become the `default`
 * organization's admins, unless the caller names them (PLATFORM_ADMINS).
 */
function identityEnv(
  identity: LocalIdentityProvider,
  callerEnv: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const admins = identity.accounts.filter((a) => a.platformAdmin).map((a) => a.email);
  return {
    IDENTITY_PROVIDER_ISSUER: identity.issuer,
    IDENTITY_PROVIDER_CLIENT_ID: identity.clientId,
    PLATFORM_ADMINS: callerEnv.PLATFORM_ADMINS || admins.join(','),
  };
}

/** The given bundles, or fresh ones whose removal joins the platform's stops. */
async function ledgerBundles(
  given: FunctionBundles | undefined,
  stops: Array<() => Promise<void>>,
): Promise<FunctionBundles> {
  if (given) return given;
  const built = await temporaryFunctionBundles();
  stops.push(async () => built.remove());
  return built.bundles;
}
