import { signingSecrets, type WebhookConfig } from '../domain/config.js';
import { deliveryHeaders, unixSeconds, type WebhookHeaderSet } from '../domain/signing.js';
import {
  DELIVERY_TIMEOUT_MS,
  type PostWebhookInput,
  type PostWebhookResult,
  postWebhook,
} from './post-webhook.js';

export { DELIVERY_TIMEOUT_MS } from './post-webhook.js';

export type PostWebhook = (input: PostWebhookInput) => Promise<PostWebhookResult>;

export interface SignedAttempt {
  /** The `webhook-id` the receiver sees: the delivery's id (the same on every retry), or a fresh one for a test. */
  webhookId: string;
  /** Exactly the bytes POSTed, and signed. */
  body: string;
  /** Where to (its endpoint) and with what (its secrets). */
  config: WebhookConfig;
  /** Epoch ms: the signature's timestamp, and which secrets still sign. */
  sentAtMs: number;
  /** Local mode only: lets attempts reach 127.0.0.1 / ::1 (never private or metadata addresses). */
  allowLoopback: boolean;
  /** The header names the signature is sent under (WEBHOOK_HEADER_NAMES; default the service's and Standard's). */
  headerSets?: readonly WebhookHeaderSet[];
  timeoutMs?: number;
  /** Defaults to `postWebhook` (injectable for tests of failure paths). */
  post?: PostWebhook;
}

/**
 * Sends one signed attempt, the one way every webhook leaves the platform (a delivery's attempt, a config's
 * test): Standard Webhooks headers signed with the config's secret (and the previous one while its rotation
 * overlap runs), one POST through the SSRF guard, no redirect followed, within the timeout. What the receiver did
 * (or that nothing answered) is the result; nothing is recorded here.
 */
export async function sendSignedAttempt(attempt: SignedAttempt): Promise<PostWebhookResult> {
  const { webhookId, body, config, sentAtMs } = attempt;
  const headers = deliveryHeaders(
    {
      id: webhookId,
      timestamp: unixSeconds(sentAtMs),
      body,
      secrets: signingSecrets(config, sentAtMs),
    },
    attempt.headerSets,
  );
  return (attempt.post ?? postWebhook)({
    url: config.endpoint,
    headers,
    body,
    timeoutMs: attempt.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    allowLoopback: attempt.allowLoopback,
  });
}
