import { readFileSync } from 'node:fs';
import { corsOrigins } from '../../lib/config/env.js';
import { BUCKET_NAME } from '../../lib/ledger/domain/names.js';
import { normaliseEmail } from '../../lib/platform/domain/directory.js';

export type DeployStage = 'dev' | 'prod';

/**
 * Everything that may differ between stages, read once from CDK context (`-c name=value` or `cdk.json`).
 * Stages differ only through this object: the stack code has no `if (prod)` beyond what it holds.
 */
export interface StageConfig {
  stage: DeployStage;
  /** Custom-domain base URL (https, no trailing slash). Absent: the HTTP API's own endpoint URL. */
  publicBaseUrl?: string;
  /** Ledger buckets that get a table of their own, created by the stack with the ledger table's definition. */
  ledgerBuckets: string[];
  /** Source maps in the bundles (and `--enable-source-maps` at run time). */
  sourcemap: boolean;
  /** The auth configuration text (static clients), passed to the auth function as `AUTH_CONFIG_INLINE`. */
  authConfig?: string;
  /**
   * Environment names referenced as `$NAME` by `authConfig` → Secrets Manager secret name (optionally
   * `name:jsonField`), resolved by CloudFormation at deploy time.
   */
  staticClientSecrets: Record<string, string>;
  /** E-mail address subscribed to the alarm topic, if any. */
  alarmEmail?: string;
  /** Log retention in days for function, access and alarm-related log groups. */
  logRetentionDays: number;
  /** API Gateway default stage throttling. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Browser origins allowed to call the API (CORS_ALLOWED_ORIGINS of the service functions); absent: CORS off. */
  corsOrigins?: string[];
  /** X-Ray active tracing of every function (`-c tracing=true`): Lambda's own segments, no tracer in the bundles. */
  tracing: boolean;
  /** The OpenID Connect provider persons log in with (`-c identityProvider=...`); see IdentityProviderSetting. */
  identityProvider: IdentityProviderSetting;
  /** `-c platformAdmins=a@x,b@y`: PLATFORM_ADMINS, the admins of the `default` organization (lower-cased). */
  platformAdmins: string[];
  /** Where the pipelines function may write exports (exporters' `s3` and `kinesis` drivers); see ExportTargets. */
  exportTargets: ExportTargets;
}

/**
 * `-c exportBuckets=bucket/prefix/,other`: S3 locations the `s3` driver may put objects under (a bucket, or a
 * bucket and a key prefix); `-c exportStreams=name,arn:aws:kinesis:…`: Kinesis streams the `kinesis` driver may
 * put records to (a name is a stream of the stack's account and region). None: those drivers cannot deliver
 * (their pipelines show AccessDenied in `error`).
 */
export interface ExportTargets {
  buckets: Array<{ bucket: string; prefix: string }>;
  streams: string[];
}

const EXPORT_BUCKET = /^([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([\x21-\x7e]*))?$/;
const EXPORT_STREAM =
  /^([a-zA-Z0-9_.-]{1,128}|arn:aws[a-z-]*:kinesis:[a-z]{2}(-[a-z]+)+-\d:\d{12}:stream\/[a-zA-Z0-9_.-]{1,128})$/;

function exportTargets(context: ContextReader): ExportTargets {
  const buckets = stringList(context, 'exportBuckets').map((raw) => {
    const match = EXPORT_BUCKET.exec(raw);
    if (!match || raw.includes('*'))
      throw new Error(`context "exportBuckets": "${raw}" is not a bucket or bucket/prefix`);
    return { bucket: match[1]!, prefix: match[2] ?? '' };
  });
  const streams = stringList(context, 'exportStreams');
  for (const stream of streams)
    if (!EXPORT_STREAM.test(stream))
      throw new Error(`context "exportStreams": "${stream}" is not a stream name or ARN`);
  return { buckets, streams };
}

/**
 * `-c identityProvider=`: `cognito` (a user pool made by the stack; prod's default), `none` (no person logs in;
 * dev's default), or `<issuer>|<clientId>` for an external OpenID Connect provider. With Cognito,
 * `-c identityCallbackUrls=` lists the app client's redirect URIs (default: the CLI's loopback ones).
 */
export type IdentityProviderSetting =
  | { kind: 'none' }
  | { kind: 'cognito'; callbackUrls: string[] }
  | { kind: 'external'; issuer: string; clientId: string };

/**
 * Loopback redirect URIs of a native app (RFC 8252 §7.3), for the CLI's log-in: Cognito matches redirect URIs
 * exactly, ports included, so the CLI listens on this port.
 */
export const DEFAULT_IDENTITY_CALLBACK_URLS = ['http://localhost:8765/callback'];

export interface ContextReader {
  tryGetContext(key: string): unknown;
}

const STAGE_DEFAULTS: Record<DeployStage, Pick<StageConfig, 'logRetentionDays' | 'throttle'>> = {
  dev: { logRetentionDays: 30, throttle: { rateLimit: 50, burstLimit: 100 } },
  prod: { logRetentionDays: 365, throttle: { rateLimit: 500, burstLimit: 1000 } },
};

/**
 * Reads and validates the stage configuration. Context values given on the command line are strings, so JSON
 * values (lists, maps) are accepted either parsed (from cdk.json) or as JSON text (from `-c`). A bad value
 * stops synth with one line naming the key.
 */
export function stageConfigFromContext(context: ContextReader): StageConfig {
  const stage = (context.tryGetContext('stage') ?? 'dev') as string;
  if (stage !== 'dev' && stage !== 'prod')
    throw new Error(`context "stage" must be dev or prod (got "${stage}")`);
  const defaults = STAGE_DEFAULTS[stage];

  const publicBaseUrl = optionalString(context, 'publicBaseUrl');
  if (publicBaseUrl !== undefined) checkBaseUrl(publicBaseUrl);

  const ledgerBuckets = stringList(context, 'ledgerBuckets');
  for (const bucket of ledgerBuckets) {
    // Table names allow [A-Za-z0-9_.-]; bucket names are a subset, so `<prefix>ledger-<bucket>` is valid.
    if (!BUCKET_NAME.test(bucket))
      throw new Error(`context "ledgerBuckets": "${bucket}" is not a valid bucket name`);
  }
  if (new Set(ledgerBuckets).size !== ledgerBuckets.length)
    throw new Error('context "ledgerBuckets" lists a bucket twice');

  const authConfigFile = optionalString(context, 'authConfigFile');
  const authConfig =
    authConfigFile !== undefined
      ? readFileSync(authConfigFile, 'utf8')
      : optionalString(context, 'authConfig');

  const staticClientSecrets = stringMap(context, 'staticClientSecrets');
  for (const name of Object.keys(staticClientSecrets)) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name))
      throw new Error(
        `context "staticClientSecrets": "${name}" is not an environment variable name`,
      );
  }

  const retention = optionalString(context, 'logRetentionDays');
  // The functions' own check (lib/config/env.ts), run at synth: a bad origin stops synth, not a cold start.
  const cors = stringList(context, 'corsOrigins');
  try {
    corsOrigins(cors.join(','));
  } catch (err) {
    throw new Error(
      `context "corsOrigins": ${(err as Error).message.replace(/^CORS_ALLOWED_ORIGINS: /, '')}`,
    );
  }
  return {
    stage,
    ...(publicBaseUrl !== undefined ? { publicBaseUrl } : {}),
    ledgerBuckets,
    sourcemap: String(context.tryGetContext('sourcemap') ?? 'false') === 'true',
    ...(authConfig !== undefined ? { authConfig } : {}),
    staticClientSecrets,
    ...(optionalString(context, 'alarmEmail') !== undefined
      ? { alarmEmail: optionalString(context, 'alarmEmail')! }
      : {}),
    logRetentionDays: retention !== undefined ? Number(retention) : defaults.logRetentionDays,
    throttle: defaults.throttle,
    ...(cors.length > 0 ? { corsOrigins: cors } : {}),
    tracing: booleanValue(context, 'tracing'),
    identityProvider: identityProviderSetting(context, stage),
    platformAdmins: platformAdmins(context),
    exportTargets: exportTargets(context),
  };
}

function identityProviderSetting(
  context: ContextReader,
  stage: DeployStage,
): IdentityProviderSetting {
  const raw =
    optionalString(context, 'identityProvider') ?? (stage === 'prod' ? 'cognito' : 'none');
  const callbacks = stringList(context, 'identityCallbackUrls');
  if (raw !== 'cognito' && callbacks.length > 0)
    throw new Error('context "identityCallbackUrls" is for identityProvider=cognito only');
  if (raw === 'none') return { kind: 'none' };
  if (raw === 'cognito') {
    for (const url of callbacks) checkCallbackUrl(url);
    return {
      kind: 'cognito',
      callbackUrls: callbacks.length > 0 ? callbacks : DEFAULT_IDENTITY_CALLBACK_URLS,
    };
  }
  const [issuer, clientId, ...rest] = raw.split('|');
  let url: URL | undefined;
  try {
    url = new URL(issuer ?? '');
  } catch {
    url = undefined;
  }
  // The functions refuse a non-https issuer in prod (lib/config/env.ts); a deployed stack never has a reason for one.
  if (
    url?.protocol !== 'https:' ||
    !clientId ||
    rest.length > 0 ||
    !/^[\x21-\x7e]{1,256}$/.test(clientId)
  )
    throw new Error(
      `context "identityProvider" must be cognito, none or <https issuer>|<client id> (got "${raw.slice(0, 100)}")`,
    );
  return { kind: 'external', issuer: issuer!.replace(/\/+$/, ''), clientId };
}

function checkCallbackUrl(raw: string): void {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // Cognito takes https redirect URIs, and http only for a loopback host (a native app's, RFC 8252).
  const loopback = url?.hostname === 'localhost' || url?.hostname === '127.0.0.1';
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.hash)
    throw new Error(
      `context "identityCallbackUrls": "${raw.slice(0, 100)}" must be an https URL, or http on localhost`,
    );
}

function platformAdmins(context: ContextReader): string[] {
  return stringList(context, 'platformAdmins').map((raw) => {
    // The functions' own check (PLATFORM_ADMINS, lib/config/env.ts), at synth.
    const email = normaliseEmail(raw);
    if (!email) throw new Error(`context "platformAdmins": "${raw.slice(0, 100)}" is not an email`);
    return email;
  });
}

function booleanValue(context: ContextReader, key: string): boolean {
  const value = String(context.tryGetContext(key) ?? 'false');
  if (value !== 'true' && value !== 'false')
    throw new Error(`context "${key}" must be true or false (got "${value}")`);
  return value === 'true';
}

function checkBaseUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`context "publicBaseUrl" is not an absolute URL: "${raw}"`);
  }
  // The functions refuse anything else at start-up (lib/config/env.ts); failing at synth is kinder.
  if (url.protocol !== 'https:' || url.search || url.hash || raw.endsWith('/')) {
    throw new Error(
      `context "publicBaseUrl" must be an https URL without query, fragment or trailing slash (got "${raw}")`,
    );
  }
}

function optionalString(context: ContextReader, key: string): string | undefined {
  const value = context.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new Error(`context "${key}" must be a string`);
  return String(value);
}

function jsonValue(context: ContextReader, key: string): unknown {
  const value = context.tryGetContext(key);
  if (typeof value !== 'string') return value;
  if (value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    // A bare comma-separated list is friendlier on the command line: -c ledgerBuckets=heavy,reports
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
}

function stringList(context: ContextReader, key: string): string[] {
  const value = jsonValue(context, key);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`context "${key}" must be a list of strings`);
  return value;
}

function stringMap(context: ContextReader, key: string): Record<string, string> {
  const value = jsonValue(context, key);
  if (value === undefined || value === null) return {};
  if (
    typeof value !== 'object' ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === 'string')
  ) {
    throw new Error(`context "${key}" must be a JSON object of strings`);
  }
  return value as Record<string, string>;
}
