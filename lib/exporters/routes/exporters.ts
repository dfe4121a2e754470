import type { Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { exporterConfigurationSchema } from './bodies.js';
import type { ExportHandlers } from './export-handlers.js';
import { exporterData, exporterPage } from './schemas.js';

const TAGS = ['ledger: exporters'];
const ITEM = '/v2/_/exporters/:exporterID';

/** Exporters of the token's environment (docs/api.md §3.5): the reference's five operations. */
export function exporterRoutes(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  v2CreateExporterRoute(app, handlers);
  v2ListExportersRoute(app, handlers);
  v2GetExporterStateRoute(app, handlers);
  v2UpdateExporterRoute(app, handlers);
  v2DeleteExporterRoute(app, handlers);
}

function v2CreateExporterRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.post(
    '/v2/_/exporters',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreateExporter',
        summary: 'Create an exporter',
        description:
          'A driver (`http`, `s3`, `stdout`) and its configuration, checked now: a bad one is a 400.',
        tags: TAGS,
        body: exporterConfigurationSchema(),
        responses: { 201: { description: 'The exporter.', schema: exporterData() } },
      },
    ),
    async (c) => (await handlers()).createExporter(c),
  );
}

function v2ListExportersRoute(app: Hono<HonoTypes>, handlers: () => Promise<ExportHandlers>): void {
  app.get(
    '/v2/_/exporters',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListExporters',
        summary: 'List exporters',
        tags: TAGS,
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of exporters.', schema: exporterPage() } },
      },
    ),
    async (c) => (await handlers()).listExporters(c),
  );
}

function v2GetExporterStateRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.get(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetExporterState',
        summary: 'Get an exporter',
        tags: TAGS,
        responses: { 200: { description: 'The exporter.', schema: exporterData() } },
      },
    ),
    async (c) => (await handlers()).getExporter(c),
  );
}

function v2UpdateExporterRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.put(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2UpdateExporter',
        summary: 'Replace an exporter’s driver and configuration',
        description: 'Its pipelines send their next batch with the new configuration.',
        tags: TAGS,
        body: exporterConfigurationSchema(),
        responses: { 204: { description: 'Replaced.' } },
      },
    ),
    async (c) => (await handlers()).replaceExporter(c),
  );
}

function v2DeleteExporterRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.delete(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteExporter',
        summary: 'Delete an exporter',
        description: 'Its pipelines are deleted with it, as the reference does.',
        tags: TAGS,
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => (await handlers()).deleteExporter(c),
  );
}
