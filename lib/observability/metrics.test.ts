import { afterEach, describe, expect, it, vi } from 'vitest';
import { samplesOfEmf } from '../../infra/local/metrics/emf.js';
import { LocalMetrics } from '../../infra/local/metrics/registry.js';
import { METRIC_NAMES, METRICS } from './catalog.js';
import { EmfSink } from './emf-sink.js';
import {
  installMetricSink,
  type MetricSample,
  recordMetric,
  routeLabel,
  statusClass,
} from './metrics.js';

const restores: Array<() => void> = [];
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function recording(): MetricSample[] {
  const samples: MetricSample[] = [];
  restores.push(installMetricSink({ record: (s) => void samples.push(s) }));
  return samples;
}

/** What `run` writes on stdout, line by line. */
function stdoutOf(run: () => void): string[] {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return written.join('').split('\n').filter(Boolean);
}

const REQUEST = { service: 'auth', route: 'POST /api/auth/oauth/token', status_class: '2xx' };

describe('recordMetric', () => {
  it('completes a sample with its unit and the service the catalog fixes', () => {
    const samples = recording();
    recordMetric('LedgerCommits', { mode: 'direct' });
    recordMetric('LedgerBatchSize', { mode: 'group' }, 12);
    recordMetric('Latency', REQUEST, 4.5);
    expect(samples).toEqual([
      {
        name: 'LedgerCommits',
        unit: 'Count',
        value: 1,
        dimensions: { service: 'ledger', mode: 'direct' },
      },
      {
        name: 'LedgerBatchSize',
        unit: 'Count',
        value: 12,
        dimensions: { service: 'ledger', mode: 'group' },
      },
      { name: 'Latency', unit: 'Milliseconds', value: 4.5, dimensions: REQUEST },
    ]);
  });

  it('goes nowhere without a sink, and a removed sink hands back to the previous one', () => {
    const outer = recording();
    const inner: MetricSample[] = [];
    const uninstall = installMetricSink({ record: (s) => void inner.push(s) });
    recordMetric('TokenFailures', { reason: 'invalid_client' });
    uninstall();
    recordMetric('TokenFailures', { reason: 'throttled' });
    expect(inner.map((s) => s.dimensions.reason)).toEqual(['invalid_client']);
    expect(outer.map((s) => s.dimensions.reason)).toEqual(['throttled']);
    restores.pop()!();
    // Nothing installed: the discard path (no sample is even built).
    recordMetric('TokenFailures', { reason: 'invalid_request' });
    expect(outer).toHaveLength(1);
  });

  it('drops a value that is not a finite number', () => {
    const samples = recording();
    recordMetric('Latency', REQUEST, Number.NaN);
    recordMetric('Latency', REQUEST, Number.POSITIVE_INFINITY);
    recordMetric('Latency', REQUEST, 0);
    expect(samples.map((s) => s.value)).toEqual([0]);
  });

  it('labels a status by its class and a route by its method and pattern, folding unusual methods', () => {
    expect([200, 204, 301, 404, 429, 500, 503].map(statusClass)).toEqual([
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '5xx',
      '5xx',
    ]);
    expect(routeLabel('GET', '/api/ledger/v2/:ledger')).toBe('GET /api/ledger/v2/:ledger');
    expect(routeLabel('PROPFIND', '/api/ledger/*')).toBe('OTHER /api/ledger/*');
  });

  it('has a catalog whose rollups are subsets of their dimensions and whose Prometheus names are unique', () => {
    for (const name of METRIC_NAMES) {
      const definition = METRICS[name];
      for (const rollup of 'rollups' in definition ? definition.rollups : [])
        for (const key of rollup) expect(definition.dimensions).toContain(key);
      expect(definition.prometheus.name).toMatch(/^platform_[a-z_]+$/);
    }
    expect(new Set(METRIC_NAMES.map((n) => METRICS[n].prometheus.name)).size).toBe(
      METRIC_NAMES.length,
    );
  });
});

describe('EmfSink (Powertools Metrics)', () => {
  it('writes one EMF line per set of dimension values, values of a metric as a list, then forgets them', () => {
    vi.useFakeTimers({ now: 1_795_000_000_000, toFake: ['Date'] });
    const sink = new EmfSink('Platform/test');
    restores.push(installMetricSink(sink));
    recordMetric('Requests', REQUEST);
    recordMetric('Latency', REQUEST, 12);
    recordMetric('LedgerCommits', { mode: 'group' });
    recordMetric('Requests', REQUEST);
    recordMetric('Latency', REQUEST, 30.5);
    const lines = stdoutOf(() => sink.flush());
    expect(lines).toEqual([
      JSON.stringify({
        _aws: {
          Timestamp: 1_795_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: 'Platform/test',
              Dimensions: [
                ['service', 'route', 'status_class'],
                ['service', 'status_class'],
                ['service'],
              ],
              Metrics: [
                { Name: 'Requests', Unit: 'Count' },
                { Name: 'Latency', Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        service: 'auth',
        route: 'POST /api/auth/oauth/token',
        status_class: '2xx',
        Requests: [1, 1],
        Latency: [12, 30.5],
      }),
      JSON.stringify({
        _aws: {
          Timestamp: 1_795_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: 'Platform/test',
              Dimensions: [['service', 'mode']],
              Metrics: [{ Name: 'LedgerCommits', Unit: 'Count' }],
            },
          ],
        },
        service: 'ledger',
        mode: 'group',
        LedgerCommits: 1,
      }),
    ]);
    // Flushed: the next invocation starts empty, and an empty flush writes nothing.
    expect(stdoutOf(() => sink.flush())).toEqual([]);
  });

  it('reports, rather than throws, what Powertools refuses, and keeps the other lines', () => {
    const problems: string[] = [];
    const sink = new EmfSink('Platform/test', (p) => problems.push(p));
    sink.record({
      name: 'LedgerCommits',
      unit: 'Count',
      value: 1,
      dimensions: { service: 'ledger', mode: 'direct' },
    });
    sink.record({
      name: 'WebhookDeliveries',
      unit: 'Count',
      value: 1,
      // A key that is also a metric's name: Powertools refuses the line.
      dimensions: { service: 'webhooks', outcome: 'x', WebhookDeliveries: 'y' },
    });
    const lines = stdoutOf(() => sink.flush());
    expect(lines.map((l) => Object.keys(JSON.parse(l)).at(-1))).toEqual(['LedgerCommits']);
    expect(problems).toEqual([
      'metrics not written: EMF key collision on "WebhookDeliveries": registered as both a metric (number) and a dimension set (string)',
    ]);
  });

  it('reads back, from its own lines, the samples it was given (the local workers channel)', () => {
    const sink = new EmfSink('Platform/test');
    const given: MetricSample[] = [
      { name: 'Requests', unit: 'Count', value: 1, dimensions: REQUEST },
      { name: 'Latency', unit: 'Milliseconds', value: 7, dimensions: REQUEST },
      { name: 'Requests', unit: 'Count', value: 1, dimensions: REQUEST },
      {
        name: 'WebhookDeliveries',
        unit: 'Count',
        value: 1,
        dimensions: { service: 'webhooks', outcome: 'succeeded' },
      },
    ];
    for (const sample of given) sink.record(sample);
    const read = stdoutOf(() => sink.flush()).flatMap(samplesOfEmf);
    expect(read).toEqual([given[0], given[2], given[1], given[3]]);
    expect(samplesOfEmf('{"level":"INFO","message":"request"}')).toEqual([]);
    expect(samplesOfEmf('not json')).toEqual([]);
  });
});

describe('LocalMetrics (Prometheus text format)', () => {
  it('renders every metric of the catalog, counters and histograms, in exact text', async () => {
    const metrics = new LocalMetrics();
    metrics.record({ name: 'Requests', unit: 'Count', value: 1, dimensions: REQUEST });
    metrics.record({ name: 'Requests', unit: 'Count', value: 1, dimensions: REQUEST });
    metrics.record({ name: 'Latency', unit: 'Milliseconds', value: 20, dimensions: REQUEST });
    metrics.record({ name: 'Latency', unit: 'Milliseconds', value: 300, dimensions: REQUEST });
    metrics.ingestEmf(
      '{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Platform/local","Dimensions":[["service","mode"]],"Metrics":[{"Name":"LedgerCommits","Unit":"Count"},{"Name":"LedgerBatchSize","Unit":"Count"},{"Name":"ColdStart","Unit":"Count"}]}]},"service":"ledger","mode":"group","LedgerCommits":[1,1],"LedgerBatchSize":[3,40],"ColdStart":1}',
    );
    metrics.record({
      name: 'TokenFailures',
      unit: 'Count',
      value: 1,
      dimensions: { service: 'auth', reason: 'a "quoted"\\ reason\n' },
    });
    const route = 'service="auth",route="POST /api/auth/oauth/token",status_class="2xx"';
    const latency = (le: string, n: number) =>
      `platform_http_request_duration_seconds_bucket{le="${le}",${route}} ${n}`;
    const batch = (le: string, n: number) =>
      `platform_ledger_batch_size_bucket{le="${le}",service="ledger",mode="group"} ${n}`;
    expect(await metrics.render()).toBe(
      [
        `# HELP platform_http_requests_total ${METRICS.Requests.description}`,
        '# TYPE platform_http_requests_total counter',
        `platform_http_requests_total{${route}} 2`,
        '',
        `# HELP platform_http_request_duration_seconds ${METRICS.Latency.description}`,
        '# TYPE platform_http_request_duration_seconds histogram',
        latency('0.005', 0),
        latency('0.01', 0),
        latency('0.025', 1),
        latency('0.05', 1),
        latency('0.1', 1),
        latency('0.25', 1),
        latency('0.5', 2),
        latency('1', 2),
        latency('2.5', 2),
        latency('5', 2),
        latency('10', 2),
        latency('+Inf', 2),
        `platform_http_request_duration_seconds_sum{${route}} 0.32`,
        `platform_http_request_duration_seconds_count{${route}} 2`,
        '',
        `# HELP platform_ledger_commits_total ${METRICS.LedgerCommits.description}`,
        '# TYPE platform_ledger_commits_total counter',
        'platform_ledger_commits_total{service="ledger",mode="group"} 2',
        '',
        `# HELP platform_ledger_batch_size ${METRICS.LedgerBatchSize.description}`,
        '# TYPE platform_ledger_batch_size histogram',
        batch('1', 0),
        batch('2', 0),
        batch('5', 1),
        batch('10', 1),
        batch('20', 1),
        batch('50', 2),
        batch('100', 2),
        batch('+Inf', 2),
        'platform_ledger_batch_size_sum{service="ledger",mode="group"} 43',
        'platform_ledger_batch_size_count{service="ledger",mode="group"} 2',
        '',
        `# HELP platform_ledger_retries_total ${METRICS.LedgerRetries.description}`,
        '# TYPE platform_ledger_retries_total counter',
        '',
        `# HELP platform_webhook_deliveries_total ${METRICS.WebhookDeliveries.description}`,
        '# TYPE platform_webhook_deliveries_total counter',
        '',
        `# HELP platform_token_failures_total ${METRICS.TokenFailures.description}`,
        '# TYPE platform_token_failures_total counter',
        'platform_token_failures_total{service="auth",reason="a \\"quoted\\"\\\\ reason\\n"} 1',
        '',
        `# HELP platform_pipeline_drains_total ${METRICS.PipelineDrains.description}`,
        '# TYPE platform_pipeline_drains_total counter',
        '',
        `# HELP platform_pipeline_lag_seconds ${METRICS.PipelineLag.description}`,
        '# TYPE platform_pipeline_lag_seconds histogram',
        '',
        `# HELP platform_connector_runs_total ${METRICS.ConnectorRuns.description}`,
        '# TYPE platform_connector_runs_total counter',
        '',
        `# HELP platform_connector_lag_seconds ${METRICS.ConnectorLag.description}`,
        '# TYPE platform_connector_lag_seconds histogram',
        '',
      ].join('\n'),
    );
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
