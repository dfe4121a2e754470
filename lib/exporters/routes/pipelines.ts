import type { Context, Hono } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { AppEnv } from '../../http/types.js';
import { requestLedger } from '../../ledger/routes/request.js';
import type { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import { describe, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import {
  isPipelineId,
  newPipeline,
  type Pipeline,
  pipelineView,
  reset,
  started,
  stopped,
} from '../domain/pipeline.js';
import { pipelinesList } from '../store/keys.js';
import type { ExportStores } from '../stores.js';
import { createPipelineSchema, pipelineData, pipelinePage } from './schemas.js';

export interface PipelineRoutesDeps {
  stores: ExportStores;
  lookup: LedgerLookup;
  now: () => number;
}

const TAGS = ['ledger: pipelines'];
const notFound = (id: string) => new NotFoundError(`pipeline '${id.slice(0, 64)}' not found`);
const ITEM = '/v2/:ledger/pipelines/:pipelineID';

/** A ledger's pipelines (docs/api.md §3.5): the reference's seven operations. */
export function pipelineRoutes(
  app: Hono<AppEnv>,
  { stores, lookup, now }: PipelineRoutesDeps,
): void {
  /** The ledger (it must exist in the token's environment) and the environment's stores. */
  const scope = async (c: Context<AppEnv>) => {
    const ledger = await requestLedger(c, lookup);
    return { ledger: ledger.name, ...stores(environmentOf(c)) };
  };
  const pipelineId = (c: Context<AppEnv>) => {
    const id = c.req.param('pipelineID') ?? '';
    if (!isPipelineId(id)) throw notFound(id);
    return id;
  };

  openapi: app.post(
    '/v2/:ledger/pipelines',
    describe({
      operationId: 'v2CreatePipeline',
      summary: 'Create a pipeline',
      description:
        'Sends the ledger’s log through the exporter from its first log, and then each new one; started at once. ' +
        'One pipeline per ledger and exporter.',
      tags: TAGS,
      body: createPipelineSchema,
      responses: { 201: { description: 'The pipeline.', schema: pipelineData } },
    }),
  );
  app.post('/v2/:ledger/pipelines', async (c) => {
    const { ledger, pipelines } = await scope(c);
    const { exporterID } = await readJsonBody(c, createPipelineSchema);
    const pipeline = newPipeline(ledger, exporterID, formatInstant(instantFromMs(now())));
    const outcome = await pipelines.create(pipeline);
    if (outcome === 'no-exporter')
      throw new ValidationError(`exporter '${exporterID.slice(0, 64)}' not found`);
    if (outcome === 'exists')
      throw new ValidationError(`pipeline '${ledger}/${exporterID.slice(0, 64)}' already exists`);
    return jsonResponse(c, { data: pipelineView(pipeline) }, 201);
  });

  openapi: app.get(
    '/v2/:ledger/pipelines',
    describe({
      operationId: 'v2ListPipelines',
      summary: 'List a ledger’s pipelines',
      tags: TAGS,
      parameters: PAGE_PARAMETERS,
      responses: { 200: { description: 'A page of pipelines.', schema: pipelinePage } },
    }),
  );
  app.get('/v2/:ledger/pipelines', async (c) => {
    const { ledger, pipelines } = await scope(c);
    const page = await pipelines.list(ledger, readListQuery(c.req.query(), pipelinesList(ledger)));
    return jsonResponse(c, { cursor: { ...page, data: page.data.map(pipelineView) } });
  });

  openapi: app.get(
    ITEM,
    describe({
      operationId: 'v2GetPipelineState',
      summary: 'Get a pipeline’s state',
      description:
        '`lastLogID` is the last log the exporter accepted; `error` the last failure, until a batch succeeds.',
      tags: TAGS,
      responses: { 200: { description: 'The pipeline.', schema: pipelineData } },
    }),
  );
  app.get(ITEM, async (c) => {
    const { ledger, pipelines } = await scope(c);
    const id = pipelineId(c);
    const stored = await pipelines.get(ledger, id);
    if (!stored) throw notFound(id);
    return jsonResponse(c, { data: pipelineView(stored.pipeline) });
  });

  const transition = (
    operationId: string,
    verb: string,
    summary: string,
    description: string,
    decide: (p: Pipeline) => Pipeline,
  ) => {
    openapi: app.post(
      `${ITEM}/${verb}`,
      describe({
        operationId,
        summary,
        description,
        tags: TAGS,
        responses: { 202: { description: 'Accepted.' } },
      }),
    );
    app.post(`${ITEM}/${verb}`, async (c) => {
      const { ledger, pipelines } = await scope(c);
      const id = pipelineId(c);
      if (!(await pipelines.change(ledger, id, decide))) throw notFound(id);
      return c.body(null, 202);
    });
  };
  transition(
    'v2StartPipeline',
    'start',
    'Start a pipeline',
    'From its cursor. A running pipeline is a 400 (already started).',
    started,
  );
  transition(
    'v2StopPipeline',
    'stop',
    'Stop a pipeline',
    'The batch in flight completes; no further batch is sent. Stopping a stopped pipeline changes nothing.',
    stopped,
  );
  transition(
    'v2ResetPipeline',
    'reset',
    'Reset a pipeline',
    'Sends the whole log again from the first log, and starts the pipeline.',
    reset,
  );

  openapi: app.delete(
    ITEM,
    describe({
      operationId: 'v2DeletePipeline',
      summary: 'Delete a pipeline',
      tags: TAGS,
      responses: { 204: { description: 'Deleted.' } },
    }),
  );
  app.delete(ITEM, async (c) => {
    const { ledger, pipelines } = await scope(c);
    const id = pipelineId(c);
    if (!(await pipelines.delete(ledger, id))) throw notFound(id);
    return c.body(null, 204);
  });
}
