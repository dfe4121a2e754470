/**
 * CloudWatch metrics from a Lambda function: samples are kept for the invocation, then `flush()` writes them as
 * Embedded Metric Format lines on stdout through Powertools Metrics, which CloudWatch Logs turns into metrics (no
 * API call, no extra latency). One line per distinct set of dimension values, holding every metric that shares
 * it (a request's count and latency travel together), under its dimension set and the catalog's rollups.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { metricDefinition } from './catalog.js';
import type { MetricSample, MetricSink } from './metrics.js';

interface Group {
  dimensions: Readonly<Record<string, string>>;
  rollups: readonly (readonly string[])[];
  samples: MetricSample[];
}

export class EmfSink implements MetricSink {
  private readonly groups = new Map<string, Group>();
  /** One Powertools instance per service: `service` is its default dimension, part of every set. */
  private readonly byService = new Map<string, Metrics>();

  constructor(
    private readonly namespace: string,
    /** Told of what went wrong (a flush that failed, a Powertools warning): metrics never fail an invocation. */
    private readonly report: (problem: string) => void = () => undefined,
  ) {}

  record(sample: MetricSample): void {
    const rollups = metricDefinition(sample.name).rollups ?? [];
    const key = JSON.stringify([Object.entries(sample.dimensions).sort(), rollups]);
    let group = this.groups.get(key);
    if (!group) {
      group = { dimensions: sample.dimensions, rollups, samples: [] };
      this.groups.set(key, group);
    }
    group.samples.push(sample);
  }

  /** Writes what this invocation recorded, one EMF line per dimension set, and forgets it. */
  flush(): void {
    const groups = [...this.groups.values()];
    this.groups.clear();
    for (const group of groups) {
      try {
        this.publish(group);
      } catch (err) {
        this.report(`metrics not written: ${(err as Error).message}`);
      }
    }
  }

  private publish({ dimensions, rollups, samples }: Group): void {
    const { service = 'platform', ...own } = dimensions;
    const metrics = this.metricsFor(service);
    metrics.addDimensions(own);
    for (const rollup of rollups)
      metrics.addDimensions(Object.fromEntries(rollup.map((key) => [key, own[key] ?? ''])));
    for (const sample of samples) metrics.addMetric(sample.name, sample.unit, sample.value);
    metrics.publishStoredMetrics();
  }

  private metricsFor(service: string): Metrics {
    let metrics = this.byService.get(service);
    if (!metrics) {
      metrics = new Metrics({
        namespace: this.namespace,
        serviceName: service,
        logger: {
          debug: () => undefined,
          info: () => undefined,
          warn: (...content: unknown[]) => this.warned(content.join(' ')),
          error: (...content: unknown[]) => this.report(content.join(' ')),
        },
      });
      this.byService.set(service, metrics);
    }
    return metrics;
  }

  /**
   * Powertools 2.36 warns of a "key collision" whenever two dimension sets share a key, which every rollup does
   * by design (with the same value): that one is dropped, any other warning is reported.
   */
  private warned(text: string): void {
    if (!SHARED_DIMENSION_WARNING.test(text)) this.report(text);
  }
}

const SHARED_DIMENSION_WARNING =
  /^EMF key "[^"]+" is defined as both a dimension( set)? and dimension set/;
