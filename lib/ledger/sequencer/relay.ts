import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import { ledgerKeys } from '../store/keys.js';
import { decodeResult, encodeIntent, type IntentResult } from './intent.js';

export interface RelayOptions {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  /** The ledger ingress queue the sequenced writer is fed from. */
  queueUrl: string;
  tableFor: (bucket: string) => string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How long the writer may take to decide a relayed request (API Gateway gives a request 29 s in all). */
  deadlineMs?: number;
  /** Beyond the deadline: the writer's commit time and clock skew, after which no answer will come. */
  graceMs?: number;
}

export const DEFAULT_DEADLINE_MS = 8_000;
export const DEFAULT_GRACE_MS = 3_000;
/** Between two reads of the result item. */
const POLL_MS = 12;

/** What a relayed request became; `unknown` when no answer came in time (the writer stopped or is far behind). */
export type RelayAnswer = IntentResult | { status: 'unknown' };

/**
 * The requester's side of group commit: a write handed to the ledger's sequenced writer through the ingress
 * queue, then its result read back (one GetItem at a time) until the writer answers. The first read is timed
 * from how long recent answers took, so a container does not poll much more than it waits.
 */
export class LedgerRelay {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Moving average of recent answer times: when to look first. */
  private typicalMs = 20;

  constructor(private readonly options: RelayOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async submit(ledger: LedgerRecord, operation: LedgerOperation): Promise<RelayAnswer> {
    const reqId = randomUUID();
    const started = this.now();
    const deadline = started + (this.options.deadlineMs ?? DEFAULT_DEADLINE_MS);
    await this.options.sqs.send(
      new SendMessageCommand({ QueueUrl: this.options.queueUrl, MessageBody: encodeIntent({ reqId, ledger: ledger.name, operation, deadline }) }),
    );
    const key = ledgerKeys.result(ledger.name, reqId);
    const table = this.options.tableFor(ledger.bucket);
    const giveUp = deadline + (this.options.graceMs ?? DEFAULT_GRACE_MS);
    await this.sleep(Math.max(POLL_MS, this.typicalMs * 0.8));
    for (;;) {
      const { Item } = await this.options.doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      if (Item) {
        this.typicalMs = this.typicalMs * 0.8 + (this.now() - started) * 0.2;
        return decodeResult(String(Item.result));
      }
      if (this.now() >= giveUp) return { status: 'unknown' };
      await this.sleep(POLL_MS);
    }
  }
}
