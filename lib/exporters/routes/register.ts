import type { Hono } from 'hono';
import { lazyLoad } from '../../async/lazy-load.js';
import type { Stage } from '../../config/env.js';
import type { HonoTypes } from '../../http/types.js';
import type { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import type { ServiceRuntime } from '../../runtime/runtime.js';
import { exporterRoutes } from './exporters.js';
import { pipelineRoutes } from './pipelines.js';

export interface ExportRoutesDeps {
  /** An environment's document client and ledger lookup: the ledger's scope (lib/ledger/scope.ts). */
  scopeFor: (environment: string) => { doc: ServiceRuntime['doc']; lookup: LedgerLookup };
  /** The default ledger table: exporters and pipelines are environment records beside the ledgers' registry. */
  table: string;
  stage: Stage;
  now: () => number;
}

/**
 * The exporter and pipeline routes of the ledger service (docs/api.md §3.5). Their rules and stores load at the
 * first such request (a chunk of the split bundle): most containers never serve one, and every cold start would
 * otherwise carry them.
 */
export function exportRoutes(app: Hono<HonoTypes>, deps: ExportRoutesDeps): void {
  const handlers = lazyLoad(() =>
    import('./export-handlers.js').then((m) => m.exportHandlersFor(deps)),
  );
  exporterRoutes(app, handlers);
  pipelineRoutes(app, handlers);
}
