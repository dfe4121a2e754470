/**
 * Every metric the platform emits, in one place: its CloudWatch name and unit, its dimensions, and its Prometheus
 * name for the local `/_metrics`. Emitters (`recordMetric`), the Lambda EMF sink, the local aggregator, the CDK
 * dashboard and the alarms all read this table, so a name cannot drift between them.
 *
 * Dimensions are few and bounded (cardinality is cost in CloudWatch, where each combination is a metric): the
 * service always; then a route pattern (never a raw path), a status class, a commit mode, an outcome or a reason,
 * each drawn from a fixed set.
 */

export type MetricUnit = 'Count' | 'Milliseconds';

export type PrometheusShape =
  | { name: string; type: 'counter' }
  /** `scale` turns the recorded unit into the Prometheus one (milliseconds → seconds). */
  | { name: string; type: 'histogram'; scale: number; buckets: readonly number[] };

export interface MetricDefinition {
  unit: MetricUnit;
  /** Dimensions besides `service`, which every sample has. */
  dimensions: readonly string[];
  /** The service all its samples belong to; absent, each sample names its service (the HTTP metrics). */
  service?: string;
  /**
   * Coarser dimension sets also published to CloudWatch (each a subset of `dimensions`; `service` is always
   * part of them): EMF writes one value under several sets, so a per-service figure needs no metric math.
   */
  rollups?: readonly (readonly string[])[];
  description: string;
  prometheus: PrometheusShape;
}

/** Request latency buckets, in seconds (Prometheus's usual ones). */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Log entries per commit: one for a single direct write, up to ~86 for a full group commit. */
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100] as const;

export const METRICS = {
  Requests: {
    unit: 'Count',
    dimensions: ['route', 'status_class'],
    rollups: [['status_class'], []],
    description:
      'HTTP requests answered, by route pattern (method and Hono pattern) and status class (2xx, 4xx, 5xx)',
    prometheus: { name: 'platform_http_requests_total', type: 'counter' },
  },
  Latency: {
    unit: 'Milliseconds',
    dimensions: ['route', 'status_class'],
    rollups: [['status_class'], []],
    description:
      'Time from a request reaching its service to the answer, by route pattern and status class',
    prometheus: {
      name: 'platform_http_request_duration_seconds',
      type: 'histogram',
      scale: 1 / 1000,
      buckets: LATENCY_BUCKETS_SECONDS,
    },
  },
  LedgerCommits: {
    unit: 'Count',
    service: 'ledger',
    dimensions: ['mode'],
    description:
      'Ledger TransactWriteItems committed, by mode: direct (the request commits) or group (the sequenced writer)',
    prometheus: { name: 'platform_ledger_commits_total', type: 'counter' },
  },
  LedgerBatchSize: {
    unit: 'Count',
    service: 'ledger',
    dimensions: ['mode'],
    description: 'Log entries written by one ledger commit, by mode',
    prometheus: {
      name: 'platform_ledger_batch_size',
      type: 'histogram',
      scale: 1,
      buckets: BATCH_SIZE_BUCKETS,
    },
  },
  LedgerRetries: {
    unit: 'Count',
    service: 'ledger',
    dimensions: ['mode'],
    description:
      'Ledger writes decided again because a concurrent writer moved HEAD first (or DynamoDB throttled the commit), by mode',
    prometheus: { name: 'platform_ledger_retries_total', type: 'counter' },
  },
  WebhookDeliveries: {
    unit: 'Count',
    service: 'webhooks',
    dimensions: ['outcome'],
    description:
      'Delivery messages handled, by outcome: succeeded, retry-scheduled, failed (after the last attempt), deactivated (410, or failing for the configured period), cancelled, rescheduled-early, rate-limited (held back by the config rate limit), already-done, missing, lost-race, or error (the message returns to the queue)',
    prometheus: { name: 'platform_webhook_deliveries_total', type: 'counter' },
  },
  TokenFailures: {
    unit: 'Count',
    service: 'auth',
    dimensions: ['reason'],
    description:
      'Token requests refused, by reason: the OAuth error (invalid_client, invalid_scope, ...) or throttled',
    prometheus: { name: 'platform_token_failures_total', type: 'counter' },
  },
  PipelineDrains: {
    unit: 'Count',
    service: 'ledger',
    dimensions: ['outcome'],
    description:
      'Pipeline drains, by outcome: caught-up, more, stopped, gone, failed (refused by the destination), waiting (back-off), error',
    prometheus: { name: 'platform_pipeline_drains_total', type: 'counter' },
  },
  PipelineLag: {
    unit: 'Milliseconds',
    service: 'ledger',
    dimensions: [],
    description: 'From a log’s commit to its export, for the last log of each exported batch',
    prometheus: {
      name: 'platform_pipeline_lag_seconds',
      type: 'histogram',
      scale: 1 / 1000,
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
    },
  },
  ConnectorRuns: {
    unit: 'Count',
    service: 'payments',
    dimensions: ['outcome'],
    description:
      "Payments connectors' schedule runs in the worker, by outcome: done, more (pages left for the next run), skipped (another run held it), failed (the provider or the store)",
    prometheus: { name: 'platform_connector_runs_total', type: 'counter' },
  },
  ConnectorLag: {
    unit: 'Milliseconds',
    service: 'payments',
    dimensions: [],
    description:
      "How overdue the most overdue connector schedule or scheduled initiation was when the worker's tick found it",
    prometheus: {
      name: 'platform_connector_lag_seconds',
      type: 'histogram',
      scale: 1 / 1000,
      buckets: [1, 10, 60, 120, 300, 900, 3600],
    },
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

type Definition<N extends MetricName> = (typeof METRICS)[N];

/** The dimensions a sample of `N` must name: its own, plus `service` when the catalog does not fix it. */
export type MetricDimensions<N extends MetricName> = {
  readonly [K in Definition<N>['dimensions'][number]]: string;
} & (Definition<N> extends { service: string } ? unknown : { readonly service: string });

export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];

export function metricDefinition(name: MetricName): MetricDefinition {
  return METRICS[name];
}

/** A name of the catalog, from untrusted text (an EMF line). */
export function isMetricName(name: string): name is MetricName {
  return Object.hasOwn(METRICS, name);
}

export { defaultMetricsNamespace } from '../config/stage.js';
