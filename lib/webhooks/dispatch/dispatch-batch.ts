import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { awaitsFirstAttempt, newDelivery } from '../domain/delivery.js';
import { DeliveryQueue } from '../store/delivery-queue.js';
import { DeliveryStore } from '../store/delivery-store.js';
import { Subscriptions } from '../store/subscriptions.js';
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

export async function dispatchBatch(
  records: readonly StreamRecordLike[],
  deps: DispatchDeps,
): Promise<DispatchResult> {
  const ports: Ports = {
    deliveries: new DeliveryStore({ doc: deps.doc, table: deps.table }),
    queue: new DeliveryQueue({ sqs: deps.sqs, queueUrl: deps.queueUrl }),
    subscriptions: new Subscriptions({ doc: deps.doc, table: deps.table }),
  };
  // Read at most once per batch, and only if it holds an event: every record of the batch was committed before it.
  const batch: BatchContext = {};
  for (const record of records) {
    try {
      await dispatchRecord(record, deps, ports, batch);
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

/** The stores dispatch works through, built once per batch from the deps. */
interface Ports {
  deliveries: DeliveryStore;
  queue: DeliveryQueue;
  subscriptions: Subscriptions;
}

/** The record's events in order: a failure stops there, and the record is retried whole (ids make that safe). */
async function dispatchRecord(
  record: StreamRecordLike,
  deps: DispatchDeps,
  ports: Ports,
  batch: BatchContext,
): Promise<void> {
  for (const event of eventsOfRecord(record)) await dispatchEvent(event, deps, ports, batch);
}

async function dispatchEvent(
  event: DispatchedEvent,
  deps: DispatchDeps,
  ports: Ports,
  batch: BatchContext,
): Promise<void> {
  const configIds = await activeConfigs(event.type, deps, ports.subscriptions, batch);
  if (configIds.length === 0) return;
  const nowMs = (deps.now ?? Date.now)();
  const createdAt = formatInstant(instantFromMs(nowMs));
  const toSend = (
    await Promise.all(
      configIds.map((configId) =>
        createDelivery(event, configId, nowMs, createdAt, ports.deliveries),
      ),
    )
  ).filter((id): id is string => id !== undefined);
  await ports.queue.sendAll(toSend);
}

/** Creates the delivery; returns its id when a message must be sent for it. */
async function createDelivery(
  event: DispatchedEvent,
  configId: string,
  nowMs: number,
  createdAt: string,
  deliveries: DeliveryStore,
): Promise<string | undefined> {
  const delivery = newDelivery(event, configId, nowMs, createdAt);
  // The delivery and its filter index items in one transaction, conditional on the delivery not existing yet.
  if (await deliveries.create(delivery)) return delivery.id;
  const existing = await deliveries.get(delivery.id);
  // Gone between the write and the read (deleted): nothing to send for it.
  if (!existing) return undefined;
  return awaitsFirstAttempt(existing) ? delivery.id : undefined;
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

/** One cache per deps object (one per Lambda container, one per local poller). */
const caches = new WeakMap<DispatchDeps, Map<string, CacheEntry>>();

/** The ids of the active configs subscribed to `kind`, reused within the cache ttl while the version holds. */
async function activeConfigs(
  kind: string,
  deps: DispatchDeps,
  subscriptions: Subscriptions,
  batch: BatchContext,
): Promise<string[]> {
  const ttl = deps.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  if (ttl <= 0) return subscriptions.activeConfigIds(kind);
  let cache = caches.get(deps);
  if (!cache) {
    cache = new Map();
    caches.set(deps, cache);
  }
  batch.version ??= subscriptions.version();
  const version = await batch.version;
  const nowMs = Date.now();
  const hit = cache.get(kind);
  if (hit && hit.version === version && hit.expiresAt > nowMs) return hit.configIds;
  const entry: CacheEntry = {
    expiresAt: nowMs + ttl,
    version,
    configIds: subscriptions.activeConfigIds(kind),
  };
  cache.set(kind, entry);
  // A failed query is not cached.
  entry.configIds.catch(() => cache.get(kind) === entry && cache.delete(kind));
  return entry.configIds;
}
