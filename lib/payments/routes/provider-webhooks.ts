import type { Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { refuseProviderWebhook } from '../domain/connectors/provider-webhooks.js';

const PATH = '/v3/connectors/webhooks/:connectorID/:path{.+}';

/**
 * The reference's public route for providers' webhooks (a POST to any path below the connector; the reference
 * takes any method, providers POST). It carries no token, so it is registered before the bearer check; no provider of this platform sends webhooks, so it always
 * answers 400 (docs/api.md §6).
 */
export function providerWebhookRoutes(app: Hono<HonoTypes>): void {
  app.post(
    PATH,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ConnectorsWebhooks',
        summary: "A provider's webhook (no token): refused, no connector here receives webhooks",
        tags: ['connectors'],
        parameters: [
          { name: 'connectorID', in: 'path', description: 'The connector the provider names.' },
          { name: 'path', in: 'path', description: "The provider's own path below the connector." },
        ],
        responses: {
          400: { description: 'No connector of this platform receives webhooks (VALIDATION).' },
        },
      },
    ),
    (c) => refuseProviderWebhook(c.req.param('connectorID')),
  );
}
