import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import type { Stage } from '../../config/env.js';
import type { AppEnv } from '../../http/types.js';
import type { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import { exportStores } from '../stores.js';
import { exporterRoutes } from './exporters.js';
import { pipelineRoutes } from './pipelines.js';

export interface ExportRoutesDeps {
  doc: DynamoDBDocumentClient;
  /** The default ledger table: exporters and pipelines are environment records beside the ledgers' registry. */
  table: string;
  stage: Stage;
  lookup: LedgerLookup;
  now: () => number;
}

/** The exporter and pipeline routes of the ledger service (docs/api.md §3.5). */
export function exportRoutes(app: Hono<AppEnv>, deps: ExportRoutesDeps): void {
  const stores = exportStores(deps.doc, deps.table);
  exporterRoutes(app, { stores, stage: deps.stage, now: deps.now });
  pipelineRoutes(app, { stores, lookup: deps.lookup, now: deps.now });
}
