import type { Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { PLATFORM_VERSION } from '../../openapi/version.js';
import { serverInfoSchema, unwrappedServerInfoSchema } from './schemas.js';

const serverInfo = { server: 'ledger', version: PLATFORM_VERSION, experimentalFeatures: [] };
const info = { ...serverInfo, config: { storage: { driver: 'dynamodb' } } };

/**
 * Server info: `/v2/_info` wrapped in `data` (with the storage driver); `/_/info`, which the SDK calls, unwrapped
 * and exactly the reference's V2ConfigInfo. `experimentalFeatures` lists the server-wide experimental switches
 * that are on: this server has none (Numscript's experimental features are switched per script, by its pragma).
 */
export function infoRoutes(app: Hono<HonoTypes>): void {
  v2GetServerInfoRoute(app);
  v2GetInfoRoute(app);
}

function v2GetServerInfoRoute(app: Hono<HonoTypes>): void {
  app.get(
    '/v2/_info',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetServerInfo',
        summary: 'Server info (v2 path)',
        tags: ['ledger: ledgers'],
        responses: {
          200: { description: 'The server and its version.', schema: serverInfoSchema },
        },
      },
    ),
    (c) => c.json({ data: info }),
  );
}

function v2GetInfoRoute(app: Hono<HonoTypes>): void {
  app.get(
    '/_/info',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetInfo',
        summary: 'Server info',
        tags: ['ledger: ledgers'],
        responses: {
          200: { description: 'The server and its version.', schema: unwrappedServerInfoSchema },
        },
      },
    ),
    (c) => c.json(serverInfo),
  );
}
