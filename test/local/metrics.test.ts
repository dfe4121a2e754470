/**
 * `GET /_metrics` on the local platform: the figures of the services in the platform's process (auth, webhooks,
 * the deliverer) and of the ledger's worker processes (their EMF lines, sent over the pool's channel), counted
 * exactly for a token refused, a token issued, a ledger created and written, a webhook delivered, and a write
 * relayed to the ledger writer's process (group commit).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformDocumentClient, startTestPlatform, until } from '../support/platform.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let platform: RunningPlatform;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // With worker processes: their EMF lines join the registry the platform's own services record into.
  platform = await startTestPlatform({ ledgerWorkers: 1 });
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

async function scrape(): Promise<{ contentType: string | null; lines: string[] }> {
  const res = await fetch(`${platform.baseUrl}/_metrics`);
  expect(res.status).toBe(200);
  return {
    contentType: res.headers.get('content-type'),
    lines: (await res.text()).split('\n'),
  };
}

/** The sample lines of the metric families named, without HELP and TYPE. */
function samples(lines: string[], ...families: string[]): string[] {
  return lines.filter((l) => !l.startsWith('#') && families.some((f) => l.startsWith(f)));
}

const TOKEN = '/api/auth/oauth/token';

async function token(secret: string): Promise<Response> {
  return fetch(`${platform.baseUrl}${TOKEN}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'local-dev',
      client_secret: secret,
    }),
  });
}

describe('GET /_metrics on the local platform', () => {
  it('counts requests per route and status class, token failures, ledger commits and webhook deliveries, across the worker processes', async () => {
    // Before anything: every metric of the catalog is listed, none has a sample yet (health probes are not traffic).
    const before = await scrape();
    expect(before.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(before.lines.filter((l) => l.startsWith('# TYPE'))).toEqual([
      '# TYPE platform_http_requests_total counter',
      '# TYPE platform_http_request_duration_seconds histogram',
      '# TYPE platform_ledger_commits_total counter',
      '# TYPE platform_ledger_batch_size histogram',
      '# TYPE platform_ledger_retries_total counter',
      '# TYPE platform_webhook_deliveries_total counter',
      '# TYPE platform_token_failures_total counter',
      '# TYPE platform_pipeline_drains_total counter',
      '# TYPE platform_pipeline_lag_seconds histogram',
      '# TYPE platform_connector_runs_total counter',
      '# TYPE platform_connector_lag_seconds histogram',
    ]);
    expect(before.lines.filter((l) => l !== '' && !l.startsWith('#'))).toEqual([]);

    // A refused token (auth, in this process), then one issued and used for everything else.
    expect((await token('not-the-secret')).status).toBe(401);
    const issued = await token('local-dev-secret');
    expect(issued.status).toBe(200);
    const { access_token } = (await issued.json()) as { access_token: string };
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${platform.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });

    const config = await api('POST', '/api/webhooks/configs', {
      endpoint: receiver.url,
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status).toBe(200);
    // The ledger runs in worker processes: these requests and the commit are counted there.
    expect((await api('POST', '/api/ledger/v2/metered')).status).toBe(204);
    const tx = await api('POST', '/api/ledger/v2/metered/transactions', {
      postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD/2' }],
    });
    expect(tx.status).toBe(200);
    expect((await api('GET', '/api/ledger/v2/metered/transactions/1')).status).toBe(200);
    expect((await api('GET', '/api/ledger/v2/metered/transactions/99')).status).toBe(404);
    // Refused by the bearer check: counted under the service's wildcard, not the path.
    expect((await fetch(`${platform.baseUrl}/api/ledger/v2/metered/accounts`)).status).toBe(401);

    // The delivery: log tail → dispatch → queue → deliver → the receiver, then its outcome recorded.
    await until('the delivery received', () => (receiver.received.length > 0 ? true : undefined));
    const after = await until('the delivery counted', async () => {
      const { lines } = await scrape();
      return samples(lines, 'platform_webhook_deliveries_total').length > 0 ? lines : undefined;
    });

    expect(samples(after, 'platform_http_requests_total')).toEqual([
      'platform_http_requests_total{service="auth",route="POST /api/auth/oauth/token",status_class="4xx"} 1',
      'platform_http_requests_total{service="auth",route="POST /api/auth/oauth/token",status_class="2xx"} 1',
      'platform_http_requests_total{service="webhooks",route="POST /api/webhooks/configs",status_class="2xx"} 1',
      'platform_http_requests_total{service="ledger",route="POST /api/ledger/v2/:ledger",status_class="2xx"} 1',
      'platform_http_requests_total{service="ledger",route="POST /api/ledger/v2/:ledger/transactions",status_class="2xx"} 1',
      'platform_http_requests_total{service="ledger",route="GET /api/ledger/v2/:ledger/transactions/:id",status_class="2xx"} 1',
      'platform_http_requests_total{service="ledger",route="GET /api/ledger/v2/:ledger/transactions/:id",status_class="4xx"} 1',
      'platform_http_requests_total{service="ledger",route="GET /api/ledger/*",status_class="4xx"} 1',
    ]);
    // Every answered request was timed once, under the same labels.
    expect(samples(after, 'platform_http_request_duration_seconds_count')).toEqual(
      samples(after, 'platform_http_requests_total').map((l) =>
        l.replace('platform_http_requests_total', 'platform_http_request_duration_seconds_count'),
      ),
    );
    expect(samples(after, 'platform_token_failures_total')).toEqual([
      'platform_token_failures_total{service="auth",reason="invalid_client"} 1',
    ]);
    // One direct commit of one log entry (creating a ledger writes its HEAD, not a log).
    expect(
      samples(
        after,
        'platform_ledger_commits_total',
        'platform_ledger_batch_size_count',
        'platform_ledger_batch_size_sum',
        'platform_ledger_retries_total',
      ),
    ).toEqual([
      'platform_ledger_commits_total{service="ledger",mode="direct"} 1',
      'platform_ledger_batch_size_sum{service="ledger",mode="direct"} 1',
      'platform_ledger_batch_size_count{service="ledger",mode="direct"} 1',
    ]);
    expect(samples(after, 'platform_webhook_deliveries_total')).toEqual([
      'platform_webhook_deliveries_total{service="webhooks",outcome="succeeded"} 1',
    ]);

    // A write relayed to the ledger writer (its own worker process): a live lease on HEAD says the ledger is
    // busy, so the request hands its write over and the writer commits it as a group of one.
    const doc = platformDocumentClient(platform);
    await doc.send(
      new UpdateCommand({
        TableName: platform.variables.LEDGER_TABLE!,
        Key: { pk: 'E#default#L#metered', sk: 'HEAD' },
        UpdateExpression: 'SET leaseOwner = :other, leaseUntil = :until',
        ExpressionAttributeValues: { ':other': 'another-writer', ':until': Date.now() + 60_000 },
      }),
    );
    const relayed = await api('POST', '/api/ledger/v2/metered/transactions', {
      postings: [{ source: 'world', destination: 'users:2', amount: 5, asset: 'USD/2' }],
    });
    expect(relayed.status).toBe(200);
    // The writer's invocation drains the queue a while before it ends and writes its figures.
    const grouped = await until('the group commit counted', async () => {
      const { lines } = await scrape();
      const group = 'platform_ledger_commits_total{service="ledger",mode="group"}';
      return samples(lines, group).length > 0 ? lines : undefined;
    });
    expect(
      samples(
        grouped,
        'platform_ledger_commits_total',
        'platform_ledger_batch_size_count',
        'platform_ledger_batch_size_sum',
        'platform_ledger_retries_total',
      ),
    ).toEqual([
      'platform_ledger_commits_total{service="ledger",mode="direct"} 1',
      'platform_ledger_commits_total{service="ledger",mode="group"} 1',
      'platform_ledger_batch_size_sum{service="ledger",mode="direct"} 1',
      'platform_ledger_batch_size_count{service="ledger",mode="direct"} 1',
      'platform_ledger_batch_size_sum{service="ledger",mode="group"} 1',
      'platform_ledger_batch_size_count{service="ledger",mode="group"} 1',
    ]);
    const writes =
      'platform_http_requests_total{service="ledger",route="POST /api/ledger/v2/:ledger/transactions"';
    expect(samples(grouped, writes)).toEqual([`${writes},status_class="2xx"} 2`]);
  });
});
