import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { PLATFORM_VERSION } from './version.js';

/**
 * `GET /api/<service>/_info`: the reference's ServerInfo (`{version}`), which the official SDK reads for auth
 * and payments (`getServerInfoAuth`, `getServerInfoPayments`). Behind the service's bearer check, like its other
 * routes. The ledger's richer `_info` is its own (lib/ledger/routes/info.ts).
 */
export function serverInfoRoute(app: Hono<AppEnv>): void {
  app.get('/_info', (c) => c.json({ version: PLATFORM_VERSION }));
}
