import { ConfigurationError } from '../errors/index.js';
import { defaultMetricsNamespace } from '../observability/catalog.js';
import { QUEUES, TABLES, type TableId } from '../resources/definitions.js';

export type Stage = 'local' | 'dev' | 'prod';

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
  queues: Record<string, string | undefined>;
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
}

export function platformConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const stage = (env.STAGE ?? 'dev') as Stage;
  if (!['local', 'dev', 'prod'].includes(stage))
    throw new ConfigurationError(`STAGE must be local, dev or prod (got "${stage}")`);
  const publicBaseUrl = normaliseBaseUrl(required(env, 'PUBLIC_BASE_URL'), stage);
  const tables = Object.fromEntries(TABLES.map((t) => [t.id, required(env, t.envVar)])) as Record<
    TableId,
    string
  >;
  const queues = Object.fromEntries(QUEUES.map((q) => [q.id, env[q.envVar]]));
  return {
    stage,
    publicBaseUrl,
    issuer: `${publicBaseUrl}/api/auth`,
    audience: env.TOKEN_AUDIENCE ?? publicBaseUrl,
    tables,
    queues,
    corsOrigins: corsOrigins(env.CORS_ALLOWED_ORIGINS),
    region: stage === 'local' ? 'local' : (env.AWS_REGION ?? 'unknown'),
    ledgerScanReads: integerSetting(env, 'LEDGER_SCAN_READS', 1000, 100, 20_000),
    ...(env.SIGNING_KEY_KMS_KEY_ID ? { signingKeyKmsKeyId: env.SIGNING_KEY_KMS_KEY_ID } : {}),
  };
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

function integerSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max))
    throw new ConfigurationError(
      `${name} must be an integer from ${min} to ${max} (got "${raw.slice(0, 32)}")`,
    );
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new ConfigurationError(`environment variable ${name} is required`);
  return value;
}

// ---- Observability (metrics and logs) --------------------------------------------------------------------------

/** How a Lambda function reports its figures (lib/observability). */
export interface ObservabilityConfig {
  /** CloudWatch namespace of the EMF metrics: METRICS_NAMESPACE, default `Platform/<STAGE>`. */
  metricsNamespace: string;
  /** The container was started ahead of traffic (provisioned concurrency): its first invocation is not cold. */
  provisioned: boolean;
}

/** CloudWatch's namespace alphabet, and at most 255 characters. */
const METRICS_NAMESPACE = /^[A-Za-z0-9.\-_/#:]{1,255}$/;

export function observabilityConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): ObservabilityConfig {
  const metricsNamespace = env.METRICS_NAMESPACE || defaultMetricsNamespace(env.STAGE ?? 'dev');
  if (!METRICS_NAMESPACE.test(metricsNamespace))
    throw new ConfigurationError(
      `METRICS_NAMESPACE must be 1-255 of A-Z a-z 0-9 . - _ / # : (got "${metricsNamespace.slice(0, 64)}")`,
    );
  return {
    metricsNamespace,
    // Set by Lambda itself, as Powertools reads it.
    provisioned: env.AWS_LAMBDA_INITIALIZATION_TYPE === 'provisioned-concurrency',
  };
}
