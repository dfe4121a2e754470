import { rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAdaptorServer } from '@hono/node-server';
import { assembleLedgerApp } from '../../lib/assembly/ledger-app.js';
import { assemblePlatformApp } from '../../lib/assembly/platform-app.js';
import { createAuthApp } from '../../lib/auth/app.js';
import { type AuthFileConfig, loadAuthConfig } from '../../lib/auth/domain/static-clients.js';
import type { ThrottlePolicy } from '../../lib/auth/domain/throttle.js';
import { keyStoreFor } from '../../lib/auth/keys/vault-for-runtime.js';
import {
  DEFAULT_LEDGER_WORKERS,
  logFormatFromVariables,
  logLevelFromVariables,
  type PlatformConfig,
  platformConfigFromVariables,
  staticClientsSource,
} from '../../lib/config/env.js';
import { localAuthorization } from '../../lib/dynamo/local-authorization.js';
import { EmbeddedGroupCommit } from '../../lib/ledger/write/embedded.js';
import { createLogger, type Logger } from '../../lib/observability/logger.js';
import { installMetricSink } from '../../lib/observability/metrics.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import { DOCUMENT_PATH } from '../../lib/openapi/serve.js';
import { createPaymentsApp } from '../../lib/payments/app.js';
import { dummypaySettings } from '../../lib/payments/domain/connectors/dummypay-directory.js';
import { PlatformDirectory } from '../../lib/platform/store/directory.js';
import { createProtectedApp } from '../../lib/runtime/protected-app.js';
import {
  bigintDocumentClient,
  createRuntime,
  type ServiceRuntime,
} from '../../lib/runtime/runtime.js';
import { SERVICES } from '../../lib/tokens/scopes.js';
import { createWebhooksApp } from '../../lib/webhooks/app.js';
import { startConnectorTimer } from './connector-timer.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import {
  durabilityBarrier,
  durableWrites,
  type EarlyAnswers,
  READ_METHODS,
  type SharedBarrier,
} from './durability-barrier.js';
import { type DynamoLocal, type EmulatorCompiler, startDynamoLocal } from './dynamodb-local.js';
import { createGateway, type FetchHandler, type HealthReport } from './gateway.js';
import { startHoldSweepTimer } from './hold-sweep-timer.js';
import { type LocalIdentityConfig, loadLocalIdentityConfig } from './identity/config.js';
import {
  isIdentityPath,
  type LocalIdentityProvider,
  startLocalIdentityProvider,
} from './identity/local-identity-provider.js';
import { startKeyRotation } from './key-rotation.js';
import {
  buildFunctionBundles,
  type FunctionBundles,
  temporaryFunctionBundles,
} from './lambda/function-bundles.js';
import { type LedgerWorkers, startLedgerWorkers } from './lambda/ledger-workers.js';
import { type LedgerWriters, startLedgerWriters } from './lambda/ledger-writers.js';
import type { LedgerWrites } from './ledger-events/ledger-writes.js';
import { holdWritesOf, observeLedgerWrites } from './ledger-events/observe.js';
import { localMetrics } from './metrics/registry.js';
import { platformHealth, platformVersions } from './platform-health.js';
import { startLocalPipelineWorkers } from './pollers/pipeline-workers.js';
import { startWebhookWorkers } from './pollers/webhook-workers.js';
import { ensureQueues, ensureTables } from './provision.js';
import { startReplySweepTimer } from './reply-sweep-timer.js';
import { type S3Local, startS3Local } from './s3-local.js';
import { startSqsLocal } from './sqs-local.js';
import { WriteSignal } from './write-signal.js';

/** The local scheduler's tick: a due connector task starts within this. */
const CONNECTOR_TIMER_INTERVAL_MS = 10_000;
/** The local hold sweeper's tick: an expired hold is released within this (the stack's schedule: a minute). */
const HOLD_SWEEP_INTERVAL_MS = 1_000;
/** The stack's schedule of the hold sweeper: the local timer looks at least this often while no hold waits. */
const HOLD_SWEEP_IDLE_MAX_MS = 60_000;

export const DEFAULT_AUTH_CONFIG = fileURLToPath(new URL('./auth.local.yaml', import.meta.url));
/** The stack runs `rotate-keys` hourly; the local timer does the same. */
const KEY_ROTATION_INTERVAL_MS = 3600_000;
/** The reply queues' sweeper's, as the stack's schedule (hourly). */
const REPLY_SWEEP_INTERVAL_MS = 3600_000;
/** The caller's settings `npm start` passes on to the services (README, "Configuration"). */
const PASSED_ON = [
  'LOG_LEVEL',
  'LOG_FORMAT',
  'LEDGER_BUCKET_TABLES',
  'CORS_ALLOWED_ORIGINS',
  'KEY_MIN_PUBLISH_SECONDS',
  'IDENTITY_PROVIDER_ISSUER',
  'IDENTITY_PROVIDER_CLIENT_ID',
  'PLATFORM_ADMINS',
  'PAYMENTS_DUMMYPAY_ROOT',
] as const;

function passedOn(callerVariables: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    PASSED_ON.filter((name) => callerVariables[name]).map((name) => [name, callerVariables[name]]),
  );
}

export interface PlatformOptions {
  port: number;
  host?: string;
  /** Where DynamoDB Local keeps its tables (and the S3 emulator its objects, `s3/`); absent → in memory. */
  dataDir?: string;
  /** The local S3 emulator's loopback port (`npm start`: S3_PORT, 4568); absent or 0: a free one. */
  s3Port?: number;
  /** Use an already running DynamoDB (the tests' shared DynamoDB Local) instead of starting one. */
  dynamoEndpoint?: string;
  /**
   * The key id every client of the platform sends DynamoDB Local (default `local`). An emulator that keeps a database
   * per key (`databasePerKey`, given as `dynamoEndpoint`) then serves this platform a database of its own.
   */
  dynamoLocalAccessKeyId?: string;
  /** Use an already running SQS emulator instead of starting one (the bench counts requests in front of it). */
  sqsEndpoint?: string;
  /** How the DynamoDB Local it starts compiles (dynamodb-local.ts): `quick` unless said (`npm start`: optimizing). */
  dynamoCompiler?: EmulatorCompiler;
  /** Prefix of every table and queue name. */
  resourcePrefix?: string;
  /** The caller's variables: AUTH_CONFIG, AUTH_CONFIG_INLINE, the `$NAME` secrets they name, and PASSED_ON. */
  variables?: NodeJS.ProcessEnv;
  throttle?: ThrottlePolicy;
  /** Feed the events table's and the ledger tables' streams to `dispatch` (default true). */
  dispatch?: boolean;
  /** Feed the ledger tables' streams to the pipeline worker (exporters; default true). */
  pipelines?: boolean;
  /** How often the signing-key rotation step runs, as the stack's hourly schedule does (default 1 hour). */
  keyRotationIntervalMs?: number;
  /** How often the payments connectors' due schedules are looked for (default 10 s). */
  connectorTimerIntervalMs?: number;
  /**
   * The clock (epoch ms) the connectors' timer runs schedules by, and stamps what their runs write with (default:
   * the machine's). A clock that runs faster brings each polling period's next run sooner: a test of a 30 s
   * period need not wait 30 s.
   */
  connectorClock?: () => number;
  /** How often expired holds (pending transfers) are looked for and released (default 1 s). */
  holdSweepIntervalMs?: number;
  /**
   * How many processes run `functions/ledger.ts`, each one request at a time, with the ledger writer fed by the
   * ingress queue (the Lambda-faithful mode). Absent: the ledger runs embedded in this process, every write through
   * its own group commit (lib/ledger/write/embedded.ts).
   */
  ledgerWorkers?: number;
  /** With `ledgerWorkers`: the ledger's worker and writer processes write V8 CPU profiles there as they stop. */
  cpuProfileDir?: string;
  /**
   * The ledger's function bundles, already built (the tests build them once for the whole run); absent: built
   * at start, into `dataDir/bundles` or a temporary directory (see `ledgerBundles`).
   */
  functionBundles?: FunctionBundles;
  /** Concurrent ledger writer invocations (the ingress queue mapping's maximum concurrency; default 1). */
  ledgerWriters?: number;
  /** Told each step of the start as it begins (`npm start` prints them: a start takes seconds, not nothing). */
  onProgress?: (step: string) => void;
  /**
   * The local identity provider's accounts and client (default: infra/local/identity.local.yaml); false: none.
   * None either when the caller names another provider (IDENTITY_PROVIDER_ISSUER).
   */
  identity?: LocalIdentityConfig | false;
}

export interface RunningPlatform {
  baseUrl: string;
  /** The variables the services were built from (table names, endpoints, issuer). */
  variables: NodeJS.ProcessEnv;
  health(): Promise<HealthReport>;
  onFatal(listener: (reason: string) => void): void;
  stop(): Promise<void>;
  /** Ledger worker processes (Lambda-like containers) serving requests, and ledger writer processes. */
  ledgerWorkers: number;
  ledgerWriters: number;
  /** Pids of every ledger worker and of the writers ready to work (tests and the bench kill them). */
  ledgerPids(): { workers: number[]; writers: number[] };
  /** The local S3 emulator the s3 exporters write to (S3_ENDPOINT), and the folder of its buckets. */
  s3: Pick<S3Local, 'endpoint' | 'directory'>;
  /** The local identity provider at `<baseUrl>/_idp`, with its development accounts (test only). */
  identityProvider?: Pick<LocalIdentityProvider, 'issuer' | 'clientId' | 'accounts'>;
}

export class PortInUseError extends Error {}

/** What the one HTTP server answers with: the gateway once started, the local identity provider at `/_idp`. */
interface Front {
  handler: FetchHandler;
  identity?: LocalIdentityProvider;
}

/** What is stopped, last started first, when the platform stops or fails to start. */
type Stops = Array<() => Promise<void>>;

/** The local DynamoDB and SQS and this process's clients of them. */
interface Backends {
  /** Our own DynamoDB Local, when no endpoint was given. */
  dynamo: DynamoLocal | undefined;
  dynamoEndpoint: string;
  /** The key id the platform's DynamoDB clients send (the emulator's database), when not `local`. */
  dynamoLocalAccessKeyId?: string;
  sqsEndpoint: string;
  s3: S3Local;
  dynamoClient: DynamoDBClient;
  sqsClient: SQSClient;
}

const LOCAL_CONNECTION = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

/** The emulators' connection, with the DynamoDB Local database's key id when the platform was given one. */
function dynamoConnection(keyId: string | undefined): typeof LOCAL_CONNECTION {
  return keyId
    ? { ...LOCAL_CONNECTION, credentials: { accessKeyId: keyId, secretAccessKey: 'local' } }
    : LOCAL_CONNECTION;
}

/**
 * The whole platform on one machine: DynamoDB Local, the in-process SQS emulator, tables and queues from the
 * shared definitions, and every service app behind one HTTP server that routes like API Gateway.
 * The port is bound first, so a port in use fails fast, before Java starts.
 */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const caller = options.variables ?? {};
  const { authConfig, identityConfig } = startupConfig(options, caller);
  // Then the data directory, before the port: a second platform on it is refused before it touches anything.
  const lock = options.dataDir ? lockDataDir(options.dataDir) : undefined;
  const front: Front = { handler: () => Response.json({ status: 'starting' }, { status: 503 }) };
  const server = await listen(options, front, lock);
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const { stops, stop } = stopsOf(lock, server);
  const fatalListeners: Array<(reason: string) => void> = [];

  const progress = options.onProgress ?? (() => undefined);
  try {
    const backends = await startBackends(options, stops, fatalListeners);
    if (identityConfig) front.identity = await startIdentity(baseUrl, identityConfig, caller);
    const prefix = options.resourcePrefix ?? 'platform-';
    progress('creating tables and queues');
    const embedded = options.ledgerWorkers === undefined;
    const tables = await ensureTables(backends.dynamoClient, prefix, { ledgerStreams: !embedded });
    const queues = await ensureQueues(backends.sqsClient, prefix);
    const variables = {
      ...functionVariables(caller, baseUrl, backends, tables, queues, front.identity),
      ...dummypayRoot(caller, options.dataDir),
    };
    const logger = processLogger(variables, stops);
    // Worker processes first: a bad setting is then their init error, as a Lambda container reports it.
    const processes = embedded
      ? undefined
      : await startLedgerProcesses(options, variables, backends, logger, stops);
    // The services in this process read the same variables, once, as their Lambda entries do.
    const observed = embedded
      ? observeLedgerWrites(platformConfigFromVariables(variables), stops)
      : undefined;
    const config = observed?.config ?? platformConfigFromVariables(variables);
    const runtime = createRuntime(config);
    const barrier = localBarrier(options, backends, tables, observed?.earlyAnswers);
    const { ledger, writers } =
      processes ?? embeddedLedger(runtime, logger, options.dataDir, barrier);
    progress('starting the services');
    const apps = await startServices(options, runtime, config, authConfig, ledger, logger, stops);
    progress('starting the workers');
    const writes = await startWorkers(options, {
      ...(observed ? { ledgerWrites: observed.writes } : {}),
      variables,
      config,
      runtime,
      backends,
      tables,
      logger,
      stops,
    });
    stops.push(holdSweeper(options, config, { writes, ledgerWrites: observed?.writes }, logger));

    const parts = { baseUrl, tables, queues, apps, ledger, writers, config };
    const health = openGateway(front, backends, writes, barrier, parts);
    return {
      baseUrl,
      variables,
      health,
      stop,
      onFatal: (l) => fatalListeners.push(l),
      ledgerWorkers: ledger.pids().length,
      ledgerWriters: writers.pids().length,
      ledgerPids: () => ({ workers: ledger.pids(), writers: writers.readyPids() }),
      s3: { endpoint: backends.s3.endpoint, directory: backends.s3.directory },
      ...(front.identity ? { identityProvider: identityProviderOf(front.identity) } : {}),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Only a DynamoDB Local of our own on disk can lose an answered write to a crash (see durability-barrier.ts). */
function localBarrier(
  options: PlatformOptions,
  backends: Backends,
  tables: Record<string, string>,
  earlyAnswers: EarlyAnswers | undefined,
): SharedBarrier | undefined {
  if (!backends.dynamo || !options.dataDir) return undefined;
  return durabilityBarrier(backends.dynamoClient, tables.WEBHOOKS_TABLE!, earlyAnswers);
}

/**
 * The logger of the services in this process, from the functions' variables; they record their metrics into the
 * registry `/_metrics` renders (the workers' EMF joins it).
 */
function processLogger(variables: NodeJS.ProcessEnv, stops: Stops): Logger {
  const uninstallMetrics = installMetricSink(localMetrics);
  stops.push(async () => uninstallMetrics());
  return createLogger(
    logLevelFromVariables(variables),
    undefined,
    logFormatFromVariables(variables),
  );
}

/**
 * The workers the stack's event sources feed: webhook dispatch and delivery, the exporters' pipelines. Answers the
 * signal of the gateway's writes that wakes their idle stream pollers.
 */
async function startWorkers(
  options: PlatformOptions,
  parts: {
    variables: NodeJS.ProcessEnv;
    config: PlatformConfig;
    runtime: ServiceRuntime;
    backends: Backends;
    tables: Record<string, string>;
    logger: Logger;
    stops: Stops;
    ledgerWrites?: LedgerWrites;
  },
): Promise<WriteSignal> {
  const { variables, config, runtime, backends, tables, logger, stops, ledgerWrites } = parts;
  const writes = new WriteSignal();
  const streamsConnection = {
    ...dynamoConnection(backends.dynamoLocalAccessKeyId),
    endpoint: backends.dynamoEndpoint,
  };
  if (options.dispatch !== false) {
    await startWebhookWorkers({
      writes,
      variables,
      config,
      doc: runtime.doc,
      dynamo: backends.dynamoClient,
      sqs: backends.sqsClient,
      streamsConnection,
      tables,
      logger,
      onStop: (s) => stops.push(s),
      ...(ledgerWrites ? { ledgerWrites } : {}),
    });
  }
  if (options.pipelines !== false) {
    await startLocalPipelineWorkers({
      runtime,
      dynamo: backends.dynamoClient,
      streamsConnection,
      checkpointsTable: tables.WEBHOOKS_TABLE!,
      logger,
      onStop: (s) => stops.push(s),
      wakeOn: writes,
      ...(ledgerWrites ? { ledgerWrites } : {}),
    });
  }
  stops.push(replySweeper(config, backends.sqsClient, logger));
  return writes;
}

/** The stack's scheduled hold sweeper, locally: the same sweep, when the due index says a hold is due. */
function holdSweeper(
  options: PlatformOptions,
  config: PlatformConfig,
  signals: { writes: WriteSignal; ledgerWrites: LedgerWrites | undefined },
  logger: Logger,
): () => Promise<void> {
  return startHoldSweepTimer({
    config,
    intervalMs: options.holdSweepIntervalMs ?? HOLD_SWEEP_INTERVAL_MS,
    idleMaxMs: HOLD_SWEEP_IDLE_MAX_MS,
    wakeOn: signals.writes,
    ...(signals.ledgerWrites ? { dueOn: holdWritesOf(signals.ledgerWrites) } : {}),
    logger,
  });
}

/**
 * The stack's scheduled reply queues' sweeper, locally: hourly, on the platform's SQS client (stopped before it).
 * Nothing to sweep without the ingress queue.
 */
function replySweeper(config: PlatformConfig, sqs: SQSClient, logger: Logger): () => Promise<void> {
  const ingress = config.queues['ledger-ingress'];
  if (!ingress) return async () => undefined;
  return startReplySweepTimer({
    sqs,
    ingressQueueUrl: ingress,
    intervalMs: REPLY_SWEEP_INTERVAL_MS,
    logger,
  });
}

/** The platform's stops, the data directory's lock and the server first, and the function that runs them. */
function stopsOf(
  lock: DataDirLock | undefined,
  server: { close(callback: () => void): unknown },
): { stops: Stops; stop: () => Promise<void> } {
  const stops: Stops = [
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
  return { stops, stop };
}

/** Puts the gateway (with `/_health` and `/versions`) behind the server; answers the health check it serves. */
function openGateway(
  front: Front,
  backends: Backends,
  writes: WriteSignal,
  /** The durability barrier every answered write waits for, if the emulator can lose one (durability-barrier.ts). */
  barrier: SharedBarrier | undefined,
  parts: {
    baseUrl: string;
    tables: Record<string, string>;
    queues: Record<string, string>;
    apps: Record<string, { fetch: FetchHandler }>;
    ledger: LedgerWorkers;
    writers: LedgerWriters;
    config: PlatformConfig;
  },
): () => Promise<HealthReport> {
  const { tables, apps, baseUrl } = parts;
  const health = platformHealth({
    dynamo: backends.dynamoClient,
    sqs: backends.sqsClient,
    tables,
    queues: parts.queues,
    ledgerWorkers: parts.ledger,
    ledgerWriters: parts.writers,
    apps,
    baseUrl,
  });
  const versions = platformVersions(apps, baseUrl, parts.config.stage, parts.config.region);
  const gateway = createGateway(apps, health, versions).fetch;
  const durable = barrier ? durableWrites(gateway, barrier) : gateway;
  // Every answered write wakes the idle stream pollers (write-signal.ts).
  front.handler = async (request, bindings) => {
    const response = await durable(request, bindings);
    if (!READ_METHODS.has(request.method)) writes.notify();
    return response;
  };
  return health;
}

/**
 * The auth configuration first: a bad file fails at once, before any port or process is taken. `$NAME` secrets
 * resolve against the caller's variables.
 */
function startupConfig(options: PlatformOptions, callerVariables: NodeJS.ProcessEnv) {
  const authConfig = loadAuthConfig(
    staticClientsSource(
      callerVariables.AUTH_CONFIG || callerVariables.AUTH_CONFIG_INLINE
        ? callerVariables
        : { ...callerVariables, AUTH_CONFIG: DEFAULT_AUTH_CONFIG },
    ),
    'local',
  );
  const identityConfig =
    options.identity === false || callerVariables.IDENTITY_PROVIDER_ISSUER
      ? undefined
      : (options.identity ?? loadLocalIdentityConfig());
  return { authConfig, identityConfig };
}

/**
 * Binds the port: one server for the gateway and (a Node handler: oidc-provider is Koa) the provider's `/_idp`.
 * A port it cannot bind releases the data directory.
 */
async function listen(options: PlatformOptions, front: Front, lock: DataDirLock | undefined) {
  const server = createAdaptorServer({
    fetch: (request, bindings) => front.handler(request, bindings),
    createServer: ((serverOptions: object, listener: RequestListener) =>
      createServer(serverOptions, (req, res) =>
        front.identity && isIdentityPath(req.url)
          ? front.identity.handle(req, res)
          : listener(req, res),
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
  return server;
}

/** DynamoDB Local (unless one is given), the SQS emulator, and the clients of both. */
async function startBackends(
  options: PlatformOptions,
  stops: Stops,
  fatalListeners: Array<(reason: string) => void>,
): Promise<Backends> {
  let dynamo: DynamoLocal | undefined;
  let dynamoEndpoint = options.dynamoEndpoint;
  if (!dynamoEndpoint) {
    options.onProgress?.('starting DynamoDB Local (Java)');
    dynamo = await startDynamoLocal({
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.dynamoCompiler ? { compiler: options.dynamoCompiler } : {}),
    });
    stops.push(dynamo.stop);
    dynamo.onUnexpectedExit((code) => {
      for (const l of fatalListeners) l(`DynamoDB Local exited unexpectedly (code ${code})`);
    });
    dynamoEndpoint = dynamo.endpoint;
  }
  // The two emulators start side by side: neither needs the other, and loading s3rver takes a while.
  options.onProgress?.('starting the SQS and S3 emulators');
  const stopLater = <T extends { stop: () => Promise<void> }>(started: T): T => {
    stops.push(started.stop);
    return started;
  };
  const [sqs, s3] = await Promise.all([
    options.sqsEndpoint ? { endpoint: options.sqsEndpoint } : startSqsLocal().then(stopLater),
    startS3Local({
      port: options.s3Port ?? 0,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }).then(stopLater),
  ]);
  const keyId = options.dynamoLocalAccessKeyId;
  const connection = dynamoConnection(keyId);
  // The platform's own client (tables, the durability read, checkpoints) is no Lambda's: it need not sign.
  const dynamoClient = new DynamoDBClient({
    ...connection,
    endpoint: dynamoEndpoint,
    signer: localAuthorization(connection.credentials.accessKeyId, connection.region),
  });
  const sqsClient = new SQSClient({ ...LOCAL_CONNECTION, endpoint: sqs.endpoint });
  stops.push(async () => {
    dynamoClient.destroy();
    sqsClient.destroy();
  });
  return {
    dynamo,
    dynamoEndpoint,
    ...(keyId ? { dynamoLocalAccessKeyId: keyId } : {}),
    sqsEndpoint: sqs.endpoint,
    s3,
    dynamoClient,
    sqsClient,
  };
}

function startIdentity(
  baseUrl: string,
  identityConfig: LocalIdentityConfig,
  callerVariables: NodeJS.ProcessEnv,
): Promise<LocalIdentityProvider> {
  const idpLogger = createLogger(
    logLevelFromVariables(callerVariables),
    undefined,
    logFormatFromVariables(callerVariables),
  );
  return startLocalIdentityProvider(baseUrl, identityConfig, {
    onError: (err) =>
      idpLogger.log('error', 'identity provider error', {
        error: err instanceof Error ? err.message : String(err),
      }),
  });
}

/** dummypay's files: the caller's root, else `<dataDir>/dummypay` (a platform without a data dir has none). */
function dummypayRoot(callerVariables: NodeJS.ProcessEnv, dataDir: string | undefined) {
  if (callerVariables.PAYMENTS_DUMMYPAY_ROOT || !dataDir) return {};
  return { PAYMENTS_DUMMYPAY_ROOT: resolve(dataDir, 'dummypay') };
}

/** The functions' environment, as the stack sets it, with the caller's settings that `npm start` passes on. */
function functionVariables(
  callerVariables: NodeJS.ProcessEnv,
  baseUrl: string,
  backends: Backends,
  tables: Record<string, string>,
  queues: Record<string, string>,
  identity: LocalIdentityProvider | undefined,
): NodeJS.ProcessEnv {
  return {
    ...passedOn(callerVariables),
    STAGE: 'local',
    PUBLIC_BASE_URL: baseUrl,
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: backends.dynamoEndpoint,
    ...(backends.dynamoLocalAccessKeyId
      ? { DYNAMODB_LOCAL_ACCESS_KEY_ID: backends.dynamoLocalAccessKeyId }
      : {}),
    SQS_ENDPOINT: backends.sqsEndpoint,
    S3_ENDPOINT: backends.s3.endpoint,
    ...tables,
    ...queues,
    ...(identity ? identityVariables(identity, callerVariables) : {}),
  };
}

/**
 * The embedded ledger: its app in this process, every write of a ledger committed by this process's group
 * commit — concurrent requests still go through the same protocol and HEAD conditions, batched in memory rather
 * than through the ingress queue. No worker or writer process.
 */
function embeddedLedger(
  runtime: ServiceRuntime,
  logger: Logger,
  dataDir: string | undefined,
  /** Read after each batch lands, before the next commit (write/embedded.ts, `afterLanding`). */
  barrier: SharedBarrier | undefined,
): { ledger: LedgerWorkers; writers: LedgerWriters } {
  // Function bundles an earlier start in worker mode built there are of no use now (ledgerBundles says why).
  if (dataDir) rmSync(join(dataDir, 'bundles'), { recursive: true, force: true });
  const app = assembleLedgerApp(runtime, {
    documents: generatedDocuments,
    embedded: {
      engine: EmbeddedGroupCommit,
      logger,
      ...(barrier ? { afterLanding: barrier } : {}),
    },
  });
  const none = { healthy: () => true, pids: () => [], stop: async () => undefined };
  return {
    ledger: { ...none, fetch: (request, bindings) => app.fetch(request, bindings) },
    writers: { ...none, readyPids: () => [] },
  };
}

/**
 * The Lambda-faithful ledger (`LEDGER_WORKERS`): runs as its Lambda does: worker processes from the function's own
 * module, bundled as the stack bundles it (function-bundles.ts), which read `variables` at load as a container does (a bad
 * value is their init error), behind API Gateway's event mapping, each serving one request at a time as a container
 * does: concurrent writes then race through the commit protocol across processes, as in AWS. The other services stay
 * in this process.
 */
async function startLedgerProcesses(
  options: PlatformOptions,
  variables: NodeJS.ProcessEnv,
  backends: Backends,
  logger: Logger,
  stops: Stops,
): Promise<{ ledger: LedgerWorkers; writers: LedgerWriters }> {
  const bundles = await ledgerBundles(options, stops);
  options.onProgress?.(
    `starting ${options.ledgerWorkers ?? DEFAULT_LEDGER_WORKERS} ledger workers and the ledger writer`,
  );
  const ledger = await startLedgerWorkers({
    workers: options.ledgerWorkers,
    bundles,
    variables,
    logger,
    cpuProfileDir: options.cpuProfileDir,
  });
  stops.push(ledger.stop);
  // Busy ledgers relay their writes to the sequenced writer (group commit), fed by the ingress queue.
  const writers = await startLedgerWriters({
    ...(options.ledgerWriters ? { writers: options.ledgerWriters } : {}),
    bundles,
    variables,
    sqs: backends.sqsClient,
    logger,
    cpuProfileDir: options.cpuProfileDir,
  });
  stops.push(writers.stop);
  return { ledger, writers };
}

/**
 * The given bundles; or fresh ones in the data directory (`DATA_DIR/bundles`, emptied and rebuilt at every start —
 * chunk names carry a hash of their content, so an earlier build's would otherwise pile up — and a platform killed
 * outright leaves nothing behind elsewhere; the directory's lock is held already); or, without one, in a temporary
 * directory removed at stop.
 */
async function ledgerBundles(options: PlatformOptions, stops: Stops): Promise<FunctionBundles> {
  if (options.functionBundles) return options.functionBundles;
  options.onProgress?.('bundling the ledger function (as the stack does)');
  if (options.dataDir) {
    const dir = join(options.dataDir, 'bundles');
    rmSync(dir, { recursive: true, force: true });
    return buildFunctionBundles(dir);
  }
  const built = await temporaryFunctionBundles();
  stops.push(async () => built.remove());
  return built.bundles;
}

/**
 * Every service's app (the ledger's behind its worker processes), the default organization and environment, and
 * the timers of the stack's schedules: signing-key rotation, payments connectors (the hold sweeper's starts with
 * the workers, woken by their write signal).
 */
async function startServices(
  options: PlatformOptions,
  runtime: ServiceRuntime,
  config: PlatformConfig,
  authConfig: AuthFileConfig,
  ledger: LedgerWorkers,
  logger: Logger,
  stops: Stops,
): Promise<Record<string, { fetch: FetchHandler }>> {
  // Their OpenAPI documents are generated from their routes here (the functions read theirs from the files
  // bundled beside them). The ledger's workers run its Lambda module, which finds no such file beside its
  // source: its document is answered here too, from the routes of an in-process ledger app that serves nothing else.
  const documents = generatedDocuments;
  const ledgerDocument = assembleLedgerApp(runtime, { documents });
  const apps: Record<string, { fetch: FetchHandler }> = {
    auth: createAuthApp({
      runtime,
      documents,
      authConfig,
      ...(options.throttle ? { throttle: options.throttle } : {}),
    }),
    ledger: {
      fetch: (request, bindings) =>
        new URL(request.url).pathname === `/api/ledger${DOCUMENT_PATH}`
          ? ledgerDocument.fetch(request, bindings)
          : ledger.fetch(request, bindings),
    },
    payments: createPaymentsApp(runtime, { documents }),
    webhooks: createWebhooksApp(runtime, { documents }),
    platform: assemblePlatformApp({ runtime, documents }),
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
  stops.push(
    startConnectorTimer({
      stores: {
        doc: bigintDocumentClient(runtime),
        table: config.tables.payments,
        eventsTable: config.tables.events,
        ...(options.connectorClock ? { now: options.connectorClock } : {}),
      },
      intervalMs: options.connectorTimerIntervalMs ?? CONNECTOR_TIMER_INTERVAL_MS,
      logger,
      dummypay: dummypaySettings(config),
      publicBaseUrl: config.publicBaseUrl,
    }),
  );
  return apps;
}

function identityProviderOf(
  identity: LocalIdentityProvider,
): NonNullable<RunningPlatform['identityProvider']> {
  return { issuer: identity.issuer, clientId: identity.clientId, accounts: identity.accounts };
}

/**
 * The services trust the local identity provider; its accounts marked `platformAdmin` become the `default`
 * organization's admins, unless the caller names them (PLATFORM_ADMINS).
 */
function identityVariables(
  identity: LocalIdentityProvider,
  callerVariables: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const admins = identity.accounts.filter((a) => a.platformAdmin).map((a) => a.email);
  return {
    IDENTITY_PROVIDER_ISSUER: identity.issuer,
    IDENTITY_PROVIDER_CLIENT_ID: identity.clientId,
    PLATFORM_ADMINS: callerVariables.PLATFORM_ADMINS || admins.join(','),
  };
}
