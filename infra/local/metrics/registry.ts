/**
 * The local platform's figures in Prometheus form, for `GET /_metrics`: the samples of the services running in
 * the platform's own process (recorded through `recordMetric`, this being the process's sink) and those the
 * Lambda worker processes write as EMF (`ingestEmf`), in one registry. prom-client renders the text format
 * (escaping, histogram buckets, `_sum`/`_count`) — see docs/decisions/infrastructure.md.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import {
  METRIC_NAMES,
  type MetricName,
  metricDefinition,
} from '../../../lib/observability/catalog.js';
import type { MetricSample, MetricSink } from '../../../lib/observability/metrics.js';
import { samplesOfEmf } from './emf.js';

type Instrument =
  | { kind: 'counter'; metric: Counter }
  | { kind: 'histogram'; metric: Histogram; scale: number };

export class LocalMetrics implements MetricSink {
  private readonly registry = new Registry();
  private readonly instruments = new Map<MetricName, Instrument>();

  constructor() {
    // Every metric of the catalog, in its order, so the page lists them all from the start.
    for (const name of METRIC_NAMES) {
      const definition = metricDefinition(name);
      const shape = definition.prometheus;
      const options = {
        name: shape.name,
        help: definition.description,
        labelNames: ['service', ...definition.dimensions],
        registers: [this.registry],
      };
      this.instruments.set(
        name,
        shape.type === 'counter'
          ? { kind: 'counter', metric: new Counter(options) }
          : {
              kind: 'histogram',
              metric: new Histogram({ ...options, buckets: [...shape.buckets] }),
              scale: shape.scale,
            },
      );
    }
  }

  record(sample: MetricSample): void {
    const instrument = this.instruments.get(sample.name);
    if (!instrument) return;
    const definition = metricDefinition(sample.name);
    // Exactly the catalog's labels: a missing one is empty rather than an error in the middle of a request.
    const labels = Object.fromEntries(
      ['service', ...definition.dimensions].map((key) => [key, sample.dimensions[key] ?? '']),
    );
    if (instrument.kind === 'counter') instrument.metric.inc(labels, sample.value);
    else instrument.metric.observe(labels, sample.value * instrument.scale);
  }

  /** One EMF line a worker process wrote: its samples join this registry's. */
  ingestEmf(line: string): void {
    for (const sample of samplesOfEmf(line)) this.record(sample);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * The local platform's registry: one per process, as the sink `recordMetric` writes to is (the platform installs
 * it while it runs; the worker pools feed it what their processes emit).
 */
export const localMetrics = new LocalMetrics();

/** `GET /_metrics`: the registry as Prometheus's text format. */
export async function metricsResponse(): Promise<Response> {
  return new Response(await localMetrics.render(), {
    headers: { 'content-type': localMetrics.contentType },
  });
}
