import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { awaitsFirstAttempt, newDelivery } from '../domain/delivery.js';
import { DeliveryQueue } from '../store/delivery-queue.js';
import { DeliveryStore } from '../store/delivery-store.js';
import { Subscriptions } from '../store/subscriptions.js';
import { type DispatchedEvent, eventsOfRecord, type StreamRecordLike } from './record-events.js';

export type { StreamRecordLike } from './record-events.js';

/**
 * `dispatch`: the consumer of the event streams: the events table's (the transactional outbox: payments' rows)
 * and every ledger table's (log items and the mapping item carry the ledger's events, see
 * lib/ledger/store/log-events.ts). For each event a record carries (one record may carry several) it creates one
 * delivery record per active config subscribed to the event's kind and enqueues a pointer to it on the
 * deliveries queue, where `deliver` takes over. Records that carry no event (most ledger items) are passed over.
 *
 * Environments: a record's environment is the one its key names (`E#<env>#...`, record-events.ts). Its events are
 * matched with that environment's subscriptions only, their deliveries are recorded in it, and their messages
 * name it: a config of another environment with the same kind and endpoint never sees them.
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
  const queue = new DeliveryQueue({ sqs: deps.sqs, queueUrl: deps.queueUrl });
  const batch: BatchContext = { queue, environments: new Map() };
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

/** The stores of one environment dispatch works through, built once per batch and environment. */
interface EnvironmentPorts {
  deliveries: DeliveryStore;
  subscriptions: Subscriptions;
  /**
   * The environment's subscriptions version (store/keys.ts), read at most once per batch, and only if the batch
   * holds one of its events: every record of the batch was committed before it.
   */
  version?: Promise<number>;
}

/** What a batch builds once: the queue, and the stores of each environment its records name. */
interface BatchContext {
  queue: DeliveryQueue;
  environments: Map<string, EnvironmentPorts>;
}

function portsOf(environment: string, deps: DispatchDeps, batch: BatchContext): EnvironmentPorts {
  let ports = batch.environments.get(environment);
  if (!ports) {
    const { doc, table } = deps;
    ports = {
      deliveries: new DeliveryStore({ doc, table, environment }),
      subscriptions: new Subscriptions({ doc, table, environment }),
    };
    batch.environments.set(environment, ports);
  }
  return ports;
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
  const ports = portsOf(event.environment, deps, batch);
  const configIds = await activeConfigs(event.environment, event.type, deps, ports);
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
  await batch.queue.sendAll(event.environment, toSend);
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
  /** Epoch milliseconds. */
  expiresAtMs: number;
  /** The subscriptions version the configs were queried under. */
  version: number;
  configIds: Promise<string[]>;
}

/** One cache per deps object (one per Lambda container, one per local poller), keyed by environment and kind. */
const caches = new WeakMap<DispatchDeps, Map<string, CacheEntry>>();

/**
 * The ids of the environment's active configs subscribed to `kind`, reused within the cache ttl while the
 * environment's subscriptions version holds.
 */
async function activeConfigs(
  environment: string,
  kind: string,
  deps: DispatchDeps,
  ports: EnvironmentPorts,
): Promise<string[]> {
  const { subscriptions } = ports;
  const ttlMs = deps.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  if (ttlMs <= 0) return subscriptions.activeConfigIds(kind);
  let cache = caches.get(deps);
  if (!cache) {
    cache = new Map();
    caches.set(deps, cache);
  }
  ports.version ??= subscriptions.version();
  const version = await ports.version;
  const nowMs = Date.now();
  // `#` cannot occur in an environment id: the key names one environment and one kind.
  const key = `${environment}#${kind}`;
  const hit = cache.get(key);
  if (hit && hit.version === version && hit.expiresAtMs > nowMs) return hit.configIds;
  const entry: CacheEntry = {
    expiresAtMs: nowMs + ttlMs,
    version,
    configIds: subscriptions.activeConfigIds(kind),
  };
  cache.set(key, entry);
  // A failed query is not cached.
  entry.configIds.catch(() => cache.get(key) === entry && cache.delete(key));
  return entry.configIds;
}
