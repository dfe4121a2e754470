import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors/index.js';
import {
  DEFAULT_WEBHOOK_HEADER_SETS,
  WEBHOOK_HEADER_SETS,
  type WebhookHeaderSet,
} from '../events/delivery-headers.js';
import { QUEUES, type QueueId, TABLES, type TableId } from '../resources/definitions.js';
import { platformAudience } from '../tokens/claims.js';
import { normaliseEmail } from '../validation/email.js';
import { BUCKET_NAME } from '../validation/names.js';
import {
  defaultMetricsNamespace,
  type LogFormat,
  type LogLevel,
  type Stage,
  type Variables,
} from './stage.js';

/**
 * The platform's configuration, read once: the only reader of `process.env` in lib/ and functions/. Every
 * variable is parsed and checked here at start-up into one typed value; a bad one stops start-up with one line
 * (a ConfigurationError) naming it. README's "Configuration" tables list exactly the variables read here
 * (lib/config/env-variables.test.ts).
 */

export type { Stage, Variables } from './stage.js';
export type LogLevelSetting = LogLevel | 'silent';

/** Every variable read here besides the tables' and queues' (lib/resources/definitions.ts). */
const VARIABLES = [
  'STAGE',
  'PUBLIC_BASE_URL',
  'TOKEN_AUDIENCE',
  'CORS_ALLOWED_ORIGINS',
  'LEDGER_SCAN_READS',
  'LEDGER_BUCKET_TABLES',
  'LEDGER_TX_BLOCK_IDS',
  'LEDGER_TX_TIME_SHARDS',
  'AWS_REGION',
  'DYNAMODB_ENDPOINT',
  'DYNAMODB_LOCAL_ACCESS_KEY_ID',
  'SQS_ENDPOINT',
  'S3_ENDPOINT',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'SIGNING_KEY_KMS_KEY_ID',
  'KEY_MIN_PUBLISH_SECONDS',
  'AUTH_CONFIG',
  'AUTH_CONFIG_INLINE',
  'WEBHOOK_SECRET_OVERLAP_SECONDS',
  'WEBHOOK_HEADER_NAMES',
  'WEBHOOK_DISABLE_AFTER_FAILING_SECONDS',
  'PORT',
  'DATA_DIR',
  'S3_PORT',
  'LEDGER_WORKERS',
  'METRICS_NAMESPACE',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'IDENTITY_PROVIDER_ISSUER',
  'IDENTITY_PROVIDER_CLIENT_ID',
  'PLATFORM_ADMINS',
  'ENVIRONMENT_ACCESS_ROLE_ARN',
  'PAYMENTS_DUMMYPAY_ROOT',
] as const;
type Variable = (typeof VARIABLES)[number];

export const CONFIG_VARIABLES: readonly string[] = [
  ...VARIABLES,
  ...TABLES.map((t) => t.variable),
  ...QUEUES.map((q) => q.variable),
];

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;
/** KEY_MIN_PUBLISH_SECONDS's default: a day, far above API Gateway's JWKS cache (up to 2 h). */
export const DEFAULT_KEY_MIN_PUBLISH_SECONDS = DAY_SECONDS;
/** WEBHOOK_SECRET_OVERLAP_SECONDS's default: a replaced secret keeps verifying for a day. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = DAY_SECONDS;
/**
 * WEBHOOK_DISABLE_AFTER_FAILING_SECONDS's default: five days of nothing but failures, long enough for a weekend's
 * outage and its fix, short enough that a dead endpoint stops collecting retries (Svix-class services: 5 days).
 */
export const DEFAULT_DISABLE_AFTER_FAILING_SECONDS = 5 * DAY_SECONDS;
/**
 * How many ledger workers a platform runs when asked for worker processes without a number: several, as a user
 * gets on AWS (Lambda runs a container per concurrent request). Concurrent writes of one ledger are the
 * protocol's to order (direct commits conditional on HEAD, group commit when busy), never one process's.
 */
export const DEFAULT_LEDGER_WORKERS = 4;
export const MAX_LEDGER_WORKERS = 64;

/** How an AWS SDK client reaches its service: the region, and for a local emulator its endpoint. */
export interface ServiceEndpoint {
  region: string;
  /** DynamoDB Local or the SQS emulator; absent in AWS, where the SDK resolves the regional endpoint. */
  endpoint?: string;
}

/**
 * DynamoDB's endpoint, and the isolation guard's role (ENVIRONMENT_ACCESS_ROLE_ARN, set by the stack for the data
 * functions): with it, calls made in a request's environment use that role's credentials for the environment
 * (lib/dynamo/sts-credentials.ts). Unset (`npm start`, tests, the other functions): no guard.
 */
export interface DynamoSettings extends ServiceEndpoint {
  environmentAccessRoleArn?: string;
  /**
   * DYNAMODB_LOCAL_ACCESS_KEY_ID, with DYNAMODB_ENDPOINT only: the placeholder key id sent to DynamoDB Local
   * (default `local`). An emulator started without `-sharedDb` keeps one database per key id, so platforms that
   * share one emulator (the tests') each see only their own tables.
   */
  localAccessKeyId?: string;
  /**
   * Never read from the process's variables: the embedded local platform sets it, so that every DynamoDB client its
   * process builds shares one HTTP handler that tells it of the process's ledger writes (infra/local/ledger-events).
   */
  requestHandler?: DynamoDBClientConfig['requestHandler'];
  /**
   * Never read from the process's variables either: the embedded local platform sets it, and its clients then send
   * DynamoDB Local the key id without signing each request (lib/dynamo/local-authorization.ts). A Lambda-faithful
   * worker signs, as on AWS.
   */
  unsigned?: boolean;
}

/**
 * The auth configuration's text (static clients): from the file AUTH_CONFIG names (read here, at start-up) or
 * AUTH_CONFIG_INLINE. Its `$NAME` secrets resolve against `variables`, the variables it was read from.
 */
export interface StaticClientsSource {
  /** The file's path, or `AUTH_CONFIG_INLINE`: what its errors name. */
  name: string;
  text: string;
  variables: Variables;
}

/** Facts every service reads once at start-up. */
export interface PlatformConfig {
  stage: Stage;
  /** Public base URL, no trailing slash: `http://127.0.0.1:8080` locally, the API's URL in AWS. */
  publicBaseUrl: string;
  /** `{base_url}/api/auth`: the `iss` of every token and the discovery issuer. */
  issuer: string;
  /** The platform's resource identifier: every token's default `aud`. */
  audience: string;
  tables: Record<TableId, string>;
  /** DELIVERIES_QUEUE_URL, LEDGER_INGRESS_QUEUE_URL: set by the stack for the functions that use them. */
  queues: Record<QueueId, string | undefined>;
  /** Browser origins allowed to call the API (CORS_ALLOWED_ORIGINS, comma-separated); none: CORS is off. */
  corsOrigins: string[];
  /**
   * Items one page of a ledger list may read when an in-memory filter leaves items out (a query no index fully
   * serves): LEDGER_SCAN_READS, 100–20000, default 1000 (docs/data-model.md, "Query plans").
   */
  ledgerScanReads: number;
  /** The AWS region the functions run in (`AWS_REGION`, set by Lambda); `local` for the local platform. */
  region: string;
  /**
   * The KMS key sealing private signing keys (SIGNING_KEY_KMS_KEY_ID: key id, key ARN or alias). Set by the
   * stack; absent (`npm start`, tests), private keys are kept in clear in the auth table.
   */
  signingKeyKmsKeyId?: string;
  /** LOG_LEVEL: `debug`, `info` (default), `warn`, `error` or `silent`. */
  logLevel: LogLevelSetting;
  /** LOG_FORMAT: `json` (default: one object per line, for CloudWatch) or `pretty` (one readable line, for people). */
  logFormat: LogFormat;
  /** The region every AWS SDK client (DynamoDB, SQS, KMS) is built for: AWS_REGION, `us-east-1` when unset. */
  awsRegion: string;
  /** DynamoDB: DYNAMODB_ENDPOINT for DynamoDB Local; ENVIRONMENT_ACCESS_ROLE_ARN for the isolation guard. */
  dynamo: DynamoSettings;
  /** SQS: SQS_ENDPOINT for the local emulator. */
  sqs: ServiceEndpoint;
  ledger: {
    /** LEDGER_BUCKET_TABLES: buckets with a table of their own (every other bucket is in `tables.ledger`). */
    bucketTables: ReadonlyMap<string, string>;
    /**
     * How ledgers created from now on key their transactions (docs/data-model.md, "Transactions"):
     * LEDGER_TX_BLOCK_IDS ids per partition key (2–65536, default 256) and LEDGER_TX_TIME_SHARDS partitions of
     * the by-time index (1–64, default 8). Each ledger keeps the layout it was created with.
     */
    transactionKeys: { blockIds: number; timeShards: number };
  };
  webhooks: WebhookSettings;
  platform: PlatformServiceSettings;
  payments: PaymentsSettings;
  exports: ExportSettings;
  auth: {
    /** AUTH_CONFIG or AUTH_CONFIG_INLINE; none: no static clients. */
    staticClients: StaticClientsSource | undefined;
    /** KEY_MIN_PUBLISH_SECONDS: how long a new signing key is published before it signs. */
    keyMinPublishSeconds: number;
  };
}

/** The platform service's settings: organizations, environments and persons (docs/decisions/tenancy.md, "Environments and token types"). */
export interface PlatformServiceSettings {
  /** The `aud` of platform tokens: `<PUBLIC_BASE_URL>/api/platform`. */
  audience: string;
  /**
   * The OpenID Connect provider persons log in with: IDENTITY_PROVIDER_ISSUER and IDENTITY_PROVIDER_CLIENT_ID
   * (the `aud` its ID tokens carry), both or neither. None: no person logs in; clients work as before.
   */
  identityProvider?: { issuer: string; clientId: string };
  /** PLATFORM_ADMINS: emails made admins of the `default` organization when it is first created. */
  admins: string[];
}

/** A count of seconds (up to 9 digits), `fallback` when unset; anything else fails start-up. */
function wholeSeconds(variables: Variables, name: Variable, fallback: number): number {
  const raw = read(variables, name);
  if (raw !== undefined && !/^\d{1,9}$/.test(raw))
    throw new ConfigurationError(
      `${name} must be a whole number of seconds (got "${raw.slice(0, 32)}")`,
    );
  return raw === undefined ? fallback : Number(raw);
}

/** Payments connectors (docs/decisions/payments.md, "dummypay, confined"). */
export interface PaymentsSettings {
  /**
   * PAYMENTS_DUMMYPAY_ROOT: the directory the `dummypay` connector may read, as an absolute path. Read in the
   * local stage only (a function in AWS must never read its own files for a caller); unset, dummypay is refused.
   */
  dummypayRoot?: string;
}

/** The exporters' drivers (docs/decisions/exporters.md). */
export interface ExportSettings {
  /**
   * S3_ENDPOINT, the local stage only: the S3-compatible store the `s3` driver writes to when an exporter names no
   * `endpoint` (`npm start` sets its emulator's), with the local emulator's well-known key pair. Absent: S3 itself,
   * with the function's role.
   */
  localS3?: LocalS3;
}

export interface LocalS3 {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** The local S3 emulator's (s3rver's) one account: it refuses any other key id. Not a secret. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface WebhookSettings {
  /** WEBHOOK_SECRET_OVERLAP_SECONDS: how long a replaced config secret keeps verifying. */
  secretOverlapSeconds: number;
  /** WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: a config whose endpoint fails this long is switched off (0: never). */
  disableAfterFailingSeconds: number;
  /** Loopback receivers (127.0.0.1) are allowed only in the local stage; private and metadata addresses never. */
  allowLoopback: boolean;
  /**
   * WEBHOOK_HEADER_NAMES: comma-separated sets of header names a delivery's id, timestamp and signature are sent
   * under (`service`, `standard`, `formance`; default `service,standard`).
   */
  headerSets: readonly WebhookHeaderSet[];
}

export function platformConfigFromVariables(variables: Variables = process.env): PlatformConfig {
  const stage = stageFromVariables(variables);
  const publicBaseUrl = normaliseBaseUrl(required(variables, 'PUBLIC_BASE_URL'), stage);
  const tables = Object.fromEntries(
    TABLES.map((t) => [t.id, required(variables, t.variable)]),
  ) as Record<TableId, string>;
  const queues = Object.fromEntries(
    QUEUES.map((q) => [q.id, variables[q.variable] || undefined]),
  ) as Record<QueueId, string | undefined>;
  const signingKeyKmsKeyId = read(variables, 'SIGNING_KEY_KMS_KEY_ID');
  return {
    stage,
    publicBaseUrl,
    issuer: `${publicBaseUrl}/api/auth`,
    audience: read(variables, 'TOKEN_AUDIENCE') ?? publicBaseUrl,
    tables,
    queues,
    corsOrigins: corsOrigins(read(variables, 'CORS_ALLOWED_ORIGINS')),
    region: stage === 'local' ? 'local' : (read(variables, 'AWS_REGION') ?? 'unknown'),
    ledgerScanReads: integerSetting(variables, 'LEDGER_SCAN_READS', 1000, 100, 20_000),
    ...(signingKeyKmsKeyId ? { signingKeyKmsKeyId } : {}),
    logLevel: logLevelFromVariables(variables),
    logFormat: logFormatFromVariables(variables),
    ...awsClients(variables),
    ledger: {
      bucketTables: bucketTables(read(variables, 'LEDGER_BUCKET_TABLES')),
      transactionKeys: {
        blockIds: integerSetting(variables, 'LEDGER_TX_BLOCK_IDS', 256, 2, 65_536),
        timeShards: integerSetting(variables, 'LEDGER_TX_TIME_SHARDS', 8, 1, 64),
      },
    },
    webhooks: webhookSettings(variables, stage),
    platform: platformSettings(variables, publicBaseUrl, stage),
    payments: paymentsSettings(variables, stage),
    exports: exportSettings(variables, stage),
    auth: {
      staticClients: staticClientsSource(variables),
      keyMinPublishSeconds: integerSetting(
        variables,
        'KEY_MIN_PUBLISH_SECONDS',
        DEFAULT_KEY_MIN_PUBLISH_SECONDS,
        0,
        30 * DAY_SECONDS,
      ),
    },
  };
}

/** The ledger writer (group commit): the services' configuration, and its queue, which it cannot do without. */
export type LedgerWriterConfig = PlatformConfig & {
  queues: PlatformConfig['queues'] & { 'ledger-ingress': string };
};

export function ledgerWriterConfigFromVariables(
  variables: Variables = process.env,
): LedgerWriterConfig {
  const config = platformConfigFromVariables(variables);
  const ingress = config.queues['ledger-ingress'];
  if (!ingress) throw missing('LEDGER_INGRESS_QUEUE_URL');
  return { ...config, queues: { ...config.queues, 'ledger-ingress': ingress } };
}

/**
 * The webhook workers (dispatch, deliver): the webhooks table and the deliveries queue (required), the clients'
 * endpoints, the log level. They serve no HTTP, so they need no base URL and see no other table.
 */
export interface WebhookWorkerConfig {
  stage: Stage;
  logLevel: LogLevelSetting;
  logFormat: LogFormat;
  awsRegion: string;
  dynamo: DynamoSettings;
  sqs: ServiceEndpoint;
  /** The events table: the deliverer writes its operator events there (endpoint switched off, recovered). */
  tables: { webhooks: string; events: string };
  queues: { deliveries: string };
  webhooks: WebhookSettings;
}

export function webhookWorkerConfigFromVariables(
  variables: Variables = process.env,
): WebhookWorkerConfig {
  const stage = stageFromVariables(variables);
  return {
    stage,
    logLevel: logLevelFromVariables(variables),
    logFormat: logFormatFromVariables(variables),
    ...awsClients(variables),
    tables: {
      webhooks: required(variables, 'WEBHOOKS_TABLE'),
      events: required(variables, 'EVENTS_TABLE'),
    },
    queues: { deliveries: required(variables, 'DELIVERIES_QUEUE_URL') },
    webhooks: webhookSettings(variables, stage),
  };
}

/** What `npm start` (infra/local/main.ts) reads for itself; the rest it hands to the services. */
export interface LocalCommandSettings {
  /** PORT: of the HTTP server, bound on 127.0.0.1 (default 8080). */
  port: number;
  /** DATA_DIR: where DynamoDB Local keeps its tables (default `.data`), as given. */
  dataDir: string;
  /** S3_PORT: of the local S3 emulator, bound on 127.0.0.1 (default 4568, the emulator's own). */
  s3Port: number;
  /**
   * LEDGER_WORKERS: processes running the ledger function, 1 to MAX_LEDGER_WORKERS (the Lambda-faithful mode);
   * unset: the ledger runs embedded in the platform's process, with its own group commit.
   */
  ledgerWorkers: number | undefined;
  /** Where the static clients come from (AUTH_CONFIG's path, or AUTH_CONFIG_INLINE); none: the default file. */
  staticClients: string | undefined;
}

export function localCommandSettingsFromVariables(
  variables: Variables = process.env,
): LocalCommandSettings {
  const authConfig = read(variables, 'AUTH_CONFIG');
  return {
    port: portSetting(variables, 'PORT', 8080),
    dataDir: read(variables, 'DATA_DIR') ?? '.data',
    s3Port: portSetting(variables, 'S3_PORT', DEFAULT_S3_PORT),
    ledgerWorkers: ledgerWorkersFromVariables(variables),
    staticClients:
      authConfig || (read(variables, 'AUTH_CONFIG_INLINE') ? 'AUTH_CONFIG_INLINE' : undefined),
  };
}

/** S3_PORT's default: s3rver's own, which users of the emulator know. */
export const DEFAULT_S3_PORT = 4568;

function portSetting(variables: Variables, name: 'PORT' | 'S3_PORT', fallback: number): number {
  const raw = read(variables, name) ?? String(fallback);
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535)
    throw new ConfigurationError(`${name} must be a port number (got "${raw.slice(0, 32)}")`);
  return Number(raw);
}

/**
 * The process's variables, all of them, for what passes them on as they are: `npm start` hands it to the platform, whose
 * static clients' `$NAME` secrets may name any variable.
 */
export const processVariables = (): Variables => process.env;

/** LEDGER_WORKERS, validated: an integer from 1 to 64, or undefined when unset (the embedded ledger). */
export function ledgerWorkersFromVariables(variables: Variables = process.env): number | undefined {
  const raw = read(variables, 'LEDGER_WORKERS');
  if (raw === undefined) return undefined;
  const workers = /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(workers >= 1 && workers <= MAX_LEDGER_WORKERS)) {
    throw new ConfigurationError(
      `LEDGER_WORKERS must be an integer from 1 to ${MAX_LEDGER_WORKERS} (got "${raw.slice(0, 32)}")`,
    );
  }
  return workers;
}

const LOG_LEVELS: readonly LogLevelSetting[] = ['debug', 'info', 'warn', 'error', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export function logFormatFromVariables(variables: Variables = process.env): LogFormat {
  const raw = read(variables, 'LOG_FORMAT') ?? 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(raw))
    throw new ConfigurationError(
      `LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got "${raw.slice(0, 32)}")`,
    );
  return raw as LogFormat;
}

export function logLevelFromVariables(variables: Variables = process.env): LogLevelSetting {
  const raw = read(variables, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new ConfigurationError(
      `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw.slice(0, 32)}")`,
    );
  return raw as LogLevelSetting;
}

/**
 * The auth configuration's source, its file read now: a path that cannot be read stops start-up. AUTH_CONFIG
 * wins over AUTH_CONFIG_INLINE.
 */
export function staticClientsSource(variables: Variables): StaticClientsSource | undefined {
  const path = read(variables, 'AUTH_CONFIG');
  if (path) {
    try {
      return { name: path, text: readFileSync(path, 'utf8'), variables };
    } catch (err) {
      throw new ConfigurationError(
        `auth config ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
  }
  const inline = read(variables, 'AUTH_CONFIG_INLINE');
  return inline ? { name: 'AUTH_CONFIG_INLINE', text: inline, variables } : undefined;
}

/** Exact origins (`https://console.example.com`): scheme, host, optional port; no path, no wildcard. */
export function corsOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
      throw new ConfigurationError(
        `CORS_ALLOWED_ORIGINS: "${origin.slice(0, 100)}" is not an origin such as https://console.example.com`,
      );
    }
  }
  return origins;
}

export function normaliseBaseUrl(raw: string, stage: Stage): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`PUBLIC_BASE_URL is not an absolute URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && stage !== 'prod')) {
    throw new ConfigurationError(
      `PUBLIC_BASE_URL must use https${stage === 'prod' ? ' in prod' : ''} (got "${raw}")`,
    );
  }
  if (url.search || url.hash)
    throw new ConfigurationError('PUBLIC_BASE_URL must not have a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/**
 * LEDGER_BUCKET_TABLES: a JSON object of bucket name to table name (`{"heavy":"platform-prod-ledger-heavy"}`).
 */
export function bucketTables(raw: string | undefined): ReadonlyMap<string, string> {
  if (!raw) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigurationError(
      'LEDGER_BUCKET_TABLES must be a JSON object of bucket name to table name',
    );
  }
  const mapped = new Map<string, string>();
  for (const [bucket, table] of Object.entries(parsed)) {
    if (!BUCKET_NAME.test(bucket))
      throw new ConfigurationError(`LEDGER_BUCKET_TABLES: "${bucket}" is not a valid bucket name`);
    if (typeof table !== 'string' || !/^[A-Za-z0-9_.-]{3,255}$/.test(table)) {
      throw new ConfigurationError(
        `LEDGER_BUCKET_TABLES: bucket "${bucket}" must map to a table name`,
      );
    }
    mapped.set(bucket, table);
  }
  return mapped;
}

function stageFromVariables(variables: Variables): Stage {
  const stage = read(variables, 'STAGE') ?? 'dev';
  if (!['local', 'dev', 'prod'].includes(stage))
    throw new ConfigurationError(`STAGE must be local, dev or prod (got "${stage.slice(0, 32)}")`);
  return stage as Stage;
}

/** Endpoints set (the local emulators): the clients use placeholder credentials, never real ones. */
function awsClients(variables: Variables): Pick<PlatformConfig, 'awsRegion' | 'dynamo' | 'sqs'> {
  const awsRegion = read(variables, 'AWS_REGION') ?? 'us-east-1';
  const endpoint = (name: 'DYNAMODB_ENDPOINT' | 'SQS_ENDPOINT'): ServiceEndpoint => {
    const url = read(variables, name);
    return url ? { region: awsRegion, endpoint: url } : { region: awsRegion };
  };
  const roleArn = read(variables, 'ENVIRONMENT_ACCESS_ROLE_ARN');
  if (roleArn !== undefined) {
    if (!IAM_ROLE_ARN.test(roleArn))
      throw new ConfigurationError(
        `ENVIRONMENT_ACCESS_ROLE_ARN must be an IAM role ARN (got "${roleArn.slice(0, 100)}")`,
      );
    // The guard needs AWS's STS and IAM: DynamoDB Local accepts any credentials, so it would guard nothing.
    if (read(variables, 'DYNAMODB_ENDPOINT') !== undefined)
      throw new ConfigurationError(
        'ENVIRONMENT_ACCESS_ROLE_ARN cannot be used with DYNAMODB_ENDPOINT (the guard is IAM)',
      );
  }
  const localKey = read(variables, 'DYNAMODB_LOCAL_ACCESS_KEY_ID');
  if (localKey !== undefined && read(variables, 'DYNAMODB_ENDPOINT') === undefined)
    throw new ConfigurationError(
      'DYNAMODB_LOCAL_ACCESS_KEY_ID is for DynamoDB Local: set it with DYNAMODB_ENDPOINT',
    );
  // DynamoDB Local refuses any other key id (UnrecognizedClientException) on every call.
  if (localKey !== undefined && !/^[A-Za-z0-9]{1,128}$/.test(localKey))
    throw new ConfigurationError(
      `DYNAMODB_LOCAL_ACCESS_KEY_ID must be letters and digits (got "${localKey.slice(0, 32)}")`,
    );
  const dynamo: DynamoSettings = {
    ...endpoint('DYNAMODB_ENDPOINT'),
    ...(localKey === undefined ? {} : { localAccessKeyId: localKey }),
  };
  return {
    awsRegion,
    dynamo: roleArn === undefined ? dynamo : { ...dynamo, environmentAccessRoleArn: roleArn },
    sqs: endpoint('SQS_ENDPOINT'),
  };
}

const IAM_ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

function platformSettings(
  variables: Variables,
  publicBaseUrl: string,
  stage: Stage,
): PlatformServiceSettings {
  const issuer = read(variables, 'IDENTITY_PROVIDER_ISSUER');
  const clientId = read(variables, 'IDENTITY_PROVIDER_CLIENT_ID');
  if ((issuer === undefined) !== (clientId === undefined))
    throw new ConfigurationError(
      'IDENTITY_PROVIDER_ISSUER and IDENTITY_PROVIDER_CLIENT_ID are set together or not at all',
    );
  if (issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      url = undefined;
    }
    if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && stage !== 'prod')))
      throw new ConfigurationError(
        `IDENTITY_PROVIDER_ISSUER must be an https URL (got "${issuer.slice(0, 100)}")`,
      );
  }
  const admins = (read(variables, 'PLATFORM_ADMINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((raw) => {
      const email = normaliseEmail(raw);
      if (!email)
        throw new ConfigurationError(`PLATFORM_ADMINS: "${raw.slice(0, 100)}" is not an email`);
      return email;
    });
  return {
    audience: platformAudience(publicBaseUrl),
    ...(issuer !== undefined && clientId !== undefined
      ? { identityProvider: { issuer, clientId } }
      : {}),
    admins,
  };
}

function paymentsSettings(variables: Variables, stage: Stage): PaymentsSettings {
  const root = read(variables, 'PAYMENTS_DUMMYPAY_ROOT');
  if (root === undefined) return {};
  if (stage !== 'local')
    throw new ConfigurationError(
      `PAYMENTS_DUMMYPAY_ROOT is for the local stage only (STAGE is ${stage}): dummypay reads this machine's files`,
    );
  if (!isAbsolute(root) || root.includes('\0'))
    throw new ConfigurationError(
      `PAYMENTS_DUMMYPAY_ROOT must be an absolute path (got "${root.slice(0, 64)}")`,
    );
  return { dummypayRoot: resolve(root) };
}

function exportSettings(variables: Variables, stage: Stage): ExportSettings {
  const raw = read(variables, 'S3_ENDPOINT');
  if (raw === undefined) return {};
  if (stage !== 'local')
    throw new ConfigurationError(
      `S3_ENDPOINT is for the local stage only (STAGE is ${stage}): in AWS the s3 driver writes to S3 itself`,
    );
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.pathname !== '/')
    throw new ConfigurationError(
      `S3_ENDPOINT must be an http(s) URL with no path, such as http://127.0.0.1:4568 (got "${raw.slice(0, 64)}")`,
    );
  // A copy: the AWS SDK marks the credentials object it is given (`$source`), which would change the constant.
  return { localS3: { endpoint: url.origin, credentials: { ...LOCAL_S3_CREDENTIALS } } };
}

function webhookSettings(variables: Variables, stage: Stage): WebhookSettings {
  return {
    secretOverlapSeconds: wholeSeconds(
      variables,
      'WEBHOOK_SECRET_OVERLAP_SECONDS',
      DEFAULT_SECRET_OVERLAP_SECONDS,
    ),
    disableAfterFailingSeconds: wholeSeconds(
      variables,
      'WEBHOOK_DISABLE_AFTER_FAILING_SECONDS',
      DEFAULT_DISABLE_AFTER_FAILING_SECONDS,
    ),
    allowLoopback: stage === 'local',
    headerSets: webhookHeaderSets(variables),
  };
}

function webhookHeaderSets(variables: Variables): readonly WebhookHeaderSet[] {
  const raw = read(variables, 'WEBHOOK_HEADER_NAMES');
  if (raw === undefined) return DEFAULT_WEBHOOK_HEADER_SETS;
  const names = raw.split(',').map((s) => s.trim());
  const known = Object.keys(WEBHOOK_HEADER_SETS);
  const bad = names.find((n) => !known.includes(n));
  if (bad !== undefined || names.length === 0)
    throw new ConfigurationError(
      `WEBHOOK_HEADER_NAMES must be a comma-separated list of ${known.join(', ')} (got "${raw.slice(0, 64)}")`,
    );
  return [...new Set(names)] as WebhookHeaderSet[];
}

function integerSetting(
  variables: Variables,
  name: Variable,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = read(variables, name);
  if (raw === undefined) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max))
    throw new ConfigurationError(
      `${name} must be an integer from ${min} to ${max} (got "${raw.slice(0, 32)}")`,
    );
  return value;
}

// ---- Observability (metrics and logs) --------------------------------------------------------------------------

/** How a Lambda function reports its figures (lib/observability/lambda-handler.ts). */
export interface ObservabilityConfig {
  /** CloudWatch namespace of the EMF metrics: METRICS_NAMESPACE, default `Platform/<STAGE>`. */
  metricsNamespace: string;
  /** AWS_LAMBDA_INITIALIZATION_TYPE (set by Lambda): a provisioned container's first invocation is not cold. */
  provisioned: boolean;
}

/** CloudWatch's namespace alphabet, at most 255 characters. */
const METRICS_NAMESPACE = /^[A-Za-z0-9.\-_/#:]{1,255}$/;

export function observabilityConfigFromVariables(
  variables: Variables = process.env,
): ObservabilityConfig {
  const metricsNamespace =
    read(variables, 'METRICS_NAMESPACE') ?? defaultMetricsNamespace(stageFromVariables(variables));
  if (!METRICS_NAMESPACE.test(metricsNamespace))
    throw new ConfigurationError(
      `METRICS_NAMESPACE must be 1-255 of A-Z a-z 0-9 . - _ / # : (got "${metricsNamespace.slice(0, 64)}")`,
    );
  return {
    metricsNamespace,
    provisioned: read(variables, 'AWS_LAMBDA_INITIALIZATION_TYPE') === 'provisioned-concurrency',
  };
}

/** A variable's value; empty counts as unset. Only the names listed in VARIABLES are read this way. */
function read(variables: Variables, name: Variable): string | undefined {
  const value = variables[name];
  return value === undefined || value === '' ? undefined : value;
}

function required(variables: Variables, name: string): string {
  const value = variables[name];
  if (value === undefined || value === '') throw missing(name);
  return value;
}

const missing = (name: string) =>
  new ConfigurationError(`environment variable ${name} is required`);
