import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import type { AppEnv } from '../../http/types.js';
import { describe } from '../../openapi/describe.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { signingSecrets } from '../deliver/deliver-batch.js';
import { configView, isConfigId } from '../domain/config.js';
import { deliveryHeaders, unixSeconds } from '../signing/sign.js';
import { isFailure, postWebhook } from '../ssrf/post-webhook.js';
import type { ConfigStore } from '../store/config-store.js';
import { testAttemptData } from './schemas.js';

/** The reference platform's test body, sent as is (it is not an event envelope). */
export const TEST_PAYLOAD = '{"data":"test"}';
const TEST_TIMEOUT_MS = 15_000;

export interface ConfigTestDeps {
  store: ConfigStore;
  /** The local platform delivers to receivers on this machine; nothing else reaches loopback. */
  allowLoopback: boolean;
  now: () => number;
}

/**
 * GET /configs/<id>/test (API.md §4): one signed POST of the reference platform's test payload to the config's
 * endpoint, now, with the same signing, SSRF guard and timeout as real deliveries, and no retry; nothing is
 * stored. Answers the reference's `Attempt` (what the official SDK parses: `config`, `payload`, `retryAttempt`,
 * `status` `success`/`failed`, `statusCode` 0 when nothing answered, …) with this API's earlier fields beside it
 * (`configId`, `date`, `durationMs`, `error`, `responsePreview`). `id` and `webhookID` are both the
 * `webhook-id` the receiver saw.
 */
export function configTestRoutes(
  app: Hono<AppEnv>,
  { store, allowLoopback, now }: ConfigTestDeps,
): void {
  app.get(
    '/configs/:id/test',
    describe({
      operationId: 'testConfig',
      summary: 'Send a test delivery',
      description: 'One signed delivery to the endpoint now, without retries.',
      tags: ['webhooks: configs'],
      responses: { 200: { description: 'The attempt.', schema: testAttemptData } },
    }),
  );
  app.get('/configs/:id/test', async (c) => {
    const raw = c.req.param('id');
    const config = isConfigId(raw) ? await store.get(raw) : undefined;
    if (!config) throw new NotFoundError(`webhook config ${raw.slice(0, 64)} not found`);
    const sentAt = now();
    const id = randomBytes(16).toString('hex');
    const date = formatInstant(instantFromMs(sentAt));
    const headers = deliveryHeaders({
      id,
      timestamp: unixSeconds(sentAt),
      body: TEST_PAYLOAD,
      secrets: signingSecrets(config, sentAt),
    });
    const result = await postWebhook({
      url: config.endpoint,
      headers,
      body: TEST_PAYLOAD,
      timeoutMs: TEST_TIMEOUT_MS,
      allowLoopback,
    });
    const succeeded = !isFailure(result) && result.status >= 200 && result.status < 300;
    return c.json({
      data: {
        id,
        webhookID: id,
        config: configView(config),
        configId: config.id,
        payload: TEST_PAYLOAD,
        retryAttempt: 0,
        status: succeeded ? 'success' : 'failed',
        statusCode: isFailure(result) ? 0 : result.status,
        durationMs: result.durationMs,
        ...(isFailure(result) ? { error: result.error } : { responsePreview: result.bodyPreview }),
        date,
        createdAt: date,
        updatedAt: formatInstant(instantFromMs(now())),
      },
    });
  });
}
