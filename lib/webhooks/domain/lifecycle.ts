import type { WebhookConfig } from './config.js';

/**
 * Called after a config was deleted (API.md §4: "pending deliveries are cancelled").
 *
 * TODO(deliveries): cancel the config's pending deliveries here once deliveries exist (mark them `cancelled`,
 * keep them for history). Until then there is nothing to cancel and this is a no-op. Deactivation should get the
 * same treatment (the reference platform cancels pending deliveries on deactivate too).
 */
export async function onConfigDeleted(_config: WebhookConfig): Promise<void> {
  // Deliberately empty: no deliveries are stored yet.
}
