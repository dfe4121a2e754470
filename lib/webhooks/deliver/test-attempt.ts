import { randomBytes } from 'node:crypto';
import type { WebhookConfig } from '../domain/config.js';
import type { WebhookHeaderSet } from '../domain/signing.js';
import type { ConfigStore } from '../store/config-store.js';
import type { PostWebhookResult } from './post-webhook.js';
import { sendSignedAttempt } from './send-attempt.js';

/** The reference platform's test body, sent as is (it is not an event envelope). */
export const TEST_PAYLOAD = '{"data":"test"}';

export interface ConfigTestDeps {
  configs: Pick<ConfigStore, 'get'>;
  /** The local platform delivers to receivers on this machine; nothing else reaches loopback. */
  allowLoopback: boolean;
  /** The header names the test is signed under, as deliveries are (WEBHOOK_HEADER_NAMES). */
  headerSets?: readonly WebhookHeaderSet[];
  now: () => number;
}

export interface ConfigTest {
  config: WebhookConfig;
  /** The `webhook-id` the receiver saw: fresh for every test. */
  webhookId: string;
  payload: string;
  sentAtMs: number;
  /** Epoch ms when the attempt ended. */
  doneAtMs: number;
  result: PostWebhookResult;
}

/**
 * A config's test (GET /configs/<id>/test): one signed POST of the reference platform's test payload to the
 * config's endpoint, now, exactly as a delivery's attempt is sent (`sendSignedAttempt`) and with no retry;
 * nothing is stored. Undefined when the config does not exist.
 */
export async function sendConfigTest(
  configId: string,
  { configs, allowLoopback, headerSets, now }: ConfigTestDeps,
): Promise<ConfigTest | undefined> {
  const config = await configs.get(configId);
  if (!config) return undefined;
  const sentAtMs = now();
  const webhookId = randomBytes(16).toString('hex');
  const result = await sendSignedAttempt({
    webhookId,
    body: TEST_PAYLOAD,
    config,
    sentAtMs,
    allowLoopback,
    ...(headerSets ? { headerSets } : {}),
  });
  return { config, webhookId, payload: TEST_PAYLOAD, sentAtMs, doneAtMs: now(), result };
}
