import type { Hono } from 'hono';
import { exportRoutes } from '../exporters/routes/register.js';
import type { HonoTypes } from '../http/types.js';
import { createLedgerApp, type LedgerAppOptions } from '../ledger/app.js';
import type { ServiceRuntime } from '../runtime/runtime.js';

/**
 * The ledger service with its exporters and pipelines (`/v2/_/exporters`, `/v2/{ledger}/pipelines`): the exporters
 * read the ledger's log, so the ledger's folder cannot import them back; they are mounted here instead.
 */
export function assembleLedgerApp(
  runtime: ServiceRuntime,
  options: Omit<LedgerAppOptions, 'mount'>,
): Hono<HonoTypes> {
  return createLedgerApp(runtime, {
    ...options,
    mount: (app, parts) => exportRoutes(app, { ...parts, stage: runtime.config.stage }),
  });
}
