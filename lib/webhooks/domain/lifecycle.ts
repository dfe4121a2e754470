import type { WebhookConfig } from './config.js';

/** The deliveries' side of a config's lifecycle (the delivery store implements it). */
export interface PendingDeliveries {
  /** Marks every pending delivery of the config `cancelled` (kept for history); returns how many. */
  cancelPendingOf(configId: string, updatedAt: string): Promise<number>;
}

/**
 * A deleted config's pending deliveries are cancelled (docs/api.md §4), eagerly, so that the deliveries API shows
 * them `cancelled` at once and no scheduled retry is sent. The deliverer refusing to send for a missing config
 * stays the safety net for what this misses (a delivery dispatched during the dispatcher's few-second config
 * cache, a crash half-way).
 */
export function onConfigDeleted(
  config: WebhookConfig,
  deliveries: PendingDeliveries,
  updatedAt: string,
): Promise<number> {
  return deliveries.cancelPendingOf(config.id, updatedAt);
}

/**
 * A deactivated config's pending deliveries are cancelled too, as the reference platform does: re-activating
 * does not resume them (a `cancelled` delivery can be replayed one by one). Run on every deactivation, even of an
 * already inactive config, so a repeated call also sweeps anything dispatched in the meantime.
 */
export function onConfigDeactivated(
  config: WebhookConfig,
  deliveries: PendingDeliveries,
  updatedAt: string,
): Promise<number> {
  return deliveries.cancelPendingOf(config.id, updatedAt);
}
