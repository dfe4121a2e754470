import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { type _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoLocal, startDynamoLocal } from '../../../infra/local/dynamodb-local.js';
import {
  createStreamPoller,
  POSITION_MARKER_PK,
  type StreamBatchResult,
  type StreamCheckpoints,
} from '../../../infra/local/pollers/stream-poller.js';
import { ensureTables } from '../../../infra/local/provision.js';
import { WriteSignal } from '../../../infra/local/write-signal.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

const local = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};
let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let table: string;
/**
 * A DynamoDB Local of this file's own: GetRecords there costs time in proportion to every stream record the
 * database holds (test/support/platform.ts), and the run's shared one holds the whole run's writes.
 */
let dynamoLocal: DynamoLocal;

beforeAll(async () => {
  dynamoLocal = await startDynamoLocal();
  dynamo = new DynamoDBClient({ ...local, endpoint: dynamoLocal.endpoint });
  streams = new DynamoDBStreamsClient({ ...local, endpoint: dynamoLocal.endpoint });
  table = (await ensureTables(dynamo, 'poller-')).EVENTS_TABLE!;
});
afterAll(async () => {
  dynamo?.destroy();
  streams?.destroy();
  await dynamoLocal?.stop();
});

const put = (id: string, into = table) =>
  dynamo.send(
    new PutItemCommand({
      TableName: into,
      Item: { pk: { S: `E#default#EVENT#${id}` }, sk: { S: 'EVENT' } },
    }),
  );
const idsOf = (records: _Record[]) =>
  records.map((r) => r.dynamodb?.NewImage?.pk?.S?.slice('E#default#EVENT#'.length));

async function until(check: () => boolean, ms = WAIT_LIMIT_MS) {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(check()).toBe(true);
}

describe('stream poller', () => {
  it('backs off while idle, and a write told of wakes it at once', async () => {
    const seen: Array<string | undefined> = [];
    const writes = new WriteSignal();
    let getRecords = 0;
    const counted = new DynamoDBStreamsClient({ ...local, endpoint: dynamoLocal.endpoint });
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetRecordsCommand') getRecords++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const poller = createStreamPoller({
      dynamo,
      streams: counted,
      table,
      intervalMs: 20,
      // An idle pause longer than the whole test: only the signal can end it.
      idleMaxMs: 600_000,
      wakeOn: writes,
      handler: async (records) => {
        seen.push(...idsOf(records));
        return { batchItemFailures: [] };
      },
    });
    await poller.start();
    // Idle for a second: 20, 40, 80, 160, 320, 640 ms pauses — about 6 polls per shard, not 50.
    await new Promise((r) => setTimeout(r, 1_000));
    const idlePolls = getRecords;
    expect(idlePolls).toBeLessThan(20);
    await put('woken');
    writes.notify();
    await until(() => seen.includes('woken'));
    await poller.stop();
    counted.destroy();
  });

  it('after a poll that read records, pauses busyPauseMs: a burst written meanwhile comes in one batch', async () => {
    const batches: Array<Array<string | undefined>> = [];
    const poller = createStreamPoller({
      dynamo,
      streams,
      table,
      intervalMs: 20,
      // Long enough for the burst below to be written whatever the machine's load.
      busyPauseMs: 5_000,
      handler: async (records) => {
        batches.push(idsOf(records));
        return { batchItemFailures: [] };
      },
    });
    await poller.start();
    await put('burst-0');
    await until(() => batches.some((b) => b.includes('burst-0')));
    for (const n of [1, 2, 3, 4]) await put(`burst-${n}`);
    await until(() => batches.some((b) => b.includes('burst-4')));
    await poller.stop();
    const first = batches.findIndex((b) => b.includes('burst-0'));
    expect(batches.slice(first)).toEqual([
      ['burst-0'],
      ['burst-1', 'burst-2', 'burst-3', 'burst-4'],
    ]);
  });

  it('starts after what is already in the stream, retries from the first failed record, and stops cleanly', async () => {
    await put('before-start');
    const calls: Array<Array<string | undefined>> = [];
    let failOnce = true;
    const poller = createStreamPoller({
      dynamo,
      streams,
      table,
      intervalMs: 50,
      backoffMs: 20,
      handler: async (records): Promise<StreamBatchResult> => {
        calls.push(idsOf(records));
        const second = records.find((r) => r.dynamodb?.NewImage?.pk?.S === 'E#default#EVENT#b');
        if (second && failOnce) {
          failOnce = false;
          return { batchItemFailures: [{ itemIdentifier: second.dynamodb!.SequenceNumber! }] };
        }
        return { batchItemFailures: [] };
      },
    });
    await poller.start();
    await put('a');
    await put('b');
    await put('c');
    await until(
      () => calls.flat().filter((id) => id === 'b').length === 2 && calls.at(-1)?.at(-1) === 'c',
    );
    // Whatever batches the writes fell into: every record handed over in order, `b` twice (its retry starts at
    // it, `a` is not handed over again), nothing from before start.
    const seen = calls.flat();
    expect(seen).not.toContain('before-start');
    expect(seen.filter((id) => id === 'a')).toHaveLength(1);
    expect(seen.filter((id) => id === 'b')).toHaveLength(2);
    const retried = calls.findIndex((batch) => batch.includes('b'));
    expect(calls[retried + 1]?.[0]).toBe('b');

    await poller.stop();
    const count = calls.length;
    await put('after-stop');
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.length).toBe(count);
  });

  it('retries a batch whose handler throws, and stop() interrupts the backoff', async () => {
    let calls = 0;
    const poller = createStreamPoller({
      dynamo,
      streams,
      table,
      intervalMs: 50,
      backoffMs: 10_000,
      handler: async () => {
        calls++;
        throw new Error('boom');
      },
    });
    await poller.start();
    await put('x');
    await until(() => calls === 1);
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(calls).toBe(1);
  });

  it('with checkpoints: resumes after the saved one on restart, and reads a shard it has none for from its beginning', async () => {
    const own = (await ensureTables(dynamo, 'poller-own-')).EVENTS_TABLE!;
    const putOwn = (id: string) =>
      dynamo.send(
        new PutItemCommand({
          TableName: own,
          Item: { pk: { S: `E#default#EVENT#${id}` }, sk: { S: 'EVENT' } },
        }),
      );
    const saved = new Map<string, string>();
    const checkpoints: StreamCheckpoints = {
      load: async (arn) =>
        new Map(
          [...saved]
            .filter(([k]) => k.startsWith(`${arn}|`))
            .map(([k, v]) => [k.slice(arn.length + 1), v]),
        ),
      save: async (arn, shard, sequenceNumber) => void saved.set(`${arn}|${shard}`, sequenceNumber),
    };
    const seen: Array<string | undefined> = [];
    const start = async () => {
      const poller = createStreamPoller({
        dynamo,
        streams,
        table: own,
        intervalMs: 50,
        checkpoints,
        handler: async (records) => {
          seen.push(...idsOf(records));
          return { batchItemFailures: [] };
        },
      });
      await poller.start();
      return poller;
    };

    // Written before the first start, with no checkpoint yet: read from the shard's beginning.
    await putOwn('before-first-start');
    let poller = await start();
    await putOwn('one');
    await until(() => seen.includes('one'));
    await poller.stop();
    expect(seen).toEqual(['before-first-start', 'one']);
    expect(saved.size).toBeGreaterThan(0);

    // Written while stopped: handed over after the restart, and nothing before the checkpoint again.
    await putOwn('while-stopped');
    poller = await start();
    await putOwn('two');
    await until(() => seen.includes('two'));
    await poller.stop();
    expect(seen).toEqual(['before-first-start', 'one', 'while-stopped', 'two']);
  });

  it('while records flow saves a checkpoint at most every checkpointEveryMs, and the latest once caught up', async () => {
    const own = (await ensureTables(dynamo, 'poller-throttled-')).EVENTS_TABLE!;
    for (const id of ['r1', 'r2', 'r3', 'r4', 'r5'])
      await dynamo.send(
        new PutItemCommand({
          TableName: own,
          Item: { pk: { S: `E#default#EVENT#${id}` }, sk: { S: 'EVENT' } },
        }),
      );
    const saves: string[] = [];
    const sequenceOf = new Map<string, string>();
    const poller = createStreamPoller({
      dynamo,
      streams,
      table: own,
      intervalMs: 50,
      // One record a batch: five batches, all within one save interval.
      batchSize: 1,
      checkpointEveryMs: 60_000,
      checkpoints: {
        load: async () => new Map(),
        save: async (_arn, _shard, sequenceNumber) => void saves.push(sequenceNumber),
      },
      handler: async (records) => {
        for (const r of records) sequenceOf.set(idsOf([r])[0]!, r.dynamodb?.SequenceNumber ?? '');
        return { batchItemFailures: [] };
      },
    });
    await poller.start();
    await until(() => saves.length === 2);
    // The first batch's checkpoint, then — once a read found nothing new — the last one; none between.
    expect(saves).toEqual([sequenceOf.get('r1'), sequenceOf.get('r5')]);
    await poller.stop();
    expect(saves.length).toBe(2);
  });

  it('after a slow empty read writes a position marker to its table, reads on after it, and never hands it over', async () => {
    // A table of its own, read from its beginning: every record it holds is this test's.
    const own = (await ensureTables(dynamo, 'poller-marker-')).EVENTS_TABLE!;
    const seen: Array<string | undefined> = [];
    const saved: string[] = [];
    const checkpoints: StreamCheckpoints = {
      load: async () => new Map(),
      save: async (_arn, _shard, sequenceNumber) => {
        saved.push(sequenceNumber);
      },
    };
    const poller = createStreamPoller({
      dynamo,
      streams,
      table: own,
      intervalMs: 20,
      // Every empty read counts as slow: markers are written at most once per interval.
      staleReadMs: 0,
      checkpoints,
      handler: async (records) => {
        seen.push(...idsOf(records));
        return { batchItemFailures: [] };
      },
    });
    await poller.start();
    try {
      // The poller read its own markers back: each moved its checkpoint without a hand-over.
      await until(() => saved.length >= 2);
      expect(seen).toEqual([]);
      await put('after-markers', own);
      await until(() => seen.length === 1);
      const afterRecord = saved.length;
      await until(() => saved.length >= afterRecord + 2);
    } finally {
      await poller.stop();
    }
    expect(seen).toEqual(['after-markers']);
    // Every checkpoint is later than the one before: markers and the record, in stream order.
    const numbers = saved.map((n) => BigInt(n));
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
    const { Item } = await dynamo.send(
      new GetItemCommand({
        TableName: own,
        Key: { pk: { S: POSITION_MARKER_PK }, sk: { S: POSITION_MARKER_PK } },
      }),
    );
    expect(Item?.pk?.S).toBe(POSITION_MARKER_PK);
  });
});
