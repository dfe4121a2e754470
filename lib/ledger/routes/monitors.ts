import type { Context, Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { cursorOf, dataOf } from '../../openapi/schemas.js';
import { type HandlersOf, handlersPerScope } from './handlers-per-scope.js';
import type { MonitorDeps, MonitorHandlers } from './monitor-handlers.js';
import { createMonitorSchema, monitorSchema } from './monitor-schemas.js';

const TAGS = ['ledger: accounts'];
const ITEM = '/v2/:ledger/monitors/:monitorID';

/**
 * The ledger's balance monitors (docs/api.md §3.6): create, list, read, delete. The handlers load at the first
 * monitors request (a chunk of the split bundle); no static import of monitor-handlers.ts or commands/monitors.ts
 * may stay in this file.
 */
export function monitorsRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MonitorDeps,
): void {
  const handlers: HandlersOf<MonitorHandlers> = handlersPerScope(
    depsOf,
    async (deps): Promise<MonitorHandlers> =>
      (await import('./monitor-handlers.js')).monitorHandlers(deps),
  );
  v2CreateMonitorRoute(app, handlers);
  v2ListMonitorsRoute(app, handlers);
  v2GetMonitorRoute(app, handlers);
  v2DeleteMonitorRoute(app, handlers);
}

function v2CreateMonitorRoute(app: Hono<HonoTypes>, handlers: HandlersOf<MonitorHandlers>): void {
  app.post(
    '/v2/:ledger/monitors',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreateMonitor',
        summary: 'Create a balance monitor',
        description:
          'Triggers `ledger.balance_monitor_triggered` once per crossing of its condition, in commit order (an extension of the reference API).',
        tags: TAGS,
        body: createMonitorSchema(),
        responses: {
          201: { description: 'The monitor, in force from now.', schema: dataOf(monitorSchema()) },
        },
      },
    ),
    async (c) => (await handlers(c)).create(c),
  );
}

function v2ListMonitorsRoute(app: Hono<HonoTypes>, handlers: HandlersOf<MonitorHandlers>): void {
  app.get(
    '/v2/:ledger/monitors',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListMonitors',
        summary: "The ledger's balance monitors",
        description: 'Every monitor (at most 100), oldest first, in one page.',
        tags: TAGS,
        responses: { 200: { description: 'The monitors.', schema: cursorOf(monitorSchema()) } },
      },
    ),
    async (c) => (await handlers(c)).list(c),
  );
}

function v2GetMonitorRoute(app: Hono<HonoTypes>, handlers: HandlersOf<MonitorHandlers>): void {
  app.get(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetMonitor',
        summary: 'A balance monitor',
        tags: TAGS,
        responses: { 200: { description: 'The monitor.', schema: dataOf(monitorSchema()) } },
      },
    ),
    async (c) => (await handlers(c)).get(c),
  );
}

function v2DeleteMonitorRoute(app: Hono<HonoTypes>, handlers: HandlersOf<MonitorHandlers>): void {
  app.delete(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteMonitor',
        summary: 'Delete a balance monitor',
        description: 'Writes committed after it trigger it no more.',
        tags: TAGS,
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => (await handlers(c)).delete(c),
  );
}
