import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { IntentResult } from './intent.js';
import { LedgerRelay } from './relay.js';
import type { ReplyInbox } from './replies.js';
import { createOne, testLedger } from './test-support.js';

const ledger = testLedger('relay');
const committed = { status: 'committed', outcomes: [] } as unknown as IntentResult;

/**
 * A relay on a fake clock whose writer replies `replyAfterMs` after each request (no result item is ever found):
 * what it waits before reading a result item, request after request.
 */
function slowWriter(replyAfterMs: number) {
  let clock = 0;
  let pending: { dueMs: number; resolve: (r: IntentResult) => void } | undefined;
  const firstPauses: number[] = [];
  let pauses = 0;
  const inbox = {
    address: async () => 'reply-queue',
    wait: () => {
      const reply = new Promise<IntentResult>((resolve) => {
        pending = { dueMs: clock + replyAfterMs, resolve };
      });
      return { reply, cancel: () => {} };
    },
  } as unknown as ReplyInbox;
  const relay = new LedgerRelay({
    doc: { send: async () => ({}) } as unknown as DynamoDBDocumentClient,
    sqs: async () => ({ send: async () => ({}) }) as never,
    queueUrl: 'ingress',
    tableFor: () => 'table',
    inbox: async () => inbox,
    now: () => clock,
    sleep: async (ms) => {
      if (pauses++ === 0) firstPauses.push(ms);
      clock += ms;
      if (pending && clock >= pending.dueMs) {
        pending.resolve(committed);
        pending = undefined;
      }
      // The reply, when due, settles before the pause does.
      await new Promise((r) => setTimeout(r, 0));
    },
  });
  return {
    firstPauses,
    request: async () => {
      pauses = 0;
      return relay.submit(ledger, createOne('world', 'a', 1n));
    },
  };
}

describe("a relayed request's wait for its reply", () => {
  it('learns from late replies too: a writer that always answers in 3 s raises how long a reply is awaited', async () => {
    const writer = slowWriter(3_000);
    for (let i = 0; i < 3; i++) expect(await writer.request()).toBe(committed);
    // Each reply is seen at 3,550 ms (the pause that passes 3 s: 2,000 + 50 + 100 + 200 + 400 + 800). The usual
    // reply time is then 710 ms after one, 1,278 after two: the third request waits twice that, 2,556 ms.
    expect(writer.firstPauses).toEqual([2_000, 2_000, 2_556]);
  });
});
