import { Dashboard, GraphWidget, type IMetric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { type PlatformMetrics, METRIC_SERVICES as SERVICES } from './platform-metrics.js';

const WIDTH = 8;
const HEIGHT = 6;
const MODES = ['direct', 'group'] as const;

/**
 * One CloudWatch dashboard of the platform's own figures (docs/operations.md, "Metrics and dashboard" says how to
 * read it): traffic, errors and latency per service; the ledger's commits, retries and batch sizes; webhook
 * delivery outcomes and token failures.
 */
export class PlatformDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(
    scope: Construct,
    id: string,
    options: { physicalPrefix: string; metrics: PlatformMetrics },
  ) {
    super(scope, id);
    const { metrics } = options;
    const graph = (title: string, left: IMetric[]) =>
      new GraphWidget({ title, left, width: WIDTH, height: HEIGHT });
    this.dashboard = new Dashboard(this, 'dashboard', {
      dashboardName: `${options.physicalPrefix}overview`,
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `## Platform (\`${metrics.namespace}\`)\nRequests, errors and latency per service; ledger commits; webhook deliveries; token failures. How to read it: docs/operations.md, "Metrics and dashboard".`,
        width: 3 * WIDTH,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph(
        'Requests per service',
        SERVICES.map((s) => metrics.requests(s, undefined, s)),
      ),
      graph(
        'Server errors (5xx) per service',
        SERVICES.map((s) => metrics.requests(s, '5xx', s)),
      ),
      graph(
        'Client errors (4xx) per service',
        SERVICES.map((s) => metrics.requests(s, '4xx', s)),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Latency p50 per service (ms)',
        SERVICES.map((s) => metrics.latency(s, 'p50', s)),
      ),
      graph(
        'Latency p99 per service (ms)',
        SERVICES.map((s) => metrics.latency(s, 'p99', s)),
      ),
      graph('Busiest routes (requests)', [metrics.busiestRoutes(10)]),
    );
    this.dashboard.addWidgets(
      graph(
        'Ledger commits (direct, group)',
        MODES.map((mode) => metrics.of('LedgerCommits', { mode }, 'Sum', mode)),
      ),
      graph(
        'Ledger retries (concurrent writers)',
        MODES.map((mode) => metrics.of('LedgerRetries', { mode }, 'Sum', mode)),
      ),
      graph('Ledger batch size (log entries per commit)', [
        metrics.of('LedgerBatchSize', { mode: 'group' }, 'Average', 'group average'),
        metrics.of('LedgerBatchSize', { mode: 'group' }, 'Maximum', 'group maximum'),
        metrics.of('LedgerBatchSize', { mode: 'direct' }, 'Average', 'direct average'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Webhook deliveries by outcome', [
        metrics.byDimension('WebhookDeliveries', 'outcome', 'deliveries'),
      ]),
      graph('Token failures by reason', [
        metrics.byDimension('TokenFailures', 'reason', 'failures'),
      ]),
    );
  }
}
