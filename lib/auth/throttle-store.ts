import { createHash } from 'node:crypto';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { windowStart, type ThrottlePolicy } from './throttle.js';

/**
 * Failure counters in the auth table, one item per (subject, window), expiring by TTL. Client ids are hashed
 * into the key so that any presented id, however long or strange, makes a small, valid key.
 */
export function throttleKeys(clientId: string, address: string, nowMs: number, policy: ThrottlePolicy) {
  const sk = `W#${windowStart(nowMs, policy.windowSeconds)}`;
  const hashed = createHash('sha256').update(clientId).digest('base64url');
  return {
    client: { pk: `THROTTLE#client#${hashed}`, sk },
    address: { pk: `THROTTLE#addr#${address.slice(0, 64)}`, sk },
  };
}

export async function recordFailure(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: ReturnType<typeof throttleKeys>,
  nowMs: number,
  policy: ThrottlePolicy,
): Promise<void> {
  const expiresAt = windowStart(nowMs, policy.windowSeconds) + policy.windowSeconds + 60;
  await Promise.all(
    [keys.client, keys.address].map((Key) =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key,
          UpdateExpression: 'ADD failures :one SET expiresAt = :exp',
          ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt },
        }),
      ),
    ),
  );
}
