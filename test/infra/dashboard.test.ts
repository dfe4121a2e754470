import { describe, expect, it } from 'vitest';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

const { template } = synthPlatform({ stage: 'dev' });
const dev = templateReader(template);

interface Widget {
  type: string;
  width: number;
  properties: {
    title?: string;
    markdown?: string;
    metrics?: Array<Array<string | Record<string, unknown>>>;
  };
}

/** The dashboard's body, its `Fn::Join` parts put back together (the region reference as a placeholder). */
function dashboardWidgets(): { name: string; widgets: Widget[] } {
  const dashboards = Object.values(dev.resources).filter(
    (r) => r.Type === 'AWS::CloudWatch::Dashboard',
  );
  expect(dashboards).toHaveLength(1);
  const { DashboardName, DashboardBody } = dashboards[0]!.Properties;
  const [separator, parts] = DashboardBody['Fn::Join'] as [string, unknown[]];
  const body = parts
    .map((p) =>
      typeof p === 'string'
        ? p
        : p && (p as { Ref?: string }).Ref === 'AWS::Region'
          ? 'REGION'
          : '?',
    )
    .join(separator);
  return { name: DashboardName, widgets: (JSON.parse(body) as { widgets: Widget[] }).widgets };
}

/** A graph's metrics as "namespace name dim=value,... stat" lines (dimensions sorted), or its expression. */
function series(widget: Widget): string[] {
  return (widget.properties.metrics ?? []).map((m) => {
    const options = m.at(-1) as { stat?: string; expression?: string };
    if (options.expression) return options.expression;
    const [namespace, name, ...dims] = m.slice(0, -1) as string[];
    const pairs: string[] = [];
    for (let i = 0; i < dims.length; i += 2) pairs.push(`${dims[i]}=${dims[i + 1]}`);
    // CDK leaves out the dashboard's default statistic, Average.
    return `${namespace} ${name} ${pairs.sort().join(',')} ${options.stat ?? 'Average'}`;
  });
}

describe('the dashboard', () => {
  const { name, widgets } = dashboardWidgets();
  const graph = (title: string) => {
    const found = widgets.filter((w) => w.properties.title === title);
    expect(found).toHaveLength(1);
    return series(found[0]!);
  };
  const SERVICES = ['ledger', 'webhooks', 'payments', 'auth', 'platform'];

  it('is named for the stack and shows, in order, traffic, errors and latency, the ledger, webhooks and tokens', () => {
    expect(name).toBe('platform-dev-overview');
    expect(widgets.map((w) => w.properties.title ?? w.type)).toEqual([
      'text',
      'Requests per service',
      'Server errors (5xx) per service',
      'Client errors (4xx) per service',
      'Latency p50 per service (ms)',
      'Latency p99 per service (ms)',
      'Busiest routes (requests)',
      'Ledger commits (direct, group)',
      'Ledger retries (concurrent writers)',
      'Ledger batch size (log entries per commit)',
      'Webhook deliveries by outcome',
      'Token failures by reason',
    ]);
  });

  it('reads requests, errors and latency per service from the rollups the functions publish', () => {
    expect(graph('Requests per service')).toEqual(
      SERVICES.map((s) => `Platform/dev Requests service=${s} Sum`),
    );
    expect(graph('Server errors (5xx) per service')).toEqual(
      SERVICES.map((s) => `Platform/dev Requests service=${s},status_class=5xx Sum`),
    );
    expect(graph('Client errors (4xx) per service')).toEqual(
      SERVICES.map((s) => `Platform/dev Requests service=${s},status_class=4xx Sum`),
    );
    expect(graph('Latency p50 per service (ms)')).toEqual(
      SERVICES.map((s) => `Platform/dev Latency service=${s} p50`),
    );
    expect(graph('Latency p99 per service (ms)')).toEqual(
      SERVICES.map((s) => `Platform/dev Latency service=${s} p99`),
    );
    expect(graph('Busiest routes (requests)')).toEqual([
      `SORT(SEARCH('{Platform/dev,route,service,status_class} MetricName="Requests"', 'Sum', 300), SUM, DESC, 10)`,
    ]);
  });

  it('shows ledger commits, retries and batch sizes by mode', () => {
    expect(graph('Ledger commits (direct, group)')).toEqual([
      'Platform/dev LedgerCommits mode=direct,service=ledger Sum',
      'Platform/dev LedgerCommits mode=group,service=ledger Sum',
    ]);
    expect(graph('Ledger retries (concurrent writers)')).toEqual([
      'Platform/dev LedgerRetries mode=direct,service=ledger Sum',
      'Platform/dev LedgerRetries mode=group,service=ledger Sum',
    ]);
    expect(graph('Ledger batch size (log entries per commit)')).toEqual([
      'Platform/dev LedgerBatchSize mode=group,service=ledger Average',
      'Platform/dev LedgerBatchSize mode=group,service=ledger Maximum',
      'Platform/dev LedgerBatchSize mode=direct,service=ledger Average',
    ]);
  });

  it('shows every webhook outcome and token failure reason that has data (a search, not a fixed list)', () => {
    expect(graph('Webhook deliveries by outcome')).toEqual([
      `SEARCH('{Platform/dev,outcome,service} MetricName="WebhookDeliveries"', 'Sum', 300)`,
    ]);
    expect(graph('Token failures by reason')).toEqual([
      `SEARCH('{Platform/dev,reason,service} MetricName="TokenFailures"', 'Sum', 300)`,
    ]);
  });

  it('reads the namespace every function writes its metrics under', () => {
    for (const fn of [
      'auth',
      'ledger',
      'ledger-writer',
      'payments',
      'platform',
      'webhooks',
      'dispatch',
      'deliver',
      'rotate-keys',
      'console',
    ])
      expect(dev.fn(`platform-dev-${fn}`).Environment.Variables.METRICS_NAMESPACE).toBe(
        'Platform/dev',
      );
    const prod = templateReader(synthPlatform({ stage: 'prod' }).template);
    expect(prod.fn('platform-prod-ledger').Environment.Variables.METRICS_NAMESPACE).toBe(
      'Platform/prod',
    );
  });
});
