import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { adjustmentView, type PaymentAdjustment } from '../domain/adjustment.js';
import { type PaymentFilter, sortableCreatedAt } from '../domain/input.js';
import { type Payment, paymentView, providerOf, samePayment } from '../domain/payment.js';
import { savedPaymentEventRow } from './event-row.js';
import {
  creationSort,
  filterPartition,
  indexPartitions,
  paymentKey,
  paymentsByCreation,
} from './keys.js';

/**
 * Lost races on one payment are read and decided again. A lost race on the version condition means another
 * writer committed, so each round lets one writer through and N concurrent writers need at most N attempts: the
 * bound is a count sized to that (64 > the 50 concurrent writers of test/integration/payments/payments-contention.test.ts),
 * not a clock, which would refuse writes on a slow host while others still make progress. The function's timeout
 * bounds the time. Full-jitter backoff, its window doubling with each loss from 10 ms up to 200 ms, spreads the
 * writers so each round is short; only when every attempt is spent is the answer 503.
 */
export const MAX_SAVE_ATTEMPTS = 64;
export const SAVE_BACKOFF = { baseDelayMs: 10, maxDelayMs: 200 } as const;
export const PAYMENTS_LIST = 'payments';

export interface PaymentStoreOptions {
  doc: DynamoDBDocumentClient;
  table: string;
  /** The environment whose payments this store reads and writes: every key it builds is in it. */
  environment: string;
  eventsTable: string;
  now?: () => number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
}

export interface SaveOutcome {
  payment: Payment;
  /** False when the request changed nothing: no write, no event, same version. */
  changed: boolean;
  version: number;
}

/**
 * One environment's payments in the payments table. Every change is one TransactWriteItems: the payment (conditional on the version read, or
 * on not existing yet), the filter index items that move with it, and its `payments.saved_payment` event row.
 * A lost race (condition failed, transaction conflict) is read and decided again, a bounded number of times.
 */
export class PaymentStore {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: PaymentStoreOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async get(id: string): Promise<Payment | undefined> {
    return (await this.read(id))?.payment;
  }

  /**
   * Creates or changes payment `id`: `decide` gets the current record (undefined if none) and returns the new
   * one, or throws to refuse. Nothing is written when the result equals the current record.
   */
  async save(id: string, decide: (current: Payment | undefined) => Payment): Promise<SaveOutcome> {
    return retryRaces<SaveOutcome>(
      async () => {
        const current = await this.read(id);
        const next = decide(current?.payment);
        if (current && samePayment(current.payment, next))
          return {
            done: true,
            value: { payment: current.payment, changed: false, version: current.version },
          };
        const version = (current?.version ?? 0) + 1;
        const committed = await commitUnlessRaced(
          this.options.doc,
          this.transaction(next, version, current),
        );
        return committed
          ? { done: true, value: { payment: next, changed: true, version } }
          : { done: false };
      },
      {
        maxAttempts: MAX_SAVE_ATTEMPTS,
        ...SAVE_BACKOFF,
        sleep: this.sleep,
        busy: 'the payment is being changed concurrently; retry shortly',
      },
    );
  }

  /** Newest first by creation, over gsi1 (no filter) or the index partition of the filters given. */
  async list(query: ListQuery, filter: PaymentFilter): Promise<Page<Payment>> {
    const { table, environment } = this.options;
    const filters = Object.fromEntries(
      Object.entries(filter).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    const paging = { list: PAYMENTS_LIST, ascending: false, filters };
    if (Object.keys(filters).length === 0) {
      const partition = paymentsByCreation(environment);
      requireCursorPartition(query, 'gsi1pk', partition);
      return queryPage(
        this.options.doc,
        {
          input: {
            TableName: table,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :p',
            ExpressionAttributeValues: { ':p': partition },
          },
          keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
          ...paging,
        },
        query,
        (item) => fromItem(item).payment,
      );
    }
    const partition = filterPartition(environment, filter);
    requireCursorPartition(query, 'pk', partition);
    const ids = await queryPage(
      this.options.doc,
      {
        input: {
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        ...paging,
      },
      query,
      (item) => String(item.id),
    );
    const items = await batchGetInOrder(
      this.options.doc,
      table,
      ids.data.map((id) => paymentKey(environment, id)),
    );
    return {
      ...ids,
      data: items
        .filter((i): i is Record<string, unknown> => i !== undefined)
        .map((i) => fromItem(i).payment),
    };
  }

  private async read(id: string): Promise<{ payment: Payment; version: number } | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: paymentKey(this.options.environment, id),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  private transaction(
    next: Payment,
    version: number,
    current: { payment: Payment; version: number } | undefined,
  ): TransactItem[] {
    const { table, eventsTable, environment } = this.options;
    const nowMs = this.now();
    const sortKey = creationSort(sortableCreatedAt(next.createdAt), next.id);
    const item = {
      ...paymentKey(environment, next.id),
      gsi1pk: paymentsByCreation(environment),
      gsi1sk: sortKey,
      ...paymentView(next),
      ...(next.adjustments ? { adjustments: next.adjustments.map(storedAdjustment) } : {}),
      version,
      updatedAt: formatInstant(instantFromMs(nowMs)),
    };
    const main: TransactItem = current
      ? {
          Put: {
            TableName: table,
            Item: item,
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': current.version },
          },
        }
      : { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
    // createdAt never changes, so an index item's sort key does not either: only partitions come and go.
    const before = new Set(current ? indexPartitions(environment, current.payment) : []);
    const after = new Set(indexPartitions(environment, next));
    const index: TransactItem[] = [
      ...[...after]
        .filter((p) => !before.has(p))
        .map(
          (pk): TransactItem => ({
            Put: { TableName: table, Item: { pk, sk: sortKey, id: next.id } },
          }),
        ),
      ...[...before]
        .filter((p) => !after.has(p))
        .map((pk): TransactItem => ({ Delete: { TableName: table, Key: { pk, sk: sortKey } } })),
    ];
    const event: TransactItem = {
      Put: {
        TableName: eventsTable,
        Item: savedPaymentEventRow(environment, next, version, item.updatedAt, nowMs),
      },
    };
    return [main, ...index, event];
  }
}

/** The stored item back to the record; numbers arrive as bigint (the client reads with `bigintNumbers`). */
function fromItem(item: Record<string, unknown>): { payment: Payment; version: number } {
  const payment: Payment = {
    id: String(item.id),
    connectorID: String(item.connectorID),
    provider: providerOf(String(item.connectorID)),
    reference: String(item.reference),
    createdAt: String(item.createdAt),
    type: item.type as Payment['type'],
    status: item.status as Payment['status'],
    scheme: item.scheme as Payment['scheme'],
    asset: String(item.asset),
    amount: BigInt(String(item.amount)),
    initialAmount: BigInt(String(item.initialAmount)),
    metadata: { ...(item.metadata as Record<string, string> | undefined) },
  };
  if (item.sourceAccountID !== undefined) payment.sourceAccountID = String(item.sourceAccountID);
  if (item.destinationAccountID !== undefined)
    payment.destinationAccountID = String(item.destinationAccountID);
  if (Array.isArray(item.adjustments))
    payment.adjustments = (item.adjustments as Record<string, unknown>[]).map(adjustmentOf);
  return { payment: paymentView(payment), version: Number(item.version) };
}

/** An adjustment as stored: its raw payload as JSON text, so any JSON round-trips exactly. */
function storedAdjustment(a: PaymentAdjustment): Record<string, unknown> {
  return { ...adjustmentView(a), raw: stringifyJson(a.raw) };
}

function adjustmentOf(item: Record<string, unknown>): PaymentAdjustment {
  return adjustmentView({
    id: String(item.id),
    reference: String(item.reference),
    createdAt: String(item.createdAt),
    status: item.status as PaymentAdjustment['status'],
    ...(item.amount !== undefined ? { amount: BigInt(String(item.amount)) } : {}),
    ...(item.asset !== undefined ? { asset: String(item.asset) } : {}),
    metadata: { ...(item.metadata as Record<string, string> | undefined) },
    raw: parseJson(String(item.raw)) as Record<string, unknown>,
  });
}
