// The deliver function (docs/api.md §4.1; docs/decisions/webhooks.md, "Delivery"): one SQS message = one pointer to a
// delivery record; each receipt sends at most one signed POST and records it.
//
// Semantics, decided here:
// - At-least-once. SQS may hand the same message over twice; the attempt is *claimed* (a conditional update of
//   `attempts` from n to n + 1) before anything is sent, so two concurrent receipts cannot both send attempt n + 1:
//   the loser's condition fails and it treats the message as done. The outcome is recorded afterwards, again
//   conditional on `attempts` (and `pending`). The claim also moves `nextAttemptAt` past the attempt's longest
//   flight (a lease), so a duplicate read while the POST is in flight finds the delivery not due and hops rather
//   than claiming attempt n + 2 early.
// - A crash between the claim / POST and the record leaves `attempts` = n + 1 with no ATTEMPT item and the
//   message undeleted: after the visibility timeout SQS delivers it again and attempt n + 2 is sent. The receiver
//   may thus get the same delivery twice (same `webhook-id`, which is what receivers deduplicate on) and the
//   attempts list may show a gap — acceptable at-least-once semantics, nothing is lost.
// - 410 Gone: the config is deactivated (through its store) and the delivery ends `failed`, not `cancelled`: an
//   attempt was made and refused by the receiver, and `failed` deliveries are the ones kept for replay once the
//   customer fixes the endpoint and re-activates the config. `cancelled` is reserved for deliveries never tried
//   further because their config was deleted/deactivated: the config's other pending deliveries are cancelled
//   right after, as an API deactivation does.
// - Deleted or inactive config: the delivery is cancelled without a POST. Deletion and deactivation cancel
//   pending deliveries eagerly (`domain/lifecycle.ts`); this is the safety net for what they miss.
// - Retry: the same message body is sent again with DelaySeconds = min(900, ceil(delay)); a longer wait arrives
//   early and is sent on again with the remaining delay (`nextAttemptAt` on the record is the truth;
//   store/delivery-queue.ts).
// - Environments: the message names the delivery's environment (store/delivery-queue.ts); every read and write of
//   this receipt — the delivery, its config, its attempts, a retry's message — is in that environment alone. A
//   message without one (queued before environments) is read as one of `default`.
// - Undecodable message: logged and reported as a batch item failure, so after maxReceiveCount receives SQS moves
//   it to the dead-letter queue (alarmed) — never silently dropped. Transient errors (DynamoDB, SQS) are reported
//   the same way, so SQS retries the message.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { recordMetric } from '../../observability/metrics.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { WebhookConfig } from '../domain/config.js';
import type { Delivery, DeliveryAttempt } from '../domain/delivery.js';
import { onConfigDeactivated } from '../domain/lifecycle.js';
import { rateLimitWaitSeconds } from '../domain/rate-limit.js';
import { classifyOutcome } from '../domain/response-outcome.js';
import { nextAttempt } from '../domain/retry-schedule.js';
import type { WebhookHeaderSet } from '../domain/signing.js';
import { ConfigStore } from '../store/config-store.js';
import { DeliveryQueue, decodeDeliveryMessage } from '../store/delivery-queue.js';
import { DeliveryStore } from '../store/delivery-store.js';
import { RateWindows } from '../store/rate-windows.js';
import { isFailure, type PostWebhookResult } from './post-webhook.js';
import { recordDelivered, recordFailing, recordGone } from './record-health.js';
import { DELIVERY_TIMEOUT_MS, type PostWebhook, sendSignedAttempt } from './send-attempt.js';

/** Beyond the POST's timeout, time for signing, the record and the re-enqueue before a claim's lease passes. */
const IN_FLIGHT_MARGIN_MS = 15_000;

export interface SqsRecord {
  messageId: string;
  body: string;
}

export interface BatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

export interface DeliverDeps {
  doc: DynamoDBDocumentClient;
  /** The webhooks table (configs, deliveries, attempts). */
  table: string;
  sqs: SQSClient;
  /** The deliveries queue: retries are sent back to it. */
  queueUrl: string;
  logger: Logger;
  /** Local mode only: lets deliveries reach 127.0.0.1 / ::1 (never private or metadata addresses). */
  allowLoopback?: boolean;
  /** The header names deliveries are signed under (WEBHOOK_HEADER_NAMES). */
  headerSets?: readonly WebhookHeaderSet[];
  /** Epoch ms. */
  now?: () => number;
  /** Uniform in [0, 1): the retry jitter. */
  random?: () => number;
  timeoutMs?: number;
  /** Defaults to `postWebhook` (injectable for tests of failure paths). */
  post?: PostWebhook;
  /** The events table, where the operator events of an endpoint's health are written (the outbox). */
  eventsTable?: string;
  /**
   * WEBHOOK_DISABLE_AFTER_FAILING_SECONDS in ms: a config whose endpoint has failed every attempt for this long
   * is switched off (0: never). Without the events table, endpoints are never switched off for failing.
   */
  disableAfterFailingMs?: number;
}

/** What became of one message, for logs and tests. */
export type RecordOutcome =
  | 'succeeded'
  | 'failed'
  | 'deactivated'
  | 'cancelled'
  | 'retry-scheduled'
  | 'rescheduled-early'
  | 'rate-limited'
  | 'already-done'
  | 'missing'
  | 'lost-race';

/** The Lambda SQS partial batch response: only the listed messages return to the queue. */
export async function deliverBatch(
  records: readonly SqsRecord[],
  deps: DeliverDeps,
): Promise<BatchResponse> {
  const results = await Promise.all(
    records.map(async (record) => {
      try {
        recordMetric('WebhookDeliveries', { outcome: await deliverRecord(record, deps) });
        return undefined;
      } catch (err) {
        recordMetric('WebhookDeliveries', { outcome: 'error' });
        deps.logger.log('error', 'webhook delivery message failed; SQS will deliver it again', {
          messageId: record.messageId,
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return {
    batchItemFailures: results.filter((r): r is { itemIdentifier: string } => r !== undefined),
  };
}

class UndecodableMessageError extends Error {
  override name = 'UndecodableMessageError';
}

/** One message's work: the stores of its environment, the clock and a log line naming the delivery and the message. */
export interface Receipt {
  id: string;
  environment: string;
  deps: DeliverDeps;
  now: () => number;
  deliveries: DeliveryStore;
  configs: ConfigStore;
  queue: DeliveryQueue;
  log: (level: 'info' | 'warn', text: string, fields?: Record<string, unknown>) => void;
}

/** Handles one message; throws when the message must come back (undecodable, or a transient failure). */
export async function deliverRecord(record: SqsRecord, deps: DeliverDeps): Promise<RecordOutcome> {
  const now = deps.now ?? Date.now;
  const message = decodeDeliveryMessage(record.body);
  if (!message) {
    // Never logs the body itself: it is not ours to trust, and could be large.
    throw new UndecodableMessageError(
      `message ${record.messageId} is not a delivery message (${record.body.length} characters)`,
    );
  }
  const { deliveryId: id, environment } = message;
  const { doc, table } = deps;
  const receipt: Receipt = {
    id,
    environment,
    deps,
    now,
    deliveries: new DeliveryStore({ doc, table, environment }),
    configs: new ConfigStore({
      doc,
      table,
      environment,
      now,
      ...(deps.eventsTable ? { eventsTable: deps.eventsTable } : {}),
    }),
    queue: new DeliveryQueue({ sqs: deps.sqs, queueUrl: deps.queueUrl }),
    log: (level, text, fields = {}) =>
      deps.logger.log(level, text, {
        deliveryId: id,
        environment,
        messageId: record.messageId,
        ...fields,
      }),
  };

  const delivery = await receipt.deliveries.get(id);
  if (!delivery) {
    receipt.log('warn', 'webhook delivery not found; message dropped');
    return 'missing';
  }
  if (delivery.status !== 'pending') return 'already-done';

  // Early arrival (a wait longer than SQS's 900 s, or a duplicate of the message): hop again, send nothing.
  const arrived = now();
  if (delivery.nextAttemptAt !== undefined && delivery.nextAttemptAt > arrived) {
    await receipt.queue.sendDueAt(environment, id, delivery.nextAttemptAt, arrived);
    return 'rescheduled-early';
  }

  const config = await receipt.configs.get(delivery.configId);
  if (!config?.active) {
    const cancelled = await receipt.deliveries.cancel(delivery, stamp(now()), delivery.attempts);
    receipt.log('info', 'webhook delivery cancelled: config missing or inactive', {
      configId: delivery.configId,
    });
    return cancelled ? 'cancelled' : 'lost-race';
  }
  if (await heldBack(receipt, config, arrived)) return 'rate-limited';
  return attempt(receipt, delivery, config);
}

/**
 * Under a rate limit, takes a number in this second's window; past the limit the message is sent again to come
 * back later (domain/rate-limit.ts), the delivery left as it is.
 */
async function heldBack(receipt: Receipt, config: WebhookConfig, nowMs: number): Promise<boolean> {
  const limit = config.rateLimitPerSecond;
  if (limit === undefined) return false;
  const { doc, table } = receipt.deps;
  const windows = new RateWindows({ doc, table, environment: receipt.environment });
  const waitSeconds = rateLimitWaitSeconds(
    await windows.take(config.id, Math.floor(nowMs / 1000)),
    limit,
  );
  if (waitSeconds === 0) return false;
  await receipt.queue.sendDueAt(receipt.environment, receipt.id, nowMs + waitSeconds * 1000, nowMs);
  return true;
}

/** Claims the delivery's next attempt, sends it, and records what it got. */
async function attempt(
  receipt: Receipt,
  delivery: Delivery,
  config: WebhookConfig,
): Promise<RecordOutcome> {
  const { id, deps, now } = receipt;
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // The lease outlives the POST's timeout with room for the record; a crash leaves the message to come back
  // after the queue's visibility timeout (180 s), by when the lease has passed.
  if (
    !(await receipt.deliveries.claimAttempt(
      id,
      delivery.attempts,
      stamp(now()),
      now() + timeoutMs + IN_FLIGHT_MARGIN_MS,
    ))
  )
    return 'lost-race';

  const sentAtMs = now();
  const result = await sendSignedAttempt({
    webhookId: id,
    body: delivery.body,
    config,
    sentAtMs,
    timeoutMs,
    allowLoopback: deps.allowLoopback ?? false,
    ...(deps.headerSets ? { headerSets: deps.headerSets } : {}),
    ...(deps.post ? { post: deps.post } : {}),
  });
  const item = attemptOf(delivery, delivery.attempts + 1, config, sentAtMs, result);
  return record(receipt, delivery, config, item, result);
}

/** The attempt as kept for the attempts API: when, where to, how long, and what came back (or why nothing). */
function attemptOf(
  delivery: Delivery,
  attempt: number,
  config: WebhookConfig,
  sentAtMs: number,
  result: PostWebhookResult,
): DeliveryAttempt {
  const item: DeliveryAttempt = {
    deliveryId: delivery.id,
    attempt,
    at: stamp(sentAtMs),
    durationMs: result.durationMs,
    endpoint: config.endpoint,
    replayGeneration: delivery.replayGeneration,
  };
  if (isFailure(result)) item.error = result.error;
  else {
    item.statusCode = result.status;
    item.responsePreview = result.bodyPreview;
  }
  return item;
}

/** Records the attempt and decides what follows: done, failed, deactivated, or the next try queued. */
async function record(
  receipt: Receipt,
  delivery: Delivery,
  config: WebhookConfig,
  attemptItem: DeliveryAttempt,
  result: PostWebhookResult,
): Promise<RecordOutcome> {
  const { deliveries, log } = receipt;
  const doneMs = receipt.now();
  const outcome = classifyOutcome(isFailure(result) ? undefined : result.status);
  const updatedAt = stamp(doneMs);
  switch (outcome.kind) {
    case 'succeeded': {
      attemptItem.outcome = 'succeeded';
      const recorded = await orLostRace(
        deliveries.recordAttempt(delivery, attemptItem, { status: 'succeeded', updatedAt }),
        'succeeded',
      );
      // After the record: a crash between the two leaves the run of failures open until the next success.
      if (recorded === 'succeeded') await recordDelivered(receipt, config, attemptItem);
      return recorded;
    }
    case 'deactivate': {
      // First the config, then the record: if deactivating throws, the message comes back and (the config still
      // active) tries again; once deactivated, a crash before the record only leaves the delivery to be cancelled.
      await recordGone(receipt, config, attemptItem);
      log('warn', 'webhook endpoint answered 410 Gone: config deactivated', {
        configId: config.id,
      });
      attemptItem.outcome = 'permanent_failure';
      if (!(await deliveries.recordAttempt(delivery, attemptItem, { status: 'failed', updatedAt })))
        return 'lost-race';
      // Then the config's other pending deliveries, as a deactivation through the API does (a crash before this
      // leaves them to be cancelled when their messages arrive).
      await onConfigDeactivated(config, deliveries, updatedAt);
      return 'deactivated';
    }
    case 'retry':
      if (await recordFailing(receipt, config, attemptItem, doneMs)) {
        log('warn', 'webhook endpoint failing for too long: config deactivated', {
          configId: config.id,
        });
        attemptItem.outcome = 'permanent_failure';
        if (
          !(await deliveries.recordAttempt(delivery, attemptItem, { status: 'failed', updatedAt }))
        )
          return 'lost-race';
        await onConfigDeactivated(config, deliveries, updatedAt);
        return 'deactivated';
      }
      return recordRetry(receipt, delivery, attemptItem, result, doneMs);
  }
}

/** A retryable answer: the next try recorded and queued, or, after the last attempt, the delivery failed. */
async function recordRetry(
  receipt: Receipt,
  delivery: Delivery,
  attemptItem: DeliveryAttempt,
  result: PostWebhookResult,
  doneMs: number,
): Promise<RecordOutcome> {
  const { deliveries, deps, log } = receipt;
  const updatedAt = stamp(doneMs);
  const retryAfter = isFailure(result) ? undefined : result.retryAfter;
  const next = nextAttempt({
    // Counted from the latest replay: each replay runs the schedule from its start.
    attempt: attemptItem.attempt - (delivery.replayedAfterAttempts ?? 0),
    nowMs: doneMs,
    retryAfter,
    ...(deps.random ? { random: deps.random } : {}),
  });
  if ('give' in next) {
    log('warn', 'webhook delivery failed after the last attempt', {
      attempt: attemptItem.attempt,
    });
    attemptItem.outcome = 'permanent_failure';
    return orLostRace(
      deliveries.recordAttempt(delivery, attemptItem, { status: 'failed', updatedAt }),
      'failed',
    );
  }
  attemptItem.outcome = 'retryable_failure';
  if (
    !(await deliveries.recordAttempt(delivery, attemptItem, {
      status: 'pending',
      nextAttemptAt: next.atMs,
      updatedAt,
    }))
  )
    return 'lost-race';
  // After the record: if this send fails the message is reported failed and comes back, finds nextAttemptAt
  // in the future and hops; a crash here does the same after the visibility timeout.
  await receipt.queue.sendDueAt(receipt.environment, delivery.id, next.atMs, doneMs);
  return 'retry-scheduled';
}

/** The outcome when the conditional record went through; `lost-race` when another receipt got there first. */
async function orLostRace(
  recorded: Promise<boolean>,
  outcome: RecordOutcome,
): Promise<RecordOutcome> {
  return (await recorded) ? outcome : 'lost-race';
}

const stamp = (ms: number): string => formatInstant(instantFromMs(ms));
