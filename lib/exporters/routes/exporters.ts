import type { Context, Hono } from 'hono';
import type { Stage } from '../../config/env.js';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { AppEnv } from '../../http/types.js';
import { describe, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import {
  checkedConfiguration,
  exporterConfigurationSchema,
  exporterView,
  isExporterId,
  newExporter,
} from '../domain/exporter.js';
import { EXPORTERS_LIST } from '../store/keys.js';
import type { ExportStores } from '../stores.js';
import { exporterData, exporterPage } from './schemas.js';

export interface ExporterRoutesDeps {
  stores: ExportStores;
  stage: Stage;
  now: () => number;
}

const TAGS = ['ledger: exporters'];
export const exporterNotFound = (id: string) =>
  new NotFoundError(`exporter '${id.slice(0, 64)}' not found`);

/** Exporters of the token's environment (docs/api.md §3.5): the reference's five operations. */
export function exporterRoutes(
  app: Hono<AppEnv>,
  { stores, stage, now }: ExporterRoutesDeps,
): void {
  const of = (c: Context<AppEnv>) => stores(environmentOf(c));
  const exporterId = (c: Context<AppEnv>) => {
    const id = c.req.param('exporterID') ?? '';
    if (!isExporterId(id)) throw exporterNotFound(id);
    return id;
  };

  openapi: app.post(
    '/v2/_/exporters',
    describe({
      operationId: 'v2CreateExporter',
      summary: 'Create an exporter',
      description:
        'A driver (`http`, `stdout`) and its configuration, checked now: a bad one is a 400.',
      tags: TAGS,
      body: exporterConfigurationSchema,
      responses: { 201: { description: 'The exporter.', schema: exporterData } },
    }),
  );
  app.post('/v2/_/exporters', async (c) => {
    const body = await readJsonBody(c, exporterConfigurationSchema);
    const exporter = newExporter(checkedConfiguration(body, stage), formatMs(now()));
    await of(c).exporters.create(exporter);
    return jsonResponse(c, { data: exporterView(exporter) }, 201);
  });

  openapi: app.get(
    '/v2/_/exporters',
    describe({
      operationId: 'v2ListExporters',
      summary: 'List exporters',
      tags: TAGS,
      parameters: PAGE_PARAMETERS,
      responses: { 200: { description: 'A page of exporters.', schema: exporterPage } },
    }),
  );
  app.get('/v2/_/exporters', async (c) => {
    const page = await of(c).exporters.list(readListQuery(c.req.query(), EXPORTERS_LIST));
    return jsonResponse(c, { cursor: { ...page, data: page.data.map(exporterView) } });
  });

  openapi: app.get(
    '/v2/_/exporters/:exporterID',
    describe({
      operationId: 'v2GetExporterState',
      summary: 'Get an exporter',
      tags: TAGS,
      responses: { 200: { description: 'The exporter.', schema: exporterData } },
    }),
  );
  app.get('/v2/_/exporters/:exporterID', async (c) => {
    const id = exporterId(c);
    const exporter = await of(c).exporters.get(id);
    if (!exporter) throw exporterNotFound(id);
    return jsonResponse(c, { data: exporterView(exporter) });
  });

  openapi: app.put(
    '/v2/_/exporters/:exporterID',
    describe({
      operationId: 'v2UpdateExporter',
      summary: 'Replace an exporter’s driver and configuration',
      description: 'Its pipelines send their next batch with the new configuration.',
      tags: TAGS,
      body: exporterConfigurationSchema,
      responses: { 204: { description: 'Replaced.' } },
    }),
  );
  app.put('/v2/_/exporters/:exporterID', async (c) => {
    const id = exporterId(c);
    const body = await readJsonBody(c, exporterConfigurationSchema);
    const configuration = checkedConfiguration(body, stage);
    const { exporters } = of(c);
    const current = await exporters.get(id);
    if (!current || !(await exporters.replace({ ...current, ...configuration })))
      throw exporterNotFound(id);
    return c.body(null, 204);
  });

  openapi: app.delete(
    '/v2/_/exporters/:exporterID',
    describe({
      operationId: 'v2DeleteExporter',
      summary: 'Delete an exporter',
      description: 'Its pipelines are deleted with it, as the reference does.',
      tags: TAGS,
      responses: { 204: { description: 'Deleted.' } },
    }),
  );
  app.delete('/v2/_/exporters/:exporterID', async (c) => {
    const id = exporterId(c);
    const { exporters, pipelines } = of(c);
    // The exporter first: from then on no pipeline can be created on it, so the sweep below misses none.
    if (!(await exporters.delete(id))) throw exporterNotFound(id);
    for (const usage of await exporters.usages(id))
      await pipelines.delete(usage.ledger, usage.pipelineId);
    return c.body(null, 204);
  });
}

const formatMs = (ms: number) => formatInstant(instantFromMs(ms));
