import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import { ledgerKeys } from '../store/keys.js';
import { decodeResult, encodeIntent, type IntentResult } from './intent.js';
import type { ReplyInbox } from './replies.js';

export interface RelayOptions {
  doc: DynamoDBDocumentClient;
  /**
   * Asked at each send: the function loads the SQS module and builds its client at the first relay
   * (lib/sqs/lazy-client.ts, `lazySqsClient`).
   */
  sqs: () => Promise<SQSClient>;
  /** The ledger ingress queue the sequenced writer is fed from. */
  queueUrl: string;
  tableFor: (bucket: string) => string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How long the writer may take to decide a relayed request (API Gateway gives a request 29 s in all). */
  deadlineMs?: number;
  /** Beyond the deadline: the writer's commit time and clock skew, after which no answer will come. */
  graceMs?: number;
  /**
   * The reply channel: answers come there; the result item is read only when one is late (`replyLateMs`). Asked
   * at the first relay, so its module loads then, not at start-up.
   */
  inbox?: () => Promise<ReplyInbox>;
  /** With a reply channel: no reply this long after sending, and the result item is read. Default REPLY_LATE_MS. */
  replyLateMs?: number;
}

export const DEFAULT_DEADLINE_MS = 8_000;
export const DEFAULT_GRACE_MS = 3_000;
/** Before the first read of the result item (a batch commit takes about that), then between two reads. */
const FIRST_POLL_MS = 15;
const POLL_MS = 20;
/**
 * With a reply channel: no reply this long after sending, and the result item is read as without one. As long as
 * a resend waits (RESEND_MS): a reply is lost only when something failed, and a busy writer's first answers to a
 * fresh container can take a second or more (its usual reply time is not known yet).
 */
const REPLY_LATE_MS = 2_000;
/** The most a busy writer's usual reply time raises that: well before the deadline, when a resend may be due. */
const REPLY_LATE_MAX_MS = 4_000;
/**
 * With a reply channel, between two reads of a late reply's result item: doubling from the first, up to the last.
 * A reply is late mostly because the writer is busy, and reading every few milliseconds from every waiting
 * container would only make the busy table slower; a lost reply is still found within a second.
 */
const LATE_POLL_FIRST_MS = 50;
const LATE_POLL_MAX_MS = 1_000;
/** Without an answer this long, the request is sent again (same id). */
const RESEND_MS = 2_000;

/** What a relayed request became; `unknown` when no answer came in time (the writer stopped or is far behind). */
export type RelayAnswer = IntentResult | { status: 'unknown' };

/** Where a write is handed to be committed by a ledger's sequenced writer, and answered. */
export interface IntentSink {
  submit(ledger: LedgerRecord, operation: LedgerOperation): Promise<RelayAnswer>;
  /**
   * Operations handed over together, in order (Intent.group when `stopOnFailure`): their request ids, in order,
   * and their answers. Only where the sink can keep them together (the embedded engine).
   */
  submitGroup?(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
    options: { stopOnFailure: boolean },
  ): { reqIds: string[]; answers: Promise<RelayAnswer[]> };
  /** Operations handed over as one atomic group (Intent.atomic): only the embedded engine. */
  submitAtomic?(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
  ): { reqIds: string[]; answers: Promise<RelayAnswer[]> };
}

/**
 * The requester's side of group commit: a write handed to the ledger's sequenced writer through the ingress
 * queue, then answered on the reply channel (replies.ts) — or, without one or when a reply is late, its result
 * read back (one GetItem at a time) until the writer answers.
 */
export class LedgerRelay implements IntentSink {
  /** Moving average of how long answers took after the request was sent: read from the result item, */
  private typicalWaitMs = 0;
  /** and on the reply channel (replies only). */
  private typicalReplyMs = 0;
  private inbox: ReplyInbox | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RelayOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async submit(ledger: LedgerRecord, operation: LedgerOperation): Promise<RelayAnswer> {
    const reqId = randomUUID();
    const started = this.now();
    const deadlineAtMs = started + (this.options.deadlineMs ?? DEFAULT_DEADLINE_MS);
    const replyTo = await this.replyAddress();
    const wait = replyTo ? this.inbox?.wait(reqId) : undefined;
    try {
      const body = encodeIntent({
        reqId,
        environment: ledger.environment,
        ledger: ledger.name,
        operation,
        deadline: deadlineAtMs,
        ...(replyTo ? { replyTo } : {}),
      });
      return await this.answerOf(ledger, reqId, body, deadlineAtMs, wait?.reply);
    } finally {
      wait?.cancel();
    }
  }

  /** The reply queue, or none (no channel, or it could not be created: the result item is read instead). */
  private async replyAddress(): Promise<string | undefined> {
    try {
      this.inbox ??= await this.options.inbox?.();
      return await this.inbox?.address();
    } catch {
      return undefined;
    }
  }

  /** Sends the request, then waits for its reply or reads its result item, sending it again while unanswered. */
  private async answerOf(
    ledger: LedgerRecord,
    reqId: string,
    body: string,
    deadlineAtMs: number,
    reply: Promise<IntentResult> | undefined,
  ): Promise<RelayAnswer> {
    const send = async () => {
      // Loaded here, not at start-up: most ledger functions never relay (lazySqsClient says what it saves).
      const [client, { SendMessageCommand }] = await Promise.all([
        this.options.sqs(),
        import('@aws-sdk/client-sqs'),
      ]);
      await client.send(
        new SendMessageCommand({ QueueUrl: this.options.queueUrl, MessageBody: body }),
      );
    };
    await send();
    const sent = this.now();
    let lastSent = sent;
    const key = ledgerKeys.result(ledger, reqId);
    const table = this.options.tableFor(ledger.bucket);
    const giveUp = deadlineAtMs + (this.options.graceMs ?? DEFAULT_GRACE_MS);
    // Every reply, early or late, teaches the container how long replies take (never a result item's read: its
    // wait would feed the threshold that delays it).
    const learned = reply?.then((result) => {
      this.typicalReplyMs = this.typicalReplyMs * 0.8 + (this.now() - sent) * 0.2;
      return result;
    });
    // A pause that ends early with the reply when one comes.
    const pause = async (ms: number): Promise<IntentResult | undefined> =>
      Promise.race([...(learned ? [learned] : []), this.sleep(ms).then(() => undefined)]);
    // First look a little before answers have been coming lately: fewer reads of the result item, each of which
    // a busy DynamoDB pays for; the 3/4 factor keeps the estimate from feeding on its own delay.
    // With a channel, a reply is late only well past the usual wait: a busy writer answers everyone late, and
    // reading every late request's item would only slow it down further.
    const replied = await pause(
      reply
        ? Math.max(
            this.options.replyLateMs ?? REPLY_LATE_MS,
            Math.min(REPLY_LATE_MAX_MS, this.typicalReplyMs * 2),
          )
        : Math.max(FIRST_POLL_MS, this.typicalWaitMs * 0.75),
    );
    if (replied) return replied;
    let pollMs = reply ? LATE_POLL_FIRST_MS : POLL_MS;
    for (;;) {
      const { Item } = await this.options.doc.send(
        new GetCommand({ TableName: table, Key: key, ConsistentRead: true }),
      );
      if (Item) {
        this.typicalWaitMs = this.typicalWaitMs * 0.8 + (this.now() - sent) * 0.2;
        return decodeResult(String(Item.result));
      }
      const now = this.now();
      if (now >= giveUp) return { status: 'unknown' };
      // A writer that took the message and stopped hides it for the queue's visibility timeout (a minute): send it
      // again. The writer decides a request id once, whatever the number of copies (LedgerSequencer).
      if (now - lastSent >= RESEND_MS && now < deadlineAtMs) {
        await send();
        lastSent = now;
      }
      const late = await pause(pollMs);
      if (late) return late;
      if (reply) pollMs = Math.min(LATE_POLL_MAX_MS, pollMs * 2);
    }
  }
}
