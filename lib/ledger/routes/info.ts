import type { Hono } from 'hono';
import type { AppEnv } from '../../http/types.js';
import { PLATFORM_VERSION } from '../../platform/version.js';

/** Server info: `/_info` and `/v2/_info` wrapped in `data`; `/_/info`, which the SDK calls, unwrapped. */
export function infoRoutes(app: Hono<AppEnv>): void {
  const info = {
    server: 'ledger',
    version: PLATFORM_VERSION,
    config: { storage: { driver: 'dynamodb' } },
  };
  app.get('/_info', (c) => c.json({ data: info }));
  app.get('/v2/_info', (c) => c.json({ data: info }));
  app.get('/_/info', (c) => c.json(info));
}
