/**
 * The one way code records a metric: `recordMetric('LedgerCommits', { mode: 'direct' })`. Where the figure goes
 * is the runtime's choice, made once per process: a Lambda function writes CloudWatch EMF (lambda-handler.ts),
 * the local platform aggregates for `/_metrics` (infra/local/metrics), and everything else (unit and
 * integration tests, the bench) discards it at the cost of one comparison.
 *
 * Process-wide on purpose, as a Lambda container is one process: emitting from the ledger's writer, the
 * sequencer, the deliverer or the token route takes one line there, not a dependency threaded through every
 * constructor. Domain code imports this file only, never Powertools or prom-client.
 */
import { METRICS, type MetricDimensions, type MetricName, type MetricUnit } from './catalog.js';

export type { MetricDimensions, MetricName } from './catalog.js';

export interface MetricSample {
  name: MetricName;
  unit: MetricUnit;
  value: number;
  /** `service` and the metric's own dimensions, all strings. */
  dimensions: Readonly<Record<string, string>>;
}

export interface MetricSink {
  record(sample: MetricSample): void;
}

const discard: MetricSink = { record: () => undefined };
let sink: MetricSink = discard;

/**
 * Sends this process's figures to `next` from now on; the returned function puts the previous sink back (if
 * `next` is still the one in place).
 */
export function installMetricSink(next: MetricSink): () => void {
  const previous = sink;
  sink = next;
  return () => {
    if (sink === next) sink = previous;
  };
}

/**
 * Adds `value` (default 1) to a metric of the catalog, with the dimensions the catalog gives it. A value that is
 * not a finite number is dropped (EMF would write it as `null`).
 */
export function recordMetric<N extends MetricName>(
  name: N,
  dimensions: MetricDimensions<N>,
  value = 1,
): void {
  if (sink === discard || !Number.isFinite(value)) return;
  const definition = METRICS[name];
  sink.record({
    name,
    unit: definition.unit,
    value,
    dimensions:
      'service' in definition ? { service: definition.service, ...dimensions } : dimensions,
  });
}

/** `2xx`, `4xx`, `5xx`: an answer's status as the bounded dimension the HTTP metrics use. */
export function statusClass(status: number): string {
  return `${Math.trunc(status / 100)}xx`;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The `route` dimension: the method and the route pattern that answered (`POST /api/ledger/v2/:ledger/transactions`),
 * never the raw path, so its values are as many as the routes. Unusual methods are folded into `OTHER`.
 */
export function routeLabel(method: string, pattern: string): string {
  return `${METHODS.has(method) ? method : 'OTHER'} ${pattern}`;
}
