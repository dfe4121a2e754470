import type { Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { createPipelineSchema } from './bodies.js';
import type { ExportHandlers } from './export-handlers.js';
import { pipelineData, pipelinePage } from './schemas.js';

const TAGS = ['ledger: pipelines'];
const ITEM = '/v2/:ledger/pipelines/:pipelineID';

/** A ledger's pipelines (docs/api.md §3.5): the reference's seven operations. */
export function pipelineRoutes(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  v2CreatePipelineRoute(app, handlers);
  v2ListPipelinesRoute(app, handlers);
  v2GetPipelineStateRoute(app, handlers);
  v2StartPipelineRoute(app, handlers);
  v2StopPipelineRoute(app, handlers);
  v2ResetPipelineRoute(app, handlers);
  v2DeletePipelineRoute(app, handlers);
}

function v2CreatePipelineRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.post(
    '/v2/:ledger/pipelines',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreatePipeline',
        summary: 'Create a pipeline',
        description:
          'Sends the ledger’s log through the exporter from its first log, and then each new one; started at once. ' +
          'One pipeline per ledger and exporter.',
        tags: TAGS,
        body: createPipelineSchema(),
        responses: { 201: { description: 'The pipeline.', schema: pipelineData() } },
      },
    ),
    async (c) => (await handlers()).createPipeline(c),
  );
}

function v2ListPipelinesRoute(app: Hono<HonoTypes>, handlers: () => Promise<ExportHandlers>): void {
  app.get(
    '/v2/:ledger/pipelines',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListPipelines',
        summary: 'List a ledger’s pipelines',
        tags: TAGS,
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of pipelines.', schema: pipelinePage() } },
      },
    ),
    async (c) => (await handlers()).listPipelines(c),
  );
}

function v2GetPipelineStateRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.get(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetPipelineState',
        summary: 'Get a pipeline’s state',
        description:
          '`lastLogID` is the last log the exporter accepted; `error` the last failure, until a batch succeeds.',
        tags: TAGS,
        responses: { 200: { description: 'The pipeline.', schema: pipelineData() } },
      },
    ),
    async (c) => (await handlers()).getPipeline(c),
  );
}

function v2StartPipelineRoute(app: Hono<HonoTypes>, handlers: () => Promise<ExportHandlers>): void {
  app.post(
    `${ITEM}/start`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2StartPipeline',
        summary: 'Start a pipeline',
        description: 'From its cursor. A running pipeline is a 400 (already started).',
        tags: TAGS,
        responses: { 202: { description: 'Accepted.' } },
      },
    ),
    async (c) => (await handlers()).start(c),
  );
}

function v2StopPipelineRoute(app: Hono<HonoTypes>, handlers: () => Promise<ExportHandlers>): void {
  app.post(
    `${ITEM}/stop`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2StopPipeline',
        summary: 'Stop a pipeline',
        description:
          'The batch in flight completes; no further batch is sent. Stopping a stopped pipeline changes nothing.',
        tags: TAGS,
        responses: { 202: { description: 'Accepted.' } },
      },
    ),
    async (c) => (await handlers()).stop(c),
  );
}

function v2ResetPipelineRoute(app: Hono<HonoTypes>, handlers: () => Promise<ExportHandlers>): void {
  app.post(
    `${ITEM}/reset`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ResetPipeline',
        summary: 'Reset a pipeline',
        description: 'Sends the whole log again from the first log, and starts the pipeline.',
        tags: TAGS,
        responses: { 202: { description: 'Accepted.' } },
      },
    ),
    async (c) => (await handlers()).reset(c),
  );
}

function v2DeletePipelineRoute(
  app: Hono<HonoTypes>,
  handlers: () => Promise<ExportHandlers>,
): void {
  app.delete(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeletePipeline',
        summary: 'Delete a pipeline',
        tags: TAGS,
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => (await handlers()).deletePipeline(c),
  );
}
