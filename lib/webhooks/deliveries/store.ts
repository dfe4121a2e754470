import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { deliveryKeys, type Delivery, type DeliveryAttempt, type DeliveryStatus } from './model.js';

/**
 * Delivery and attempt items of the webhooks table, as the deliver function changes them (the dispatcher creates
 * the delivery). Every change is conditional on the delivery still being `pending` with the attempt count the
 * caller read, so two receipts of the same SQS message (SQS is at-least-once) can never both make attempt n, and a
 * finished delivery is never reopened. A lost condition returns false: the caller treats the message as done.
 */
export class DeliveryStore {
  constructor(private readonly options: { doc: DynamoDBDocumentClient; table: string }) {}

  async get(id: string): Promise<Delivery | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({ TableName: this.options.table, Key: deliveryKeys.delivery(id), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /**
   * Claims attempt `attempts + 1` before sending it: `attempts` goes from `expectedAttempts` to
   * `expectedAttempts + 1`. False when another receipt claimed it first or the delivery is no longer pending.
   */
  async claimAttempt(id: string, expectedAttempts: number, updatedAt: string): Promise<boolean> {
    return this.conditional(
      new UpdateCommand({
        TableName: this.options.table,
        Key: deliveryKeys.delivery(id),
        UpdateExpression: 'SET attempts = :next, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':next': expectedAttempts + 1, ':now': updatedAt, ':pending': 'pending', ':expected': expectedAttempts },
      }),
    );
  }

  /**
   * Records a claimed attempt and what follows from it, in one transaction: the attempt item (never overwritten)
   * and the delivery — still `pending` with `nextAttemptAt`, or finished (`nextAttemptAt` removed).
   */
  async recordAttempt(attempt: DeliveryAttempt, next: { status: DeliveryStatus; nextAttemptAt?: number; updatedAt: string }): Promise<boolean> {
    const { table } = this.options;
    const pending = next.status === 'pending';
    if (pending && next.nextAttemptAt === undefined) throw new Error('a pending delivery needs nextAttemptAt');
    const item: Record<string, unknown> = { ...deliveryKeys.attempt(attempt.deliveryId, attempt.attempt), type: 'attempt', ...attempt };
    return this.conditional(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: deliveryKeys.delivery(attempt.deliveryId),
              UpdateExpression: pending ? 'SET #status = :status, nextAttemptAt = :at, updatedAt = :now' : 'SET #status = :status, updatedAt = :now REMOVE nextAttemptAt',
              ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :attempt',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': next.status,
                ':now': next.updatedAt,
                ':pending': 'pending',
                ':attempt': attempt.attempt,
                ...(pending ? { ':at': next.nextAttemptAt } : {}),
              },
            },
          },
          { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  }

  /** Cancels a pending delivery without an attempt (its config is gone or inactive). */
  async cancel(id: string, expectedAttempts: number, updatedAt: string): Promise<boolean> {
    return this.conditional(
      new UpdateCommand({
        TableName: this.options.table,
        Key: deliveryKeys.delivery(id),
        UpdateExpression: 'SET #status = :cancelled, updatedAt = :now REMOVE nextAttemptAt',
        ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':now': updatedAt, ':pending': 'pending', ':expected': expectedAttempts },
      }),
    );
  }

  /** All deliveries, newest first (gsi1). */
  async list(query: ListQuery): Promise<Page<Delivery>> {
    return queryPage(
      this.options.doc,
      {
        input: { TableName: this.options.table, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': deliveryKeys.list } },
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: 'webhooks.deliveries',
        ascending: false,
      },
      query,
      fromItem,
    );
  }

  /** A delivery's attempts in order (its own partition: `ATTEMPT#<nnnn>` items). */
  async attempts(id: string, query: ListQuery): Promise<Page<DeliveryAttempt>> {
    return queryPage(
      this.options.doc,
      {
        input: {
          TableName: this.options.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :a)',
          ExpressionAttributeValues: { ':p': deliveryKeys.delivery(id).pk, ':a': 'ATTEMPT#' },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: `webhooks.attempts.${id}`,
        ascending: true,
      },
      query,
      (item) => {
        const { pk: _pk, sk: _sk, type: _type, ...attempt } = item;
        return { ...attempt, attempt: Number(attempt.attempt), durationMs: Number(attempt.durationMs), ...(attempt.statusCode !== undefined ? { statusCode: Number(attempt.statusCode) } : {}) } as DeliveryAttempt;
      },
    );
  }

  /**
   * Reopens a finished delivery for one more attempt now (a replay): `pending`, due at `nowMs`. Attempt numbers
   * carry on, so the history is never overwritten; past the schedule's last attempt a failure ends it `failed`
   * again. False when it is still pending (a replay would race the scheduled retry).
   */
  async reopen(id: string, nowMs: number, updatedAt: string): Promise<boolean> {
    return this.conditional(
      new UpdateCommand({
        TableName: this.options.table,
        Key: deliveryKeys.delivery(id),
        UpdateExpression: 'SET #status = :pending, nextAttemptAt = :due, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':due': nowMs, ':now': updatedAt },
      }),
    );
  }

  private async conditional(command: UpdateCommand | TransactWriteCommand): Promise<boolean> {
    try {
      await this.options.doc.send(command as UpdateCommand);
      return true;
    } catch (err) {
      if (lostCondition(err)) return false;
      throw err;
    }
  }
}

/**
 * Only a failed condition means "someone else decided": a transaction conflict or throttling is transient and is
 * thrown, so the message is reported as failed and SQS delivers it again (nothing is lost on a blip).
 */
function lostCondition(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ConditionalCheckFailedException') return true;
  if (err.name !== 'TransactionCanceledException') return false;
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'ConditionalCheckFailed') && !reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
}

function fromItem(item: Record<string, unknown>): Delivery {
  const delivery: Delivery = {
    id: String(item.id),
    configId: String(item.configId),
    eventId: String(item.eventId),
    eventType: String(item.eventType),
    body: String(item.body),
    status: String(item.status) as DeliveryStatus,
    attempts: Number(item.attempts ?? 0),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  if (item.nextAttemptAt !== undefined && item.nextAttemptAt !== null) delivery.nextAttemptAt = Number(item.nextAttemptAt);
  return delivery;
}
