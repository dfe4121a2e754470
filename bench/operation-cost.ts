/**
 * Cost per operation: DynamoDB round trips and the capacity units DynamoDB Local reports for each request,
 * measured in-process on the services' own Hono apps (app.request, no HTTP server) and on the webhook worker
 * functions (dispatchBatch, deliverBatch) fed exactly what their event sources would feed them.
 *
 * Every figure is for a warm container: the signing keys, the JWKS cache and the ledger record cache are loaded
 * by warm-up calls first, because a cold container's one-off reads would not be paid per operation.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Hono } from 'hono';
import { DEFAULT_AUTH_CONFIG } from '../infra/local/platform.js';
import { assembleLedgerApp } from '../lib/assembly/ledger-app.js';
import { createAuthApp } from '../lib/auth/app.js';
import { loadAuthConfig } from '../lib/auth/domain/static-clients.js';
import { platformConfigFromVariables, staticClientsSource } from '../lib/config/env.js';
import { DEFAULT_ENVIRONMENT } from '../lib/environments/environment-id.js';
import type { HonoTypes } from '../lib/http/types.js';
import { ledgerKeys } from '../lib/ledger/store/keys.js';
import { createLogger } from '../lib/observability/logger.js';
import { generatedDocuments } from '../lib/openapi/generated-documents.js';
import { createRuntime } from '../lib/runtime/runtime.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';
import { deliverBatch } from '../lib/webhooks/deliver/deliver-batch.js';
import {
  type DispatchDeps,
  dispatchBatch,
  type StreamRecordLike,
} from '../lib/webhooks/dispatch/dispatch-batch.js';
import { type CallSummary, countSqsRequests, installDynamoMeter } from './dynamo-meter.js';
import { benchVariables, localDynamoClient, localSqsClient } from './environment.js';
import type { ActionUnits } from './transact-write-units.js';
import { startWebhookReceiver } from './webhook-receiver.js';

export interface OperationCost extends CallSummary {
  operation: string;
  /** What the operation's HTTP answer was (or the worker's outcome), to show it did what it says. */
  outcome: string;
  /** SQS requests the operation made itself (webhook workers only). */
  sqsRequests?: number;
  note?: string;
  /** Each TransactWriteItems action with its size and units by DynamoDB's rules. */
  transactWriteActions?: ActionUnits[];
}

export interface OperationCostResult {
  source: string;
  operations: OperationCost[];
}

export async function measureOperationCosts(
  dynamoEndpoint: string,
  sqsEndpoint: string,
): Promise<OperationCostResult> {
  const meter = installDynamoMeter();
  const env = await benchVariables(dynamoEndpoint, sqsEndpoint, 'bench-cost-');
  const runtime = createRuntime(platformConfigFromVariables(env));
  const sizer = localDynamoClient(dynamoEndpoint);
  meter.sizer = sizer;
  const auth = createAuthApp({
    runtime,
    documents: generatedDocuments,
    authConfig: loadAuthConfig(staticClientsSource({ AUTH_CONFIG: DEFAULT_AUTH_CONFIG }), 'local'),
  });
  const ledger = assembleLedgerApp(runtime, { documents: generatedDocuments });
  const webhooks = createWebhooksApp(runtime, { documents: generatedDocuments });
  const operations: OperationCost[] = [];

  /** Runs `action` with the meter cleared, and records what it cost. */
  const measure = async (operation: string, action: () => Promise<string>, note?: string) => {
    meter.reset();
    const outcome = await action();
    const actions = meter.calls.flatMap((c) => c.actions ?? []);
    operations.push({
      operation,
      outcome,
      ...meter.summary(),
      ...(note ? { note } : {}),
      ...(actions.length ? { transactWriteActions: actions } : {}),
    });
    return outcome;
  };

  const tokenRequest = (clientId: string, secret: string) => async () => {
    const res = await auth.request('/api/auth/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }).toString(),
    });
    const body = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || !body.access_token)
      throw new Error(`token request answered ${res.status}`);
    return body.access_token;
  };
  // The first token creates the signing key set; later ones are the steady state.
  const admin = await tokenRequest('local-dev', 'local-dev-secret')();
  const call = async (
    app: Hono<HonoTypes>,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await app.request(path, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return {
      status: res.status,
      body: text ? (JSON.parse(text) as { data?: Record<string, unknown> }) : undefined,
    };
  };

  // --- auth: token issue for the static test client and for a stored client (the production case).
  await measure('token issue, static client (local-dev)', async () => {
    await tokenRequest('local-dev', 'local-dev-secret')();
    return '200';
  });
  const created = await call(auth, 'POST', '/api/auth/clients', { name: 'bench' });
  const clientId = String(created.body!.data!.id);
  const secret = String(
    (await call(auth, 'POST', `/api/auth/clients/${clientId}/secrets`, { name: 'bench' })).body!
      .data!.clear,
  );
  // The first use of a secret writes its lastUsedAt (then at most once a minute): measured separately.
  await measure('token issue, stored client, first use of the secret', async () => {
    await tokenRequest(clientId, secret)();
    return '200';
  });
  await measure('token issue, stored client (steady state)', async () => {
    await tokenRequest(clientId, secret)();
    return '200';
  });

  // --- ledger: a ledger with the default features (all on), warmed so the ledger record and JWKS are cached.
  const L = '/api/ledger/v2/bench';
  await call(ledger, 'POST', L);
  const tx = (postings: Array<[string, string, number]>, extra: Record<string, unknown> = {}) => ({
    postings: postings.map(([source, destination, amount]) => ({
      source,
      destination,
      amount,
      asset: 'USD/2',
    })),
    ...extra,
  });
  const commit = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await call(ledger, 'POST', `${L}/transactions`, body, headers);
    return `${res.status} tx ${String(res.body!.data!.id)}`;
  };
  await call(ledger, 'POST', `${L}/transactions`, tx([['world', 'users:warm', 1]]));

  await measure('create transaction, 1 posting, new destination account', () =>
    commit(tx([['world', 'users:a', 100_00]])),
  );
  const one = await measure('create transaction, 1 posting, existing accounts', () =>
    commit(tx([['world', 'users:a', 100_00]])),
  );
  await measure(
    'create transaction, 1 posting, existing accounts, Idempotency-Key + reference',
    () =>
      commit(tx([['world', 'users:a', 1_00]], { reference: 'bench-ref-1' }), {
        'idempotency-key': 'bench-key-1',
      }),
  );
  const five = (n: number) =>
    tx([1, 2, 3, 4, 5].map((i) => ['world', `users:p${n}-${i}`, 10] as [string, string, number]));
  await measure('create transaction, 5 postings, 5 new destination accounts', () =>
    commit(five(1)),
  );
  await measure('create transaction, 5 postings, existing accounts', () => commit(five(1)));
  const oneId = one.split(' ').pop()!;
  await measure('revert transaction (1 posting)', async () =>
    String((await call(ledger, 'POST', `${L}/transactions/${oneId}/revert`)).status),
  );
  await measure('transaction metadata write (1 key)', async () =>
    String(
      (await call(ledger, 'POST', `${L}/transactions/${oneId}/metadata`, { note: 'bench' })).status,
    ),
  );

  // --- ledger lists: a query no index serves reads one bounded page (LEDGER_SCAN_READS, default 1,000 items).
  const S = '/api/ledger/v2/benchscan';
  await call(ledger, 'POST', S);
  for (let i = 0; i < 11; i++) {
    const elements = Array.from({ length: 100 }, (_, j) => ({
      action: 'CREATE_TRANSACTION',
      data: tx([['world', `scan:${(i * 100 + j) % 50}`, 1]]),
    }));
    await call(ledger, 'POST', `${S}/_bulk`, elements);
  }
  const listed = async (query: unknown) => {
    const res = await call(
      ledger,
      'GET',
      `${S}/transactions?query=${encodeURIComponent(JSON.stringify(query))}`,
    );
    const cursor = (res.body as unknown as { cursor: { data: unknown[]; hasMore: boolean } })
      .cursor;
    return `${res.status} ${cursor.data.length} results, hasMore ${cursor.hasMore}`;
  };
  await measure('list transactions, query served by an index (account): one page of 15', () =>
    listed({ $match: { account: 'scan:7' } }),
  );
  await measure(
    'list transactions, query no index serves ($like on reference, no match): one bounded page',
    () => listed({ $like: { reference: 'nothing%' } }),
    'reads LEDGER_SCAN_READS (1,000) transaction items of the 1,100 and stops, empty with hasMore: ≈ 1,000 such pages per million transactions',
  );

  // --- webhooks: one active config for committed transactions, pointing at a local receiver.
  const receiver = await startWebhookReceiver();
  const sqs = localSqsClient(sqsEndpoint);
  const raw = localDynamoClient(dynamoEndpoint);
  try {
    await call(webhooks, 'POST', '/api/webhooks/configs', {
      endpoint: receiver.url,
      eventTypes: ['ledger.committed_transactions'],
    });
    // Two fresh events, read back as the ledger table's stream would carry them (the log items' NEW_IMAGE).
    await commit(tx([['world', 'users:a', 1]]));
    await commit(tx([['world', 'users:a', 1]]));
    const { Items = [] } = await raw.send(
      new QueryCommand({
        TableName: env.LEDGER_TABLE!,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: {
          ':p': { S: ledgerKeys.logPartition({ environment: DEFAULT_ENVIRONMENT, name: 'bench' }) },
        },
        ConsistentRead: true,
      }),
    );
    const committed = Items.filter((i) => i.type?.S === 'NEW_TRANSACTION' && i.ev?.S !== undefined);
    const records: StreamRecordLike[] = committed.slice(-2).map((image, i) => ({
      eventID: `bench-${i}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: String(i + 1), NewImage: image },
    }));
    const sqsCount = countSqsRequests(sqs);
    const logger = createLogger('silent');
    const deps: DispatchDeps = {
      doc: runtime.doc,
      sqs,
      table: env.WEBHOOKS_TABLE!,
      queueUrl: env.DELIVERIES_QUEUE_URL!,
      logger,
    };
    const dispatchOne = (record: StreamRecordLike) => async () => {
      sqsCount.reset();
      const result = await dispatchBatch([record], deps);
      return result.batchItemFailures.length === 0 ? '1 delivery created + enqueued' : 'FAILED';
    };
    await measure(
      'webhook dispatch of 1 event, 1 subscribed config (config cache miss)',
      dispatchOne(records[0]!),
    );
    operations.at(-1)!.sqsRequests = sqsCount.total();
    await measure(
      'webhook dispatch of 1 event, 1 subscribed config (config cache warm)',
      dispatchOne(records[1]!),
    );
    operations.at(-1)!.sqsRequests = sqsCount.total();

    const receiverSqs = localSqsClient(sqsEndpoint);
    const { Messages = [] } = await receiverSqs.send(
      new ReceiveMessageCommand({
        QueueUrl: env.DELIVERIES_QUEUE_URL!,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    if (Messages.length < 1) throw new Error('no delivery message was enqueued');
    await measure(
      'webhook delivery of 1 message (signed POST, 204 answer)',
      async () => {
        sqsCount.reset();
        const before = receiver.arrivals.length;
        const result = await deliverBatch(
          [{ messageId: Messages[0]!.MessageId!, body: Messages[0]!.Body! }],
          {
            ...deps,
            logger,
            allowLoopback: true,
          },
        );
        if (result.batchItemFailures.length > 0 || receiver.arrivals.length !== before + 1)
          return 'FAILED';
        return 'delivered, 204';
      },
      'The SQS receive and delete are done by the event source mapping (not counted here; modelled below).',
    );
    operations.at(-1)!.sqsRequests = sqsCount.total();
    await receiverSqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: env.DELIVERIES_QUEUE_URL!,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
    receiverSqs.destroy();
  } finally {
    await receiver.close();
    sqs.destroy();
    raw.destroy();
    meter.sizer = undefined;
    sizer.destroy();
  }
  return {
    source:
      'in-process service apps (app.request) and webhook worker functions on DynamoDB Local; capacity as reported by DynamoDB Local (ReturnConsumedCapacity=INDEXES)',
    operations,
  };
}
