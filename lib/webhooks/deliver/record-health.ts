import { formatInstant, instantFromMs } from '../../time/instant.js';
import { sameConfig, type WebhookConfig } from '../domain/config.js';
import type { DeliveryAttempt } from '../domain/delivery.js';
import {
  afterDelivered,
  afterFailed,
  afterGone,
  healthEvents,
  type LastAnswer,
} from '../domain/endpoint-health.js';
import type { Receipt } from './deliver-batch.js';

/**
 * The endpoint's health after an attempt (domain/endpoint-health.ts), written to its config with the operator
 * event it emits. The config the receipt read decides whether anything changes, so the common cases (a healthy
 * endpoint delivering, a failing one still inside its period) cost no write.
 */

const lastAnswer = (attempt: DeliveryAttempt): LastAnswer => ({
  statusCode: attempt.statusCode ?? 0,
  ...(attempt.error !== undefined ? { error: attempt.error } : {}),
});

const eventsOf =
  (receipt: Receipt, attempt: DeliveryAttempt) => (before: WebhookConfig, next: WebhookConfig) =>
    healthEvents(receipt.environment, before, next, lastAnswer(attempt));

/** A delivered attempt: the run of failures ends; a reactivated endpoint has recovered (its event). */
export async function recordDelivered(
  receipt: Receipt,
  config: WebhookConfig,
  attempt: DeliveryAttempt,
): Promise<void> {
  if (config.failingSince === undefined && config.disabledAt === undefined) return;
  await receipt.configs.update(config.id, afterDelivered, eventsOf(receipt, attempt));
}

/** 410 Gone: the config is switched off now, its event emitted. */
export async function recordGone(
  receipt: Receipt,
  config: WebhookConfig,
  attempt: DeliveryAttempt,
): Promise<void> {
  const at = formatInstant(instantFromMs(receipt.now()));
  await receipt.configs.update(config.id, (c) => afterGone(c, at), eventsOf(receipt, attempt));
}

/**
 * A failed attempt: the run of failures starts, or it has lasted the configured period and the config is
 * switched off. True when this attempt switched it off (the delivery then ends `failed`, the others cancelled).
 */
export async function recordFailing(
  receipt: Receipt,
  config: WebhookConfig,
  attempt: DeliveryAttempt,
  atMs: number,
): Promise<boolean> {
  const { deps } = receipt;
  // Without the events table the switch-off could not be told: endpoints are then never switched off.
  const disableAfterMs = deps.eventsTable ? (deps.disableAfterFailingMs ?? 0) : 0;
  const at = { ms: atMs, instant: formatInstant(instantFromMs(atMs)) };
  if (sameConfig(afterFailed(config, at, disableAfterMs), config)) return false;
  const next = await receipt.configs.update(
    config.id,
    (c) => afterFailed(c, at, disableAfterMs),
    eventsOf(receipt, attempt),
  );
  return next !== undefined && !next.active && next.disabledAt === at.instant;
}
