import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import { hashedClientId } from '../domain/client-id-hash.js';
import { addressGroup, mayEvaluate, type ThrottlePolicy, windowStart } from '../domain/throttle.js';
import { type AuthItemKey, throttleClientKey, throttleSourceKey } from './keys.js';

/** A counter outlives its window by this much, so a late release still finds it (TTL deletes it after). */
const EXPIRY_GRACE_SECONDS = 60;

/**
 * Attempts reserved for one token request: given back when it authenticates, kept as failures otherwise.
 * `release` never fails: an attempt not given back only spends budget, which errs on the safe side and must not
 * turn a good token request into an error.
 */
export interface Reservation {
  release(): Promise<void>;
}

/** Failure budgets in the auth table: one counter item per (budget, window), expiring by TTL. */
export class ThrottleStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly policy: ThrottlePolicy,
  ) {}

  /**
   * Reserves one attempt in the client's and the source's budgets (both at once: one round trip). Undefined when
   * the attempt is over budget; nothing stays reserved then.
   */
  async reserve(
    clientId: string,
    address: string,
    nowMs: number,
  ): Promise<Reservation | undefined> {
    const keys = throttleKeys(clientId, address, nowMs, this.policy);
    const { windowSeconds } = this.policy;
    const expiresAtSeconds =
      windowStart(nowMs, windowSeconds) + windowSeconds + EXPIRY_GRACE_SECONDS;
    const [client, source] = await Promise.all([
      this.increment(keys.client, this.policy.maxFailuresPerClient, expiresAtSeconds),
      this.increment(keys.source, this.policy.maxFailuresPerSource, expiresAtSeconds),
    ]);
    const held = [
      ...(client !== undefined ? [keys.client] : []),
      ...(source !== undefined ? [keys.source] : []),
    ];
    const release = () =>
      Promise.all(held.map((key) => this.decrement(key, expiresAtSeconds))).then(
        () => undefined,
        () => undefined,
      );
    if (mayEvaluate({ client, source }, this.policy)) return { release };
    await release();
    return undefined;
  }

  /** Adds one unless the counter has reached `limit`; the new count, or undefined when refused. */
  private async increment(
    Key: AuthItemKey,
    limit: number,
    expiresAtSeconds: number,
  ): Promise<number | undefined> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key,
          UpdateExpression: 'ADD attempts :one SET expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(attempts) OR attempts < :limit',
          ExpressionAttributeValues: { ':one': 1, ':exp': expiresAtSeconds, ':limit': limit },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.attempts);
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  /** Gives one back. A counter already expired and deleted is not brought back. */
  private async decrement(Key: AuthItemKey, expiresAtSeconds: number): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key,
          UpdateExpression: 'ADD attempts :minus SET expiresAt = :exp',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':minus': -1, ':exp': expiresAtSeconds },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
}

/** The counters one token request reserves in: its client's and its source's, in the current window. */
export function throttleKeys(
  clientId: string,
  address: string,
  nowMs: number,
  policy: Pick<ThrottlePolicy, 'windowSeconds'>,
): { client: AuthItemKey; source: AuthItemKey } {
  const start = windowStart(nowMs, policy.windowSeconds);
  const client = hashedClientId(clientId);
  return {
    client: throttleClientKey(client, start),
    source: throttleSourceKey(client, addressGroup(address), start),
  };
}
