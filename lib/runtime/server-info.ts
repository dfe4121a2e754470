import type { Hono } from 'hono';
import type { HonoTypes } from '../http/types.js';
import { openapi } from '../openapi/describe.js';
import { serverInfoSchema } from '../openapi/schemas.js';
import { PLATFORM_VERSION } from '../openapi/version.js';

/**
 * `GET /api/<service>/_info`: the reference's ServerInfo (`{version}`), which the official SDK reads for auth
 * and payments (`getServerInfoAuth`, `getServerInfoPayments`). Behind the service's bearer check, like its other
 * routes. The ledger's richer `_info` is its own (lib/ledger/routes/info.ts).
 */
export function serverInfoRoute(
  app: Hono<HonoTypes>,
  service: 'auth' | 'webhooks' | 'payments',
): void {
  app.get(
    '/_info',
    openapi(
      OPENAPI_SPECS && {
        // The SDK's names (`getServerInfo_auth`, `getServerInfo_payments`), and the same pattern for webhooks.
        operationId: `getServerInfo_${service}`,
        summary: 'Server info',
        responses: { 200: { description: "The service's version.", schema: serverInfoSchema } },
      },
    ),
    (c) => c.json({ version: PLATFORM_VERSION }),
  );
}
