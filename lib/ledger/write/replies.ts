import { randomBytes } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { Logger } from '../../observability/logger.js';
import { isQueueGone } from '../../sqs/errors.js';
import type { IntentResult } from './intent.js';

/**
 * The reply channel of group commit: a relayed request names its requester's reply queue (`Intent.replyTo`), and the
 * ledger writer sends the results there right after writing them — the requester waits on one long poll shared by
 * all its requests in flight instead of reading its result item every 20 ms. The result item stays the record
 * (and the fallback: a requester without an answer on the channel reads it, as before).
 *
 * One queue per requester process (a Lambda container), created at its first relayed write and named after the
 * ingress queue so one IAM prefix covers them all. Its messages live 60 s (SQS's least) and stay hidden longer
 * than that once received, so the requester never deletes them: a reply is read once and then expires.
 */

export interface Reply {
  reqId: string;
  result: IntentResult;
}

/** A reply queue's name: the ingress queue's, `-r-`, 12 random hex digits (80 characters at most, SQS's limit). */
export function replyQueueName(
  ingressQueueUrl: string,
  random = randomBytes(6).toString('hex'),
): string {
  const ingress = ingressQueueUrl.slice(ingressQueueUrl.lastIndexOf('/') + 1);
  return `${ingress.slice(0, 80 - 3 - random.length)}-r-${random}`;
}

/** A reply message's body: several requests' results, exact JSON (amounts are big integers). */
export const encodeReplies = (replies: readonly Reply[]): string => stringifyJson({ replies });

export function decodeReplies(text: string): Reply[] {
  const value = parseJson(text) as { replies?: unknown };
  if (!Array.isArray(value.replies)) throw new Error('not a reply message');
  return value.replies.filter(
    (r): r is Reply =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as Reply).reqId === 'string' &&
      typeof (r as Reply).result === 'object',
  );
}

/** Bytes of replies per message: well under SQS's 256 KiB. */
const MESSAGE_BYTES = 200_000;
/** A reply queue's messages: kept SQS's least, hidden longer once received (never seen twice, never deleted). */
const RETENTION_SECONDS = 60;
const HIDDEN_SECONDS = 120;

/** The writer's side: each requester's replies, packed into as few messages as fit, 10 messages per request. */
export async function sendReplies(
  sqs: SQSClient,
  replies: ReadonlyArray<Reply & { replyTo: string }>,
): Promise<void> {
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const byQueue = new Map<string, Reply[]>();
  for (const { replyTo, reqId, result } of replies)
    byQueue.set(replyTo, [...(byQueue.get(replyTo) ?? []), { reqId, result }]);
  await Promise.all(
    [...byQueue].map(async ([queueUrl, queued]) => {
      const bodies = packed(queued);
      for (let i = 0; i < bodies.length; i += 10) {
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: bodies
              .slice(i, i + 10)
              .map((body, j) => ({ Id: String(j), MessageBody: body })),
          }),
        );
      }
    }),
  );
}

function packed(replies: readonly Reply[]): string[] {
  const bodies: string[] = [];
  let current: Reply[] = [];
  let bytes = 0;
  for (const reply of replies) {
    const size = Buffer.byteLength(stringifyJson(reply));
    if (current.length > 0 && bytes + size > MESSAGE_BYTES) {
      bodies.push(encodeReplies(current));
      current = [];
      bytes = 0;
    }
    current.push(reply);
    bytes += size;
  }
  if (current.length > 0) bodies.push(encodeReplies(current));
  return bodies;
}

export interface ReplyInboxOptions {
  sqs: () => Promise<SQSClient>;
  /** The ledger ingress queue: the reply queue is named after it. */
  ingressQueueUrl: string;
  /** Long-poll length of one receive, seconds (default 5). */
  waitSeconds?: number;
  logger?: Logger;
}

/** A wait for one request's reply; `cancel` when the answer came some other way. */
export interface ReplyWait {
  reply: Promise<IntentResult>;
  cancel(): void;
}

/**
 * The requester's side: its reply queue (created at first use) and one receive loop, running while any request
 * waits, that hands each reply to its waiter. Replies nobody waits for any more (answered by the fallback read)
 * are dropped. A channel that fails (the queue cannot be created or was deleted) only leaves requests to the
 * fallback: the queue is created again at the next request.
 */
export class ReplyInbox {
  private queueUrl: Promise<string> | undefined;
  private readonly waiting = new Map<string, (result: IntentResult) => void>();
  private receiving = false;

  constructor(private readonly options: ReplyInboxOptions) {}

  /** The reply queue's URL, creating the queue at the first call. */
  address(): Promise<string> {
    this.queueUrl ??= this.create().catch((err) => {
      this.queueUrl = undefined;
      throw err;
    });
    return this.queueUrl;
  }

  /** Waits for `reqId`'s reply: register before the request is sent, so no reply can come first. */
  wait(reqId: string): ReplyWait {
    let cancel = () => {};
    const reply = new Promise<IntentResult>((resolve) => {
      this.waiting.set(reqId, resolve);
      cancel = () => this.waiting.delete(reqId);
    });
    void this.receive();
    return { reply, cancel };
  }

  private async create(): Promise<string> {
    const [client, { CreateQueueCommand }] = await Promise.all([
      this.options.sqs(),
      import('@aws-sdk/client-sqs'),
    ]);
    const { QueueUrl } = await client.send(
      new CreateQueueCommand({
        QueueName: replyQueueName(this.options.ingressQueueUrl),
        Attributes: {
          MessageRetentionPeriod: String(RETENTION_SECONDS),
          VisibilityTimeout: String(HIDDEN_SECONDS),
        },
      }),
    );
    if (!QueueUrl) throw new Error('CreateQueue answered no queue URL');
    return QueueUrl;
  }

  /** The receive loop: one at a time, while anyone waits. */
  private async receive(): Promise<void> {
    if (this.receiving) return;
    this.receiving = true;
    try {
      const [client, { ReceiveMessageCommand }] = await Promise.all([
        this.options.sqs(),
        import('@aws-sdk/client-sqs'),
      ]);
      while (this.waiting.size > 0) {
        const { Messages = [] } = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: await this.address(),
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: this.options.waitSeconds ?? 5,
          }),
        );
        for (const message of Messages) this.deliver(message.Body ?? '');
      }
    } catch (err) {
      // The waiters fall back to their result items; the next request starts the loop (and, if the queue is gone,
      // creates it) again.
      if (isQueueGone(err)) this.queueUrl = undefined;
      this.options.logger?.log(
        'warn',
        'ledger relay: reply channel failed; reading results instead',
        {
          error: `${(err as Error).name}: ${(err as Error).message}`,
        },
      );
    } finally {
      this.receiving = false;
    }
  }

  private deliver(body: string): void {
    let replies: Reply[];
    try {
      replies = decodeReplies(body);
    } catch {
      return;
    }
    for (const { reqId, result } of replies) {
      const resolve = this.waiting.get(reqId);
      if (!resolve) continue;
      this.waiting.delete(reqId);
      resolve(result);
    }
  }
}
