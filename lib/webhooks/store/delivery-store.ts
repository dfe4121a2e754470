import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { isConditionFailure, isTransactionConflict } from '../../dynamo/errors.js';
import { queryPage } from '../../dynamo/paginate.js';
import { type Attempt, retryWithBackoff } from '../../dynamo/retry.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { Delivery, DeliveryAttempt, DeliveryStatus } from '../domain/delivery.js';
import type { DeliveryListFilter } from '../domain/delivery-filter.js';
import type { PendingDeliveries } from '../domain/lifecycle.js';
import {
  type DeliveryFilterKey,
  deliveryKeys,
  deliverySortKey,
  filterPartition,
  indexPartitions,
  statusPartitions,
} from './keys.js';

/** What locates a delivery's index items: its id, config and creation time. */
export type DeliveryRef = Pick<Delivery, 'id' | 'configId' | 'createdAt'>;

export const DELIVERIES_LIST = 'webhooks.deliveries';
/** Pending deliveries of a config cancelled at once (each is its own small transaction). */
const CANCEL_CONCURRENCY = 10;
/** A cancellation that meets a transaction conflict (deliver writing the same delivery) is tried this often. */
const CANCEL_ATTEMPTS = 3;

/**
 * Delivery and attempt items of one environment in the webhooks table, with their filter index items (`keys.ts`):
 * every key it builds is in that environment, so another environment's deliveries are never read. Every write
 * that creates a delivery or changes its status moves the index items in the same TransactWriteItems, so the
 * filters never disagree with the records.
 *
 * Every change by `deliver` is conditional on the delivery still being `pending` with the attempt count the
 * caller read, so two receipts of the same SQS message (SQS is at-least-once) can never both make attempt n, and
 * a finished delivery is never reopened except by a replay. A lost condition returns false: the caller treats the
 * message as done.
 */
export class DeliveryStore implements PendingDeliveries {
  constructor(
    private readonly options: { doc: DynamoDBDocumentClient; table: string; environment: string },
  ) {}

  /** The environment this store reads and writes. */
  get environment(): string {
    return this.options.environment;
  }

  async get(id: string): Promise<Delivery | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: this.key(id),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /**
   * Creates a delivery with its index items. False when it exists already (a redelivered stream record): nothing
   * is written then, not even index items.
   */
  async create(delivery: Delivery): Promise<boolean> {
    const { table, environment } = this.options;
    const sort = deliverySortKey(delivery.createdAt, delivery.id);
    return this.conditional([
      {
        Put: {
          TableName: table,
          Item: {
            ...this.key(delivery.id),
            gsi1pk: deliveryKeys.list(environment),
            gsi1sk: sort,
            ...delivery,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...indexPartitions(environment, delivery.configId, delivery.status).map(
        (pk): TransactItem => ({
          Put: { TableName: table, Item: { pk, sk: sort, deliveryId: delivery.id } },
        }),
      ),
    ]);
  }

  /**
   * Claims attempt `attempts + 1` before sending it: `attempts` goes from `expectedAttempts` to
   * `expectedAttempts + 1`. False when another receipt claimed it first or the delivery is no longer pending.
   * The status does not change, so no index item moves.
   */
  async claimAttempt(
    id: string,
    expectedAttempts: number,
    updatedAt: string,
    inFlightUntil: number,
  ): Promise<boolean> {
    return this.conditional(
      new UpdateCommand({
        TableName: this.options.table,
        Key: this.key(id),
        // `nextAttemptAt` moves past the attempt's longest possible flight: a duplicate message read meanwhile
        // finds the delivery not due and hops, instead of claiming the next attempt while this one is in flight.
        UpdateExpression: 'SET attempts = :next, updatedAt = :now, nextAttemptAt = :lease',
        ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':next': expectedAttempts + 1,
          ':now': updatedAt,
          ':pending': 'pending',
          ':expected': expectedAttempts,
          ':lease': inFlightUntil,
        },
      }),
    );
  }

  /**
   * Records a claimed attempt and what follows from it, in one transaction: the attempt item (never overwritten)
   * and the delivery — still `pending` with `nextAttemptAt`, or finished (`nextAttemptAt` removed, index items
   * moved to the new status).
   *
   * When the delivery was cancelled while the attempt was in flight (its config deleted or deactivated), the
   * attempt is still recorded — it was sent — and the delivery stays `cancelled`; the result is false all the same.
   */
  async recordAttempt(
    delivery: DeliveryRef,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; nextAttemptAt?: number; updatedAt: string },
  ): Promise<boolean> {
    const { table, environment } = this.options;
    const pending = next.status === 'pending';
    if (pending && next.nextAttemptAt === undefined)
      throw new Error('a pending delivery needs nextAttemptAt');
    const attemptPut: TransactItem = {
      Put: {
        TableName: table,
        Item: {
          ...deliveryKeys.attempt(environment, delivery.id, attempt.attempt),
          type: 'attempt',
          ...attempt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    const summary = attemptSummary(attempt, next, pending);
    const recorded = await this.conditional([
      {
        Update: {
          TableName: table,
          Key: this.key(delivery.id),
          UpdateExpression: summary.expression,
          ConditionExpression:
            'attribute_exists(pk) AND #status = :pending AND attempts = :attempt',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: summary.values,
        },
      },
      attemptPut,
      ...this.moveIndex(delivery, 'pending', next.status),
    ]);
    if (!recorded) {
      await this.conditional([
        {
          ConditionCheck: {
            TableName: table,
            Key: this.key(delivery.id),
            ConditionExpression: '#status = :cancelled AND attempts = :attempt',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':cancelled': 'cancelled', ':attempt': attempt.attempt },
          },
        },
        attemptPut,
      ]);
    }
    return recorded;
  }

  /**
   * Cancels a pending delivery without an attempt (its config is gone or inactive), as the deliverer decides it:
   * only if no attempt was claimed since it read `expectedAttempts`.
   */
  async cancel(
    delivery: DeliveryRef,
    updatedAt: string,
    expectedAttempts: number,
  ): Promise<boolean> {
    return this.conditional([
      cancelUpdate(this.options.table, this.key(delivery.id), updatedAt, expectedAttempts),
      ...this.moveIndex(delivery, 'pending', 'cancelled'),
    ]);
  }

  /**
   * Cancels every pending delivery of a config, found through its `pending` index partition (never a scan).
   * Returns how many were cancelled. Deliveries the dispatcher creates afterwards (its config cache lags by a few
   * seconds) are cancelled by `deliver` when their messages arrive, as is anything a crash here leaves pending.
   */
  async cancelPendingOf(configId: string, updatedAt: string): Promise<number> {
    const { doc, table, environment } = this.options;
    let cancelled = 0;
    const pages = paginateQuery(
      { client: doc, pageSize: 100 },
      {
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: {
          ':p': filterPartition(environment, { configId, status: 'pending' }),
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      const refs = (page.Items ?? []).map((item) => ({
        id: String(item.deliveryId),
        configId,
        sort: String(item.sk),
      }));
      for (let i = 0; i < refs.length; i += CANCEL_CONCURRENCY) {
        const results = await Promise.all(
          refs
            .slice(i, i + CANCEL_CONCURRENCY)
            .map((ref) => this.cancelWithRetries(ref, updatedAt)),
        );
        cancelled += results.filter(Boolean).length;
      }
    }
    return cancelled;
  }

  /** The ids of the environment's pending deliveries, page by page, from its `pending` index partition (never a scan). */
  async *pendingIds(): AsyncGenerator<string[]> {
    const pages = paginateQuery(
      { client: this.options.doc },
      {
        TableName: this.options.table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: {
          ':p': filterPartition(this.options.environment, { status: 'pending' }),
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) yield (page.Items ?? []).map((item) => String(item.deliveryId));
  }

  /** Newest first, over gsi1 (no `configId`/`status`) or the filter's index partition; the time range is a sort-key range. */
  async list(query: ListQuery, filter: DeliveryListFilter): Promise<Page<Delivery>> {
    const { doc, table, environment } = this.options;
    const range = sortRange(filter.from, filter.to);
    if (filter.configId === undefined && filter.status === undefined) {
      const list = deliveryKeys.list(environment);
      requireCursorPartition(query, 'gsi1pk', list);
      return queryPage(
        doc,
        {
          input: {
            TableName: table,
            IndexName: 'gsi1',
            KeyConditionExpression: `gsi1pk = :p${range ? ` AND ${range.condition('gsi1sk')}` : ''}`,
            ExpressionAttributeValues: { ':p': list, ...range?.values },
          },
          keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
          list: DELIVERIES_LIST,
          ascending: false,
          filters: filter.recorded,
        },
        query,
        fromItem,
      );
    }
    const partition = filterPartition(environment, {
      ...(filter.configId !== undefined ? { configId: filter.configId } : {}),
      ...(filter.status !== undefined ? { status: filter.status } : {}),
    });
    requireCursorPartition(query, 'pk', partition);
    const ids = await queryPage(
      doc,
      {
        input: {
          TableName: table,
          KeyConditionExpression: `pk = :p${range ? ` AND ${range.condition('sk')}` : ''}`,
          ExpressionAttributeValues: { ':p': partition, ...range?.values },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: DELIVERIES_LIST,
        ascending: false,
        filters: filter.recorded,
      },
      query,
      (item) => String(item.deliveryId),
    );
    const items = await batchGetInOrder(
      doc,
      table,
      ids.data.map((id) => this.key(id)),
    );
    return {
      ...ids,
      data: items.filter((i): i is Record<string, unknown> => i !== undefined).map(fromItem),
    };
  }

  /** A delivery's attempts in order (its own partition: `ATTEMPT#<nnnn>` items). */
  async attempts(id: string, query: ListQuery): Promise<Page<DeliveryAttempt>> {
    const partition = this.key(id).pk;
    requireCursorPartition(query, 'pk', partition);
    return queryPage(
      this.options.doc,
      {
        input: {
          TableName: this.options.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :a)',
          ExpressionAttributeValues: { ':p': partition, ':a': 'ATTEMPT#' },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: `webhooks.attempts.${id}`,
        ascending: true,
      },
      query,
      (item) => {
        const { pk: _pk, sk: _sk, type: _type, ...attempt } = item;
        return {
          ...attempt,
          attempt: Number(attempt.attempt),
          durationMs: Number(attempt.durationMs),
          ...(attempt.statusCode !== undefined ? { statusCode: Number(attempt.statusCode) } : {}),
          ...(attempt.replayGeneration !== undefined
            ? { replayGeneration: Number(attempt.replayGeneration) }
            : {}),
        } as DeliveryAttempt;
      },
    );
  }

  /**
   * Reopens a finished delivery for one more attempt now (a replay): `pending`, due at `nowMs`, its index items
   * moved back. Attempt numbers carry on, so the history is never overwritten; the retry schedule starts afresh
   * from here (`replayedAfterAttempts` keeps where), so a failing replay is retried after 5 s, then 5 min, … and
   * ends `failed` again after the schedule's eight attempts. Conditional on the status the caller read: false when it changed (it can only
   * have become `pending`, by a concurrent replay — which would race the attempt it scheduled).
   */
  async reopen(
    delivery: DeliveryRef & Pick<Delivery, 'status'>,
    nowMs: number,
    updatedAt: string,
  ): Promise<boolean> {
    if (delivery.status === 'pending') return false;
    return this.conditional([
      {
        Update: {
          TableName: this.options.table,
          Key: this.key(delivery.id),
          // A new generation: the attempts it makes carry it, so the history shows which replay made which.
          UpdateExpression:
            'SET #status = :pending, nextAttemptAt = :due, updatedAt = :now, replayedAfterAttempts = attempts ADD replayGeneration :one',
          ConditionExpression: 'attribute_exists(pk) AND #status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':due': nowMs,
            ':now': updatedAt,
            ':from': delivery.status,
            ':one': 1,
          },
        },
      },
      ...this.moveIndex(delivery, delivery.status, 'pending'),
    ]);
  }

  /**
   * Brings a pending delivery's next attempt forward to `nowMs` (a bulk replay's "expedite"). Only when no attempt
   * is in flight (every claimed attempt recorded: a claim's lease must not be cut short) and nothing changed since
   * `delivery` was read; false otherwise.
   */
  async expedite(delivery: Delivery, nowMs: number, updatedAt: string): Promise<boolean> {
    if (delivery.status !== 'pending' || delivery.attempts !== (delivery.lastAttempt ?? 0))
      return false;
    return this.conditional(
      new UpdateCommand({
        TableName: this.options.table,
        Key: this.key(delivery.id),
        UpdateExpression: 'SET nextAttemptAt = :due, updatedAt = :now',
        ConditionExpression:
          'attribute_exists(pk) AND #status = :pending AND attempts = :attempts AND nextAttemptAt = :read',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':due': nowMs,
          ':now': updatedAt,
          ':pending': 'pending',
          ':attempts': delivery.attempts,
          ':read': delivery.nextAttemptAt ?? null,
        },
      }),
    );
  }

  /**
   * Up to `limit` ids of the deliveries of a filter (its index partition, `keys.ts`), oldest first, created in
   * [`from`, `to`] (sortable instants, both inclusive), after sort key `after`. `last` is where the read stopped
   * when the partition may hold more.
   */
  async idsInFilter(
    filter: DeliveryFilterKey,
    from: string,
    to: string,
    after: string | undefined,
    limit: number,
  ): Promise<{ ids: string[]; last?: string }> {
    const partition = filterPartition(this.options.environment, filter);
    const { Items, LastEvaluatedKey } = await this.options.doc.send(
      new QueryCommand({
        TableName: this.options.table,
        // `<instant>#~` sorts after every `<instant>#<hex id>`: `to` is inclusive.
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':p': partition, ':lo': from, ':hi': `${to}#~` },
        ...(after !== undefined ? { ExclusiveStartKey: { pk: partition, sk: after } } : {}),
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return {
      ids: (Items ?? []).map((item) => String(item.deliveryId)),
      ...(LastEvaluatedKey ? { last: String(LastEvaluatedKey.sk) } : {}),
    };
  }

  /** Deliveries by id, in the order given (missing ones left out). */
  async getMany(ids: readonly string[]): Promise<Delivery[]> {
    const items = await batchGetInOrder(
      this.options.doc,
      this.options.table,
      ids.map((id) => this.key(id)),
    );
    return items.filter((i): i is Record<string, unknown> => i !== undefined).map(fromItem);
  }

  private async cancelWithRetries(
    ref: { id: string; configId: string; sort: string },
    updatedAt: string,
  ): Promise<boolean> {
    let conflict: unknown;
    return retryWithBackoff(
      async (): Promise<Attempt<boolean>> => {
        try {
          // Whatever the attempt count: an attempt in flight is still recorded (`recordAttempt`).
          const value = await this.conditional([
            cancelUpdate(this.options.table, this.key(ref.id), updatedAt),
            ...this.moveIndexBySort(ref.configId, ref.id, ref.sort, 'pending', 'cancelled'),
          ]);
          return { done: true, value };
        } catch (err) {
          if (!isConflict(err)) throw err;
          conflict = err;
          return { done: false };
        }
      },
      { maxAttempts: CANCEL_ATTEMPTS },
      () => {
        throw conflict;
      },
    );
  }

  private moveIndex(
    delivery: DeliveryRef,
    from: DeliveryStatus,
    to: DeliveryStatus,
  ): TransactItem[] {
    return this.moveIndexBySort(
      delivery.configId,
      delivery.id,
      deliverySortKey(delivery.createdAt, delivery.id),
      from,
      to,
    );
  }

  /** The index items that name the status: deleted under `from`, put under `to` (nothing when equal). */
  private moveIndexBySort(
    configId: string,
    id: string,
    sort: string,
    from: DeliveryStatus,
    to: DeliveryStatus,
  ): TransactItem[] {
    if (from === to) return [];
    const { table, environment } = this.options;
    return [
      ...statusPartitions(environment, configId, from).map(
        (pk): TransactItem => ({ Delete: { TableName: table, Key: { pk, sk: sort } } }),
      ),
      ...statusPartitions(environment, configId, to).map(
        (pk): TransactItem => ({
          Put: { TableName: table, Item: { pk, sk: sort, deliveryId: id } },
        }),
      ),
    ];
  }

  private key(id: string) {
    return deliveryKeys.delivery(this.options.environment, id);
  }

  /** One conditional write: a single Update, or a transaction (a list of items). */
  private async conditional(write: UpdateCommand | TransactItem[]): Promise<boolean> {
    try {
      if (Array.isArray(write))
        await this.options.doc.send(new TransactWriteCommand({ TransactItems: write }));
      else await this.options.doc.send(write);
      return true;
    } catch (err) {
      if (lostCondition(err)) return false;
      throw err;
    }
  }
}

/** `pending` → `cancelled`, optionally only at the attempt count the caller read. */
function cancelUpdate(
  table: string,
  key: { pk: string; sk: string },
  updatedAt: string,
  expectedAttempts?: number,
): TransactItem {
  const exact = expectedAttempts !== undefined;
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: 'SET #status = :cancelled, updatedAt = :now REMOVE nextAttemptAt',
      ConditionExpression: `attribute_exists(pk) AND #status = :pending${exact ? ' AND attempts = :expected' : ''}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':cancelled': 'cancelled',
        ':now': updatedAt,
        ':pending': 'pending',
        ...(exact ? { ':expected': expectedAttempts } : {}),
      },
    },
  };
}

/** A key condition on the sort key for [from, to): bounds are sortable instants, keys `<instant>#<id>`. */
function sortRange(
  from: string | undefined,
  to: string | undefined,
): { condition: (key: string) => string; values: Record<string, string> } | undefined {
  // `<instant>` sorts before every `<instant>#<id>`, so it is an inclusive lower and an exclusive upper bound.
  if (from !== undefined && to !== undefined)
    return { condition: (k) => `${k} BETWEEN :lo AND :hi`, values: { ':lo': from, ':hi': to } };
  if (from !== undefined) return { condition: (k) => `${k} >= :lo`, values: { ':lo': from } };
  if (to !== undefined) return { condition: (k) => `${k} < :hi`, values: { ':hi': to } };
  return undefined;
}

/**
 * Only a failed condition means "someone else decided": a transaction conflict or throttling is transient and is
 * thrown, so the message is reported as failed and SQS delivers it again (nothing is lost on a blip).
 */
const lostCondition = isConditionFailure;

const isConflict = isTransactionConflict;

function fromItem(item: Record<string, unknown>): Delivery {
  const delivery: Delivery = {
    id: String(item.id),
    configId: String(item.configId),
    eventId: String(item.eventId),
    eventType: String(item.eventType),
    body: String(item.body),
    status: String(item.status) as DeliveryStatus,
    attempts: Number(item.attempts ?? 0),
    replayGeneration: Number(item.replayGeneration ?? 0),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  if (item.nextAttemptAt !== undefined && item.nextAttemptAt !== null)
    delivery.nextAttemptAt = Number(item.nextAttemptAt);
  if (item.replayedAfterAttempts !== undefined)
    delivery.replayedAfterAttempts = Number(item.replayedAfterAttempts);
  if (item.lastAttempt !== undefined) delivery.lastAttempt = Number(item.lastAttempt);
  if (item.lastAttemptAt !== undefined) delivery.lastAttemptAt = String(item.lastAttemptAt);
  if (item.lastStatusCode !== undefined) delivery.lastStatusCode = Number(item.lastStatusCode);
  if (item.lastError !== undefined) delivery.lastError = String(item.lastError);
  return delivery;
}

/**
 * The delivery's update after an attempt: it keeps a summary of its latest attempt (`last*`), and what the attempt
 * did not have is removed. `lastAttempt` (its number) tells a recorded attempt from one in flight (claimed,
 * `attempts` ahead of it).
 */
function attemptSummary(
  attempt: DeliveryAttempt,
  next: { status: DeliveryStatus; nextAttemptAt?: number; updatedAt: string },
  pending: boolean,
): { expression: string; values: Record<string, unknown> } {
  const set = [
    '#status = :status',
    'updatedAt = :now',
    'lastAttemptAt = :lastAt',
    'lastAttempt = :attempt',
  ];
  const remove: string[] = [];
  const values: Record<string, unknown> = {
    ':status': next.status,
    ':now': next.updatedAt,
    ':pending': 'pending',
    ':attempt': attempt.attempt,
    ':lastAt': attempt.at,
  };
  const setOrRemove = (name: string, placeholder: string, value: unknown) => {
    if (value === undefined) remove.push(name);
    else {
      set.push(`${name} = ${placeholder}`);
      values[placeholder] = value;
    }
  };
  setOrRemove('nextAttemptAt', ':at', pending ? next.nextAttemptAt : undefined);
  setOrRemove('lastStatusCode', ':code', attempt.statusCode);
  setOrRemove('lastError', ':error', attempt.error);
  const removed = remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : '';
  return { expression: `SET ${set.join(', ')}${removed}`, values };
}
