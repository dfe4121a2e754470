/**
 * The reply queues' sweeper against the SQS emulator (fauxqs): it deletes the ledger's reply queues
 * (`<ingress>-r-<12 hex>`) created more than a day ago, and never the ingress queue or a queue of any other name.
 * fauxqs stamps CreatedTimestamp with the real clock, so the sweep is given its clock instead (`now`).
 */
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsLocal, startSqsLocal } from '../../../infra/local/sqs-local.js';
import {
  REPLY_QUEUE_MAX_AGE_MS,
  sweepReplyQueues,
} from '../../../lib/ledger/worker/reply-queue-sweep.js';
import { createSqsClient } from '../../../lib/sqs/client.js';

let sqsLocal: SqsLocal;
let sqs: SQSClient;

beforeAll(async () => {
  sqsLocal = await startSqsLocal();
  sqs = createSqsClient({ region: 'us-east-1', endpoint: sqsLocal.endpoint });
});

afterAll(async () => {
  sqs?.destroy();
  await sqsLocal?.stop();
});

const create = async (name: string): Promise<string> =>
  (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;

const createdSeconds = async (url: string): Promise<number> =>
  Number(
    (
      await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['CreatedTimestamp'] }),
      )
    ).Attributes!.CreatedTimestamp,
  );

/** The names of the queues that start with `prefix`, sorted. */
const remaining = async (prefix: string): Promise<string[]> =>
  ((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls ?? [])
    .map((url) => url.slice(url.lastIndexOf('/') + 1))
    .sort();

/** Waits for the clock's next second: CreatedTimestamp counts whole seconds. */
async function nextSecond(after: number): Promise<void> {
  while (Math.floor(Date.now() / 1000) <= after) await new Promise((r) => setTimeout(r, 50));
}

describe('sweepReplyQueues', () => {
  it('deletes the reply queues older than a day, keeps the younger one, the ingress queue and every other name', async () => {
    const ingressName = `ledger-ingress-${randomUUID().slice(0, 8)}`;
    const ingress = await create(ingressName);
    // Names close to a reply queue's, which are not one: too short, upper-case, a tail after the digits, no `r`.
    const others = [
      `${ingressName}-r-0123456789a`,
      `${ingressName}-r-0123456789AB`,
      `${ingressName}-r-0123456789ab-x`,
      `${ingressName}-x-0123456789ab`,
      `${ingressName}-dlq`,
    ];
    for (const name of others) await create(name);
    const old = await create(`${ingressName}-r-aaaaaaaaaaaa`);
    const oldCreated = await createdSeconds(old);
    await nextSecond(oldCreated);
    const young = await create(`${ingressName}-r-bbbbbbbbbbbb`);
    expect(await createdSeconds(young)).toBeGreaterThan(oldCreated);

    // A day after the old queue was created: it (and every other name above) is a day old, the young one is not.
    const tick = await sweepReplyQueues({
      sqs,
      ingressQueueUrl: ingress,
      now: () => oldCreated * 1000 + REPLY_QUEUE_MAX_AGE_MS,
    });

    expect(tick).toEqual({ found: 2, deleted: 1, failed: 0 });
    expect(await remaining(ingressName)).toEqual(
      [ingressName, ...others, `${ingressName}-r-bbbbbbbbbbbb`].sort(),
    );

    // A second sweep a day later still touches nothing but the reply queue.
    const later = await sweepReplyQueues({
      sqs,
      ingressQueueUrl: ingress,
      now: () => Date.now() + 1000,
      maxAgeMs: 0,
    });
    expect(later).toEqual({ found: 1, deleted: 1, failed: 0 });
    expect(await remaining(ingressName)).toEqual([ingressName, ...others].sort());
  });

  it('a queue whose DeleteQueue fails is counted and logged; the others are still deleted', async () => {
    const ingressName = `ledger-ingress-${randomUUID().slice(0, 8)}`;
    const ingress = await create(ingressName);
    const names = ['111111111111', '222222222222', '333333333333', '444444444444'].map(
      (digits) => `${ingressName}-r-${digits}`,
    );
    const urls = [];
    for (const name of names) urls.push(await create(name));
    const failing = urls[1]!;
    // The one stand-in: SQS itself, except that deleting one queue fails.
    const flaky: Pick<SQSClient, 'send'> = {
      send: ((command: unknown) => {
        if (command instanceof DeleteQueueCommand && command.input.QueueUrl === failing)
          return Promise.reject(
            Object.assign(new Error('throttled'), { name: 'RequestThrottled' }),
          );
        return sqs.send(command as never);
      }) as SQSClient['send'],
    };
    const logged: Array<{ message: string; fields: unknown }> = [];

    const tick = await sweepReplyQueues({
      sqs: flaky,
      ingressQueueUrl: ingress,
      now: () => Date.now() + 1000,
      maxAgeMs: 0,
      logger: { log: (_level, message, fields) => logged.push({ message, fields }) },
    });

    expect(tick).toEqual({ found: 4, deleted: 3, failed: 1 });
    expect(await remaining(ingressName)).toEqual([ingressName, names[1]!]);
    expect(logged).toEqual([
      {
        message: 'reply queue sweep of a queue failed',
        fields: { queueUrl: failing, error: 'RequestThrottled: throttled' },
      },
    ]);
  });
});
