import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { type Delivery, deliveryId, encodeDeliveryMessage } from '../domain/delivery.js';
import { DeliveryStore } from '../store/delivery-store.js';
import { deliveryKeys, subscriptionPartition, subscriptionsVersionKey } from '../store/keys.js';
import { type DispatchedEvent, eventsOfRecord, type StreamRecordLike } from './record-events.js';

export { MalformedEventError } from '../../events/malformed-event.js';
export { eventOfRecord, type StreamRecordLike } from './record-events.js';

/**
 * `dispatch`: the consumer of the event streams: the events table's (the transactional outbox: payments' rows)
 * and every ledger table's (log items and the mapping item carry the ledger's events, see
 * lib/ledger/store/log-events.ts). For each event a record carries (one record may carry several) it creates one
 * delivery record per active config subscribed to the event's kind and enqueues a pointer to it on the
 * deliveries queue, where `deliver` takes over. Records that carry no event (most ledger items) are passed over.
 *
 * Idempotency (a stream record may be delivered more than once: a retried batch, a crashed invocation):
 * - The delivery id is deterministic per (event, config), and the record is created (with its filter index
 *   items, in one transaction) conditionally on `attribute_not_exists(pk)`: a redelivered stream record never
 *   creates a second delivery.
 * - Created now → enqueued. Already there → enqueued again only while it is still `pending` with 0 attempts,
 *   i.e. `deliver` has not started on it. Its earlier message may have been lost (the send failed after the
 *   Put, which is precisely why the record is being redelivered), so this is what guarantees that nothing is
 *   lost. Once `deliver` has made an attempt, or the delivery is settled (`succeeded`, `failed`, `cancelled`),
 *   `deliver` owns it (retries, replay) and no message is sent.
 * - Duplicates are therefore rare: only for a record whose earlier processing failed or crashed after some of
 *   its messages were sent, and only for deliveries `deliver` has not picked up yet. Records before the first
 *   failure of a batch are checkpointed and never redelivered (see below). `deliver` must tolerate a duplicate
 *   message anyway, as SQS itself delivers at least once.
 *
 * Partial failures: records are handled in stream order and processing stops at the first failure, whose
 * sequence number is the only one reported. For a DynamoDB stream with `ReportBatchItemFailures`, Lambda
 * checkpoints before the lowest reported sequence number and retries from it, so the records after it are
 * retried anyway: handling them now would only produce work that is done again.
 */

export interface BatchItemFailure {
  itemIdentifier: string;
}

export interface DispatchResult {
  batchItemFailures: BatchItemFailure[];
}

export interface DispatchDeps {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  /** The webhooks table (configs, subscriptions, deliveries). */
  table: string;
  /** The deliveries queue. */
  queueUrl: string;
  now?: () => number;
  /**
   * How long the active configs of a kind are reused (per deps object) while the subscriptions version stays the
   * same (read once per batch: a config change that has returned applies to every batch read after it). A
   * backstop only; 0 queries the configs for every event.
   */
  cacheTtlMs?: number;
  logger?: Logger;
}

export const DEFAULT_CACHE_TTL_MS = 60_000;
/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;
/** Entries a SendMessageBatch reports as failed (not the sender's fault) are sent again this many times. */
const SEND_ATTEMPTS = 3;

export async function dispatchBatch(
  records: readonly StreamRecordLike[],
  deps: DispatchDeps,
): Promise<DispatchResult> {
  // Read at most once per batch, and only if it holds an event: every record of the batch was committed before it.
  const batch: BatchContext = {};
  for (const record of records) {
    try {
      await dispatchRecord(record, deps, batch);
    } catch (err) {
      const itemIdentifier = record.dynamodb?.SequenceNumber ?? record.eventID ?? '';
      deps.logger?.log('error', 'dispatch: stream record failed', {
        sequenceNumber: itemIdentifier,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
      return { batchItemFailures: [{ itemIdentifier }] };
    }
  }
  return { batchItemFailures: [] };
}

/** The record's events in order: a failure stops there, and the record is retried whole (ids make that safe). */
async function dispatchRecord(
  record: StreamRecordLike,
  deps: DispatchDeps,
  batch: BatchContext,
): Promise<void> {
  for (const event of eventsOfRecord(record)) await dispatchEvent(event, deps, batch);
}

async function dispatchEvent(
  event: DispatchedEvent,
  deps: DispatchDeps,
  batch: BatchContext,
): Promise<void> {
  const configIds = await activeConfigs(event.type, deps, batch);
  if (configIds.length === 0) return;
  const nowMs = (deps.now ?? Date.now)();
  const createdAt = formatInstant(instantFromMs(nowMs));
  const toSend = (
    await Promise.all(
      configIds.map((configId) => createDelivery(event, configId, nowMs, createdAt, deps)),
    )
  ).filter((id): id is string => id !== undefined);
  for (let i = 0; i < toSend.length; i += SQS_BATCH)
    await sendBatch(toSend.slice(i, i + SQS_BATCH), deps);
}

/** Creates the delivery; returns its id when a message must be sent for it. */
async function createDelivery(
  event: DispatchedEvent,
  configId: string,
  nowMs: number,
  createdAt: string,
  deps: DispatchDeps,
): Promise<string | undefined> {
  const id = deliveryId(event.id, configId);
  const delivery: Delivery = {
    id,
    configId,
    eventId: event.id,
    eventType: event.type,
    body: event.body,
    status: 'pending',
    attempts: 0,
    replayGeneration: 0,
    nextAttemptAt: nowMs,
    createdAt,
    updatedAt: createdAt,
  };
  // The delivery and its filter index items in one transaction, conditional on the delivery not existing yet.
  if (await new DeliveryStore({ doc: deps.doc, table: deps.table }).create(delivery)) return id;
  const existing = await readDelivery(id, deps);
  // Gone between the write and the read (deleted): nothing to send for it.
  if (!existing) return undefined;
  return existing.status === 'pending' && Number(existing.attempts ?? 0) === 0 ? id : undefined;
}

async function readDelivery(
  id: string,
  deps: DispatchDeps,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await deps.doc.send(
    new GetCommand({ TableName: deps.table, Key: deliveryKeys.delivery(id), ConsistentRead: true }),
  );
  return Item;
}

async function sendBatch(ids: string[], deps: DispatchDeps): Promise<void> {
  let pending = ids;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const { Failed = [] } = await deps.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: deps.queueUrl,
        Entries: pending.map((id) => ({ Id: id, MessageBody: encodeDeliveryMessage(id) })),
      }),
    );
    if (Failed.length === 0) return;
    const fatal =
      Failed.find((f) => f.SenderFault) ?? (attempt >= SEND_ATTEMPTS ? Failed[0] : undefined);
    if (fatal)
      throw new Error(
        `SendMessageBatch failed for delivery ${fatal.Id}: ${fatal.Code ?? ''} ${fatal.Message ?? ''}`.trim(),
      );
    const failed = new Set(Failed.map((f) => f.Id));
    pending = pending.filter((id) => failed.has(id));
  }
}

interface CacheEntry {
  expiresAt: number;
  /** The subscriptions version the configs were queried under. */
  version: number;
  configIds: Promise<string[]>;
}

/** What a batch reads once: the subscriptions version (store/keys.ts). */
interface BatchContext {
  version?: Promise<number>;
}

async function subscriptionsVersion(deps: DispatchDeps): Promise<number> {
  const { Item } = await deps.doc.send(
    new GetCommand({
      TableName: deps.table,
      Key: { ...subscriptionsVersionKey },
      ConsistentRead: true,
    }),
  );
  return Number(Item?.n ?? 0);
}

/** One cache per deps object (one per Lambda container, one per local poller). */
const caches = new WeakMap<DispatchDeps, Map<string, CacheEntry>>();

/** The ids of the active configs subscribed to `kind`: one Query of its subscription partition. */
async function activeConfigs(
  kind: string,
  deps: DispatchDeps,
  batch: BatchContext,
): Promise<string[]> {
  const ttl = deps.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  if (ttl <= 0) return queryActiveConfigs(kind, deps);
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new Map()));
  batch.version ??= subscriptionsVersion(deps);
  const version = await batch.version;
  const nowMs = Date.now();
  const hit = cache.get(kind);
  if (hit && hit.version === version && hit.expiresAt > nowMs) return hit.configIds;
  const entry: CacheEntry = {
    expiresAt: nowMs + ttl,
    version,
    configIds: queryActiveConfigs(kind, deps),
  };
  cache.set(kind, entry);
  // A failed query is not cached.
  entry.configIds.catch(() => cache.get(kind) === entry && cache.delete(kind));
  return entry.configIds;
}

async function queryActiveConfigs(kind: string, deps: DispatchDeps): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.doc.send(
      new QueryCommand({
        TableName: deps.table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': subscriptionPartition(kind) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? [])
      if (item.active === true && typeof item.configId === 'string') ids.push(item.configId);
    start = page.LastEvaluatedKey;
  } while (start);
  return ids;
}
