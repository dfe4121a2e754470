import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { EVENT_VERSION } from '../../../events/catalog.js';
import { NotFoundError } from '../../errors/index.js';
import type { AppEnv } from '../../http/types.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { signingSecrets } from '../deliver/deliver-batch.js';
import { deliveryHeaders, unixSeconds } from '../signing/sign.js';
import { isFailure, postWebhook } from '../ssrf/post-webhook.js';
import type { ConfigStore } from '../store/config-store.js';

export interface ConfigTestDeps {
  store: ConfigStore;
  /** The local platform delivers to receivers on this machine; nothing else reaches loopback. */
  allowLoopback: boolean;
  now: () => number;
}

/**
 * GET /configs/<id>/test (API.md §4): one signed delivery of a test event to the config's endpoint, now, with
 * the same signing, SSRF guard and timeout as real deliveries, and no retry. Answers the attempt; nothing is
 * stored. The event is an envelope of the config's first kind whose payload says it is a test.
 */
export function configTestRoutes(app: Hono<AppEnv>, { store, allowLoopback, now }: ConfigTestDeps): void {
  app.get('/configs/:id/test', async (c) => {
    const raw = c.req.param('id');
    const config = /^[0-9a-f-]{36}$/.test(raw) ? await store.get(raw) : undefined;
    if (!config) throw new NotFoundError(`config ${raw.slice(0, 64)} not found`);
    const nowMs = now();
    const id = randomBytes(16).toString('hex');
    const date = formatInstant(instantFromMs(nowMs));
    const body = JSON.stringify({ id, idempotency_key: '', date, app: 'webhooks', version: EVENT_VERSION, type: config.eventTypes[0], payload: { test: true } });
    const headers = deliveryHeaders({ id, timestamp: unixSeconds(nowMs), body, secrets: signingSecrets(config, nowMs) });
    const result = await postWebhook({ url: config.endpoint, headers, body, timeoutMs: 15_000, allowLoopback });
    return c.json({
      data: {
        id,
        configId: config.id,
        date,
        ...(isFailure(result)
          ? { durationMs: result.durationMs, error: result.error }
          : { statusCode: result.status, durationMs: result.durationMs, responsePreview: result.bodyPreview }),
      },
    });
  });
}
