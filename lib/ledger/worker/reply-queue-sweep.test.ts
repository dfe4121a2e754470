/**
 * The sweep's paging of ListQueues. The SQS emulator answers every queue in one page and ignores NextToken, so the
 * pages SQS sends past 1,000 queues come from a client that answers as SQS does (its behaviour against the
 * emulator: test/integration/ledger/ledger-reply-sweep.test.ts).
 */
import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { replyQueuePrefix, sweepReplyQueues } from './reply-queue-sweep.js';

const INGRESS = 'https://sqs.eu-west-1.amazonaws.com/123456789012/prod-ledger-ingress';
const BASE = INGRESS.slice(0, INGRESS.lastIndexOf('/') + 1);
const NOW_MS = Date.UTC(2026, 10, 29, 12);
const DAY_S = 24 * 3600;

/** SQS's answers over a list of queues, `pageSize` a page, each created `ageSeconds` before NOW_MS. */
function pagingSqs(queues: Array<{ name: string; ageSeconds: number }>, pageSize: number) {
  const calls: Array<{ op: string; input: Record<string, unknown> }> = [];
  const send = async (command: unknown) => {
    const input = (command as { input: Record<string, unknown> }).input;
    if (command instanceof ListQueuesCommand) {
      calls.push({ op: 'list', input });
      const matching = queues.filter((q) => q.name.startsWith(String(input.QueueNamePrefix)));
      const from = input.NextToken ? Number(String(input.NextToken).slice('page-'.length)) : 0;
      const page = matching.slice(from, from + pageSize);
      return {
        QueueUrls: page.map((q) => BASE + q.name),
        ...(from + pageSize < matching.length ? { NextToken: `page-${from + pageSize}` } : {}),
      };
    }
    const name = String(input.QueueUrl).slice(BASE.length);
    const queue = queues.find((q) => q.name === name)!;
    if (command instanceof GetQueueAttributesCommand) {
      calls.push({ op: 'attributes', input });
      return {
        Attributes: { CreatedTimestamp: String(NOW_MS / 1000 - queue.ageSeconds) },
      };
    }
    if (command instanceof DeleteQueueCommand) {
      calls.push({ op: 'delete', input });
      return {};
    }
    throw new Error('unexpected command');
  };
  return { sqs: { send } as unknown as Pick<SQSClient, 'send'>, calls };
}

describe('the reply queue sweep over many pages', () => {
  it('follows NextToken to the last page and sweeps the old queues of every page', async () => {
    const prefix = replyQueuePrefix(INGRESS);
    const queues = Array.from({ length: 7 }, (_, i) => ({
      name: `${prefix}${i.toString(16).padStart(12, '0')}`,
      // Queues 0, 3 and 6 are two days old; the others an hour.
      ageSeconds: i % 3 === 0 ? 2 * DAY_S : 3600,
    }));
    const { sqs, calls } = pagingSqs(queues, 3);
    const tick = await sweepReplyQueues({ sqs, ingressQueueUrl: INGRESS, now: () => NOW_MS });
    expect(tick).toEqual({ found: 7, deleted: 3, failed: 0 });
    expect(calls.filter((c) => c.op === 'list').map((c) => c.input)).toEqual([
      { QueueNamePrefix: prefix, MaxResults: 1000 },
      { QueueNamePrefix: prefix, MaxResults: 1000, NextToken: 'page-3' },
      { QueueNamePrefix: prefix, MaxResults: 1000, NextToken: 'page-6' },
    ]);
    expect(
      calls
        .filter((c) => c.op === 'delete')
        .map((c) => String(c.input.QueueUrl).slice(-2))
        .sort(),
    ).toEqual(['00', '03', '06']);
  });
});
