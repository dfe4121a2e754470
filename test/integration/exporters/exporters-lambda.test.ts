/**
 * The pipelines function's handler (functions/pipelines.ts) over DynamoDB Local, an SQS emulator (fauxqs) and a
 * loopback receiver: a ledger stream batch only queues wakes; a queue batch drains, then queues the rest of a
 * backfill at once and a failed batch's retry after its back-off; a wake during the back-off queues nothing.
 */
import { CreateQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import { exportKeys } from '../../../lib/exporters/store/keys.js';
import {
  type PipelineWake,
  PipelineWakeQueue,
} from '../../../lib/exporters/store/pipeline-wakes.js';
import { exportStores } from '../../../lib/exporters/stores.js';
import { createPipelineWorker } from '../../../lib/exporters/worker/create-worker.js';
import type { PipelineRef, PipelineWorker } from '../../../lib/exporters/worker/drain-pipeline.js';
import {
  handlePipelineEvent,
  type PipelineEventRecord,
  type PipelineLambdaDeps,
} from '../../../lib/exporters/worker/pipeline-lambda.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import type { Logger } from '../../../lib/observability/logger.js';
import { bigintDocumentClient, type ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { startExportReceiver } from '../../support/export-receiver.js';
import { ledgerClient } from '../../support/ledger.js';
import { localSqsClient } from '../../support/sqs.js';
import { testTables } from '../../support/tables.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let clock = T0;
let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let sqsLocal: SqsLocal;
let sqs: SQSClient;
let queues = 0;
const logs: Array<{ level: string; message: string }> = [];
const logger: Logger = { log: (level, message) => void logs.push({ level, message }) };

/** The real queue, remembering what was sent with which delay. */
class RecordingQueue extends PipelineWakeQueue {
  readonly sent: Array<PipelineWake & { delaySeconds: number }> = [];
  override async send(wakes: ReadonlyArray<PipelineWake & { delaySeconds: number }>) {
    this.sent.push(...wakes);
    await super.send(wakes);
  }
}

async function lambda(overrides: Partial<PipelineLambdaDeps> = {}) {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `wakes-${++queues}` }));
  const queue = new RecordingQueue(sqs, QueueUrl!);
  const deps: PipelineLambdaDeps = {
    worker: createPipelineWorker(runtime, { now: () => clock }),
    stores: exportStores(bigintDocumentClient(runtime), runtime.config.tables.ledger),
    queue,
    logger,
    now: () => clock,
    drainBudgetMs: 60_000,
    ...overrides,
  };
  /** The messages due now, as the queue's event source mapping would hand them over. */
  const received = async (): Promise<PipelineEventRecord[]> => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    return Messages.map((m) => ({
      eventSource: 'aws:sqs',
      messageId: m.MessageId!,
      body: m.Body!,
    }));
  };
  return {
    deps,
    queue,
    received,
    run: (records: PipelineEventRecord[]) => handlePipelineEvent(records, deps),
  };
}

const streamRecord = (keys: { pk: string; sk: string }, image?: Record<string, unknown>) =>
  ({
    eventSource: 'aws:dynamodb',
    eventName: 'INSERT',
    dynamodb: {
      Keys: { pk: { S: keys.pk }, sk: { S: keys.sk } },
      ...(image ? { NewImage: image } : {}),
    },
  }) as PipelineEventRecord;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  sqsLocal = await startSqsLocal();
  sqs = localSqsClient(sqsLocal.endpoint);
});

afterAll(async () => {
  sqs?.destroy();
  await sqsLocal?.stop();
});

async function ledgerWithPipeline(
  name: string,
  transactions: number,
  url: string,
): Promise<PipelineRef> {
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  for (let i = 1; i <= transactions; i++)
    expect(
      (
        await call('POST', `/v2/${name}/transactions`, {
          postings: [{ source: 'world', destination: 'a', amount: BigInt(i), asset: 'EUR' }],
        })
      ).status,
    ).toBe(200);
  const exporter = await call('POST', '/v2/_/exporters', {
    driver: 'http',
    config: { url, batching: { maxItems: 5 } },
  });
  const pipeline = await call('POST', `/v2/${name}/pipelines`, {
    exporterID: exporter.body.data.id,
  });
  expect(pipeline.status, pipeline.text).toBe(201);
  return { environment: 'default', ledger: name, id: pipeline.body.data.id };
}

const idsOf = (receiver: { received: Array<{ ids: number[] }> }) =>
  receiver.received.map((b) => b.ids);

describe('the pipelines function', () => {
  it('a stream batch queues one wake per running pipeline of a ledger that logged; a queue batch drains it', async () => {
    const receiver = await startExportReceiver();
    const ref = await ledgerWithPipeline('streamed', 12, receiver.url);
    const { queue, received, run } = await lambda();
    const log = (id: number) =>
      streamRecord(ledgerKeys.log({ environment: 'default', name: 'streamed' }, id));
    expect(
      await run([
        log(11),
        log(12),
        streamRecord(ledgerKeys.head({ environment: 'default', name: 'streamed' })),
      ]),
    ).toEqual({
      batchItemFailures: [],
    });
    expect(queue.sent).toEqual([{ ref, kind: 'wake', delaySeconds: 0 }]);
    expect(receiver.received).toEqual([]); // the stream never drains

    const messages = await received();
    expect(messages).toHaveLength(1);
    expect(await run(messages)).toEqual({ batchItemFailures: [] });
    expect(idsOf(receiver)).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [11, 12],
    ]);
    expect(queue.sent).toHaveLength(1); // caught up: nothing more queued
    await receiver.close();
  });

  it('a backfill past the drain budget goes on in the next message, at once, until caught up', async () => {
    const receiver = await startExportReceiver();
    const ref = await ledgerWithPipeline('backfill', 12, receiver.url);
    // No budget: each drain sends one batch, then says there is more.
    const { queue, received, run } = await lambda({ drainBudgetMs: 0 });
    await run([
      streamRecord(exportKeys.pipeline('default', 'backfill', ref.id), { enabled: { BOOL: true } }),
    ]);
    // The third drain sends logs 11-12 and, out of budget, says more; the fourth finds it caught up.
    for (let round = 0; round < 4; round++)
      expect(await run(await received())).toEqual({ batchItemFailures: [] });
    expect(await received()).toEqual([]);
    expect(idsOf(receiver)).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [11, 12],
    ]);
    expect(queue.sent).toEqual(Array(4).fill({ ref, kind: 'wake', delaySeconds: 0 }));
    await receiver.close();
  });

  it('a refused batch queues its retry after the back-off; wakes meanwhile queue nothing; the retry exports from the cursor', async () => {
    const receiver = await startExportReceiver((n) => (n === 2 ? 503 : 200));
    const ref = await ledgerWithPipeline('refused', 12, receiver.url);
    const { queue, run } = await lambda();
    const message = (kind: 'wake' | 'retry', n: number): PipelineEventRecord => ({
      eventSource: 'aws:sqs',
      messageId: `${kind}-${n}`,
      body: JSON.stringify({ ...ref, kind }),
    });
    expect(await run([message('wake', 1)])).toEqual({ batchItemFailures: [] });
    expect(queue.sent).toEqual([{ ref, kind: 'retry', delaySeconds: 1 }]);
    expect(await run([message('wake', 2)])).toEqual({ batchItemFailures: [] });
    expect(queue.sent).toHaveLength(1);
    clock += 1000;
    expect(await run([message('retry', 3)])).toEqual({ batchItemFailures: [] });
    expect(idsOf(receiver)).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [6, 7, 8, 9, 10],
      [11, 12],
    ]);
    expect(queue.sent).toHaveLength(1);
    await receiver.close();
  });

  it('drains a pipeline named twice in one batch once; reports the messages of a drain that threw; drops what is no wake', async () => {
    const receiver = await startExportReceiver();
    const ref = await ledgerWithPipeline('twice', 4, receiver.url);
    const { run } = await lambda();
    const body = JSON.stringify({ ...ref, kind: 'wake' });
    expect(
      await run([
        { eventSource: 'aws:sqs', messageId: 'a', body },
        { eventSource: 'aws:sqs', messageId: 'b', body },
        { eventSource: 'aws:sqs', messageId: 'c', body: '{"not":"a wake"}' },
      ]),
    ).toEqual({ batchItemFailures: [] });
    expect(idsOf(receiver)).toEqual([[1, 2, 3, 4]]);
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.message)).toContain(
      'pipeline wake dropped: not a wake message',
    );

    // DynamoDB failing under the worker: a failure the real tables cannot be made to produce here.
    const broken = {
      drain: () => Promise.reject(new Error('DynamoDB unavailable')),
    } as unknown as PipelineWorker;
    const { run: runBroken } = await lambda({ worker: broken });
    expect(
      await runBroken([
        { eventSource: 'aws:sqs', messageId: 'x', body },
        { eventSource: 'aws:sqs', messageId: 'y', body },
      ]),
    ).toEqual({ batchItemFailures: [{ itemIdentifier: 'x' }, { itemIdentifier: 'y' }] });
    await receiver.close();
  });
});
