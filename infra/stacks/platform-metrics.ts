import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  METRICS,
  type MetricDimensions,
  type MetricName,
} from '../../lib/observability/catalog.js';
import { SERVICES } from '../../lib/tokens/scopes.js';

export const METRIC_PERIOD = Duration.minutes(5);

/** The `service` dimension of every HTTP service's requests: the data services and the platform service. */
export const METRIC_SERVICES = [...SERVICES, 'platform'] as const;

/**
 * The functions' own metrics (lib/observability/catalog.ts) as CloudWatch metrics of the stack's namespace, for
 * the dashboard and the alarms. A metric is addressed by exactly the dimension set it is published under (the
 * catalog's dimensions, or one of its rollups): CloudWatch does not aggregate across the others.
 */
export class PlatformMetrics {
  constructor(readonly namespace: string) {}

  /** `name` with the catalog's own dimensions (the service implied when the catalog fixes it). */
  of<N extends MetricName>(
    name: N,
    dimensions: Partial<MetricDimensions<N>> & Record<string, string>,
    statistic: string,
    label?: string,
  ): Metric {
    const definition = METRICS[name];
    return new Metric({
      namespace: this.namespace,
      metricName: name,
      dimensionsMap: {
        ...('service' in definition ? { service: definition.service } : {}),
        ...dimensions,
      },
      statistic,
      period: METRIC_PERIOD,
      ...(label ? { label } : {}),
    });
  }

  /**
   * A service's requests (every route and status) or those of one status class: the `Requests` rollups. A label
   * is for a graph (an alarm on a labelled metric would be written as metric math).
   */
  requests(service: string, statusClass?: string, label?: string): Metric {
    return this.of(
      'Requests',
      { service, ...(statusClass ? { status_class: statusClass } : {}) },
      'Sum',
      label,
    );
  }

  /** A service's latency at a percentile (`p50`, `p99`), over every route: the `Latency` rollup. */
  latency(service: string, percentile: string, label?: string): Metric {
    return this.of('Latency', { service }, percentile, label);
  }

  /**
   * Every value of `dimension` that has data, one line each: a metric whose values the dashboard need not list
   * (webhook outcomes, token failure reasons).
   */
  byDimension(name: MetricName, dimension: string, label: string): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{${this.namespace},${dimension},service} MetricName="${name}"', 'Sum', ${METRIC_PERIOD.toSeconds()})`,
      label,
      period: METRIC_PERIOD,
    });
  }

  /** The `count` busiest routes (every service and status class) by requests. */
  busiestRoutes(count: number): MathExpression {
    return new MathExpression({
      expression: `SORT(SEARCH('{${this.namespace},route,service,status_class} MetricName="Requests"', 'Sum', ${METRIC_PERIOD.toSeconds()}), SUM, DESC, ${count})`,
      label: 'requests',
      period: METRIC_PERIOD,
    });
  }
}
