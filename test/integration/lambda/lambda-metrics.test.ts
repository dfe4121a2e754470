/**
 * A Lambda entry point writes its figures as CloudWatch Embedded Metric Format on stdout, once per invocation,
 * before it answers: functions/ledger.ts under API Gateway events, read from what the process writes.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpApiEvent } from '../../support/api-gateway.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResult>;
let handler: Handler;
let token: string;

beforeAll(async () => {
  const { variables: env, runtime } = await testTables({ METRICS_NAMESPACE: 'Platform/test' });
  token = await tokenFor(authApp(runtime), ADMIN, 'ledger:write ledger:read');
  Object.assign(process.env, env, { LOG_LEVEL: 'info' });
  // The module builds its runtime (and its EMF sink) from process.env at import, as in a Lambda container.
  ({ handler } = (await import('../../../functions/ledger.js')) as unknown as { handler: Handler });
});

afterEach(() => void vi.restoreAllMocks());

/** Every line the invocation wrote on stdout, parsed (EMF and log lines alike are one JSON object a line). */
async function invoke(
  method: string,
  path: string,
  body: unknown,
  context: Partial<Context>,
): Promise<{ status: number; lines: Array<Record<string, any>> }> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  const res = await handler(
    httpApiEvent(method, path, {
      service: 'ledger',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    context as Context,
  );
  spy.mockRestore();
  const lines = written
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
  return { status: res.statusCode, lines };
}

const emfOf = (lines: Array<Record<string, any>>) => lines.filter((l) => l._aws !== undefined);

describe('functions/ledger.ts metrics (EMF)', () => {
  it('writes one EMF line per dimension set: the request (count and latency, with its rollups) and the ledger commit', async () => {
    const first = await invoke('POST', '/api/ledger/v2/emf', undefined, { awsRequestId: 'aws-1' });
    expect(first.status).toBe(204);
    expect(first.lines.find((l) => l.message === 'request')).toMatchObject({
      function_request_id: 'aws-1',
      cold_start: true,
    });
    const { status, lines } = await invoke(
      'POST',
      '/api/ledger/v2/emf/transactions',
      { postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD/2' }] },
      { awsRequestId: 'aws-2', functionName: 'platform-dev-ledger' },
    );
    expect(status).toBe(200);
    const emf = emfOf(lines);
    expect(emf).toHaveLength(2);
    const [commit, request] = emf as [Record<string, any>, Record<string, any>];

    expect(commit._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Platform/test',
        Dimensions: [['service', 'mode']],
        Metrics: [
          { Name: 'LedgerCommits', Unit: 'Count' },
          { Name: 'LedgerBatchSize', Unit: 'Count' },
        ],
      },
    ]);
    expect(commit).toMatchObject({
      service: 'ledger',
      mode: 'direct',
      LedgerCommits: 1,
      LedgerBatchSize: 1,
    });
    expect(request._aws.CloudWatchMetrics).toEqual([
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
    ]);
    expect(request).toMatchObject({
      service: 'ledger',
      route: 'POST /api/ledger/v2/:ledger/transactions',
      status_class: '2xx',
      Requests: 1,
    });
    expect(request.Latency).toBeGreaterThan(0);
    expect(Number.isInteger(request._aws.Timestamp)).toBe(true);

    // The request's log line names the invocation (Powertools Logger), and is not the container's first.
    const log = lines.find((l) => l.message === 'request')!;
    expect(log).toMatchObject({
      level: 'INFO',
      service: 'ledger',
      function_request_id: 'aws-2',
      function_name: 'platform-dev-ledger',
      cold_start: false,
      status: 200,
    });
  });

  it('writes the metrics of a failed request too, and nothing for an invocation that recorded none', async () => {
    const { status, lines } = await invoke('GET', '/api/ledger/v2/emf/transactions/99', undefined, {
      awsRequestId: 'aws-3',
    });
    expect(status).toBe(404);
    expect(emfOf(lines).map((l) => [l.route, l.status_class, l.Requests])).toEqual([
      ['GET /api/ledger/v2/:ledger/transactions/:id', '4xx', 1],
    ]);
    // A successful health probe is not traffic: no figure, no EMF line, no warning.
    const probe = await invoke('GET', '/api/ledger/_health', undefined, { awsRequestId: 'aws-4' });
    expect(probe.status).toBe(200);
    expect(emfOf(probe.lines)).toEqual([]);
  });
});
