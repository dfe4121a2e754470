import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { isFailure } from '../deliver/post-webhook.js';
import { type ConfigTestDeps, sendConfigTest } from '../deliver/test-attempt.js';
import { configView, isConfigId } from '../domain/config.js';
import type { WebhooksScope } from '../environment-stores.js';
import { testAttemptData } from './schemas.js';

/**
 * GET /configs/<id>/test (docs/api.md §4): one signed POST of the reference platform's test payload to the config's
 * endpoint, now, with the same signing, SSRF guard and timeout as real deliveries, and no retry; nothing is
 * stored (`deliver/test-attempt.ts`). Answers the reference's `Attempt` (what the official SDK parses: `config`,
 * `payload`, `retryAttempt`, `status` `success`/`failed`, `statusCode` 0 when nothing answered, …) with this
 * API's earlier fields beside it (`configId`, `date`, `durationMs`, `error`, `responsePreview`). `id` and
 * `webhookID` are both the `webhook-id` the receiver saw.
 */
export function configTestRoutes(
  app: Hono<HonoTypes>,
  { scope, ...deps }: Omit<ConfigTestDeps, 'configs'> & { scope: WebhooksScope },
): void {
  app.get(
    '/configs/:id/test',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'testConfig',
        summary: 'Send a test delivery',
        description: 'One signed delivery to the endpoint now, without retries.',
        tags: ['webhooks: configs'],
        responses: { 200: { description: 'The attempt.', schema: testAttemptData } },
      },
    ),
    async (c) => {
      const raw = c.req.param('id');
      // Only a config of the token's environment is ever read, so another's is not found.
      const configs = scope(environmentOf(c)).configs;
      const test = isConfigId(raw) ? await sendConfigTest(raw, { ...deps, configs }) : undefined;
      if (!test) throw new NotFoundError(`webhook config ${raw.slice(0, 64)} not found`);
      const { config, webhookId: id, result } = test;
      const succeeded = !isFailure(result) && result.status >= 200 && result.status < 300;
      const date = formatInstant(instantFromMs(test.sentAtMs));
      return c.json({
        data: {
          id,
          webhookID: id,
          config: configView(config),
          configId: config.id,
          payload: test.payload,
          retryAttempt: 0,
          status: succeeded ? 'success' : 'failed',
          statusCode: isFailure(result) ? 0 : result.status,
          durationMs: result.durationMs,
          ...(isFailure(result)
            ? { error: result.error }
            : { responsePreview: result.bodyPreview }),
          date,
          createdAt: date,
          updatedAt: formatInstant(instantFromMs(test.doneAtMs)),
        },
      });
    },
  );
}
