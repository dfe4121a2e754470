import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { forEachLimited } from '../../async/for-each-limited.js';
import type { Logger } from '../../observability/logger.js';
import { isQueueGone } from '../../sqs/errors.js';
import { replyQueueName } from '../write/replies.js';

/**
 * The reply queues' sweeper (functions/ledger-reply-sweep.ts, started every hour by an EventBridge schedule): deletes
 * the reply queues of group commit (lib/ledger/write/replies.ts) created more than a day ago. Each ledger container
 * creates one at its first relayed write and never deletes it (a container is not told it ends), so without this they
 * would stay until SQS removes inactive queues, which it may do only after 30 days without use.
 *
 * SQS keeps no "last used" time of a queue: its age (`CreatedTimestamp`) stands in for it. A container lives far less
 * than a day, so a queue that old belongs to a container that is gone. Deleting the queue of one still alive is
 * harmless anyway: its receive fails with QueueDoesNotExist, its waiters fall back to their result items, and it
 * creates its queue again at its next relayed write (ReplyInbox).
 */

/** A reply queue older than this is swept. */
export const REPLY_QUEUE_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** DeleteQueue and GetQueueAttributes calls in flight at once: well under SQS's per-account control-plane rates. */
export const SWEEP_CONCURRENCY = 8;

export interface ReplyQueueSweepDeps {
  /** The caller's client (the function's, or a test's over the emulator); the sweep never closes it. */
  sqs: Pick<SQSClient, 'send'>;
  /** The ledger ingress queue's URL: reply queues are named after it. */
  ingressQueueUrl: string;
  /** Epoch milliseconds (default Date.now). */
  now?: () => number;
  /** A queue created longer ago than this is deleted (default a day). */
  maxAgeMs?: number;
  logger?: Logger;
}

export interface ReplyQueueSweepTick {
  /** Reply queues found (names that match exactly; the ingress queue and any other name are never counted). */
  found: number;
  /** Reply queues deleted. */
  deleted: number;
  /** Reply queues that could not be read or deleted (logged; the next sweep tries again). */
  failed: number;
}

/** ListQueues' largest page. */
const PAGE = 1000;
/** The 12 hex digits of a reply queue's name (`replyQueueName`). */
const SUFFIX_DIGITS = 12;

/** The name every reply queue of this ingress queue starts with: `<ingress name, shortened as replyQueueName does>-r-`. */
export function replyQueuePrefix(ingressQueueUrl: string): string {
  return replyQueueName(ingressQueueUrl, '0'.repeat(SUFFIX_DIGITS)).slice(0, -SUFFIX_DIGITS);
}

/** Whether a queue URL names one of this ingress queue's reply queues: the prefix, then exactly 12 hex digits. */
export function isReplyQueueUrl(ingressQueueUrl: string, queueUrl: string): boolean {
  const name = queueUrl.slice(queueUrl.lastIndexOf('/') + 1);
  const prefix = replyQueuePrefix(ingressQueueUrl);
  return name.startsWith(prefix) && /^[0-9a-f]{12}$/.test(name.slice(prefix.length));
}

/**
 * One sweep: lists the queues under the reply queues' prefix (every page), keeps the names that match exactly, and
 * deletes each created more than `maxAgeMs` ago, a few at a time. A queue that fails is logged and counted, and the
 * others are still swept; one already gone (deleted meanwhile) is neither deleted nor failed.
 */
export async function sweepReplyQueues(deps: ReplyQueueSweepDeps): Promise<ReplyQueueSweepTick> {
  const urls = (await listQueues(deps.sqs, replyQueuePrefix(deps.ingressQueueUrl))).filter((url) =>
    isReplyQueueUrl(deps.ingressQueueUrl, url),
  );
  const nowMs = (deps.now ?? Date.now)();
  const maxAgeMs = deps.maxAgeMs ?? REPLY_QUEUE_MAX_AGE_MS;
  const tick: ReplyQueueSweepTick = { found: urls.length, deleted: 0, failed: 0 };
  await forEachLimited(urls, SWEEP_CONCURRENCY, async (url) => {
    try {
      if (await sweepOne(deps.sqs, url, nowMs - maxAgeMs)) tick.deleted++;
    } catch (err) {
      tick.failed++;
      deps.logger?.log('error', 'reply queue sweep of a queue failed', {
        queueUrl: url,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    }
  });
  return tick;
}

/** Every queue URL whose name starts with `prefix`, page by page. */
async function listQueues(sqs: Pick<SQSClient, 'send'>, prefix: string): Promise<string[]> {
  const urls: string[] = [];
  let token: string | undefined;
  do {
    const page = await sqs.send(
      new ListQueuesCommand({
        QueueNamePrefix: prefix,
        MaxResults: PAGE,
        ...(token ? { NextToken: token } : {}),
      }),
    );
    urls.push(...(page.QueueUrls ?? []));
    token = page.NextToken;
  } while (token);
  return urls;
}

/** Deletes the queue if it was created before `cutoffMs`; true when it did. */
async function sweepOne(
  sqs: Pick<SQSClient, 'send'>,
  url: string,
  cutoffMs: number,
): Promise<boolean> {
  try {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['CreatedTimestamp'] }),
    );
    const createdSeconds = Number(Attributes?.CreatedTimestamp);
    if (!Number.isFinite(createdSeconds))
      throw new Error('GetQueueAttributes answered no CreatedTimestamp');
    if (createdSeconds * 1000 > cutoffMs) return false;
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    return true;
  } catch (err) {
    if (isQueueGone(err)) return false;
    throw err;
  }
}
