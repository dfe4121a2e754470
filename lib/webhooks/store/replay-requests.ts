import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import { ValidationError } from '../../errors/index.js';
import { replayRequestKey } from './keys.js';

/** How long an `Idempotency-Key`'s answer is remembered (the reference platform's 24 h). */
export const REPLAY_KEY_TTL_SECONDS = 24 * 3600;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Answers of one environment's replay requests sent with an `Idempotency-Key`, in the webhooks table under
 * `replayRequestKey` (keys.ts) with the request's digest, the answer and `expiresAt` (TTL): the
 * same key with the same request gets the first answer again without replaying twice; with another request it is
 * a 400. Two first uses racing both run (each replay step is itself conditional, so nothing is sent twice for
 * one attempt); the first answer stored is the one remembered. Keys are per environment: the same key in another
 * environment is another request.
 */
export class ReplayRequests {
  constructor(
    private readonly options: {
      doc: DynamoDBDocumentClient;
      table: string;
      environment: string;
      now: () => number;
    },
  ) {}

  /** Runs `replay` once per key and request; without a key, every time. */
  async once<T>(
    key: string | undefined,
    route: string,
    request: unknown,
    replay: () => Promise<T>,
  ): Promise<T> {
    if (key === undefined) return replay();
    if (key === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
      throw new ValidationError(
        `Idempotency-Key: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      );
    const itemKey = replayRequestKey(this.options.environment, key);
    const digest = createHash('sha256')
      .update(JSON.stringify({ route, request }))
      .digest('base64url');
    const nowSeconds = Math.floor(this.options.now() / 1000);
    const { Item } = await this.options.doc.send(
      new GetCommand({ TableName: this.options.table, Key: itemKey, ConsistentRead: true }),
    );
    // TTL deletion lags: an expired item is ignored (and overwritten below).
    if (Item && Number(Item.expiresAt) > nowSeconds) {
      if (Item.digest !== digest)
        throw new ValidationError('Idempotency-Key: already used with a different request');
      return JSON.parse(String(Item.answer)) as T;
    }
    const answer = await replay();
    try {
      await this.options.doc.send(
        new PutCommand({
          TableName: this.options.table,
          Item: {
            ...itemKey,
            digest,
            answer: JSON.stringify(answer),
            expiresAt: nowSeconds + REPLAY_KEY_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    return answer;
  }
}
