/**
 * On the local platform (log tail → dispatch → queue poller → deliver): deleting or deactivating a config
 * while one of its deliveries waits for a retry cancels it at once, and the retry is never sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform, until } from '../support/platform.js';

let platform: RunningPlatform;
let sqs: SQSClient;
let receiver: Server;
let receiverUrl: string;
/** Requests received, per path. */
const received = new Map<string, string[]>();

const api = (method: string, path: string, body?: unknown) =>
  platformCall(platform, method, path, body);

/** Messages on the deliveries queue: visible, in flight or delayed. */
async function queued(): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: platform.variables.DELIVERIES_QUEUE_URL!,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const seen = received.get(req.url ?? '') ?? [];
      seen.push(String(req.headers['webhook-id']));
      received.set(req.url ?? '', seen);
      // The first request to each path fails, so its delivery waits for a retry.
      res.writeHead(seen.length === 1 ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  platform = await startTestPlatform();
  sqs = new SQSClient({
    endpoint: platform.variables.SQS_ENDPOINT!,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  expect((await api('POST', '/api/ledger/v2/cancels')).status).toBe(204);
});

afterAll(async () => {
  sqs?.destroy();
  await platform?.stop();
  await new Promise((r) => receiver?.close(r));
});

describe('cancelling pending deliveries on the local platform', () => {
  for (const action of ['delete', 'deactivate'] as const) {
    it(`${action} while a retry is scheduled: the delivery is cancelled and the retry never sent`, async () => {
      const path = `/hook-${action}`;
      const created = await api('POST', '/api/webhooks/configs', {
        endpoint: `${receiverUrl}${path}`,
        eventTypes: ['ledger.committed_transactions'],
      });
      expect(created.status).toBe(200);
      const configId: string = created.body.data.id;
      const tx = await api('POST', '/api/ledger/v2/cancels/transactions', {
        postings: [{ source: 'world', destination: 'a', amount: 1, asset: 'USD' }],
      });
      expect(tx.status).toBe(200);

      // Attempt 1 answered 500 and recorded; the retry waits on the queue (about 5 s).
      const id = await until('the first attempt', async () => received.get(path)?.[0]);
      await until('the attempt to be recorded', async () => {
        const { body } = await api('GET', `/api/webhooks/deliveries/${id}`);
        return body?.data?.attemptCount === 1 && body.data.status === 'pending' ? true : undefined;
      });

      const res =
        action === 'delete'
          ? await api('DELETE', `/api/webhooks/configs/${configId}`)
          : await api('PUT', `/api/webhooks/configs/${configId}/deactivate`);
      expect(res.status).toBe(200);
      const { body } = await api('GET', `/api/webhooks/deliveries/${id}`);
      expect(body.data).toMatchObject({
        id,
        configID: configId,
        status: 'cancelled',
        attemptCount: 1,
      });
      expect(body.data.nextAttemptAt).toBeUndefined();
      const listed = await api(
        'GET',
        `/api/webhooks/deliveries?configId=${configId}&status=cancelled`,
      );
      expect(listed.body.cursor.data.map((d: { id: string }) => d.id)).toEqual([id]);

      // Once the retry message has come and gone, nothing more was sent.
      await until('the queue to drain', async () => ((await queued()) === 0 ? true : undefined));
      expect(received.get(path)).toEqual([id]);
      expect((await api('GET', `/api/webhooks/deliveries/${id}`)).body.data).toMatchObject({
        status: 'cancelled',
        attemptCount: 1,
      });
      const attempts = await api('GET', `/api/webhooks/deliveries/${id}/attempts`);
      expect(
        attempts.body.cursor.data.map((a: { attemptNumber: number; statusCode: number }) => [
          a.attemptNumber,
          a.statusCode,
        ]),
      ).toEqual([[1, 500]]);
    });
  }
});
