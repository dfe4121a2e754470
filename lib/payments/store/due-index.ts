import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { environmentOfKey } from '../../environments/key-scope.js';
import { SCHEDULE_PREFIX } from './keys.js';

/**
 * The `due` index of the payments table (lib/resources/definitions.ts): what the connectors' worker must run, found
 * without a Scan. Schedule items and initiations waiting for a time carry `dueKey` (one of DUE_SHARDS partitions,
 * by connector, so no single partition takes every connector's writes) and `nextRunAtMs`; the worker queries each
 * shard for items due by now. Sparse: nothing else carries `dueKey`.
 */
export const DUE_INDEX = 'due';
export const DUE_SHARDS = 8;

export function dueKeyOf(connectorID: string): string {
  const shard = createHash('sha256').update(connectorID).digest().readUInt8(0) % DUE_SHARDS;
  return `DUE#${shard}`;
}

export type DueItem =
  | { kind: 'schedule'; environment: string; connectorID: string; scheduleID: string }
  | { kind: 'initiation'; environment: string; id: string };

/** What is due by `nowMs`, oldest first per shard, at most `limit` items in all. */
export async function queryDue(
  doc: DynamoDBDocumentClient,
  table: string,
  nowMs: number,
  limit: number,
): Promise<{ items: DueItem[]; oldestDueMs: number | undefined }> {
  const items: DueItem[] = [];
  let oldestDueMs: number | undefined;
  for (let shard = 0; shard < DUE_SHARDS && items.length < limit; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: DUE_INDEX,
          KeyConditionExpression: 'dueKey = :key AND nextRunAtMs <= :now',
          ExpressionAttributeValues: { ':key': `DUE#${shard}`, ':now': nowMs },
          Limit: limit - items.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const due = dueItemOf(item);
        if (!due) continue;
        items.push(due);
        const at = Number(item.nextRunAtMs);
        if (oldestDueMs === undefined || at < oldestDueMs) oldestDueMs = at;
      }
      start = page.LastEvaluatedKey;
    } while (start && items.length < limit);
  }
  return { items, oldestDueMs };
}

function dueItemOf(item: Record<string, unknown>): DueItem | undefined {
  const environment = environmentOfKey(String(item.pk));
  if (environment === undefined) return undefined;
  const sk = String(item.sk);
  if (sk.startsWith(SCHEDULE_PREFIX)) {
    if (item.pausedAt !== undefined) return undefined;
    return {
      kind: 'schedule',
      environment,
      connectorID: String(item.connectorID),
      scheduleID: sk.slice(SCHEDULE_PREFIX.length),
    };
  }
  if (sk === 'INITIATION') return { kind: 'initiation', environment, id: String(item.id) };
  return undefined;
}
