import type { Context } from 'hono';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { requestLedger } from '../../ledger/routes/request.js';
import type { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import { readListQuery } from '../../pagination/cursor.js';
import { ExportCommands, type PipelineTransition } from '../commands/export-commands.js';
import { EXPORTERS_LIST, pipelinesList } from '../store/keys.js';
import { exportStores } from '../stores.js';
import { createPipelineSchema, exporterConfigurationSchema } from './bodies.js';
import type { ExportRoutesDeps } from './register.js';

const exporterBody = exporterConfigurationSchema();
const pipelineBody = createPipelineSchema();

type Handler = (c: Context<HonoTypes>) => Promise<Response>;

/** The handlers over the operations of `deps`' table, as the routes load them at their first request. */
export function exportHandlersFor(deps: ExportRoutesDeps) {
  const { scopeFor, table } = deps;
  // Each environment's exporters and pipelines through its own client.
  const stores = (environment: string) =>
    exportStores(scopeFor(environment).doc, table)(environment);
  const commands = new ExportCommands(stores, deps.stage, deps.now);
  return exportHandlers(commands, (environment) => scopeFor(environment).lookup);
}

export type ExportHandlers = ReturnType<typeof exportHandlers>;

/**
 * What each exporter and pipeline route does (registered in exporters.ts and pipelines.ts): parse the request,
 * run one operation in the token's environment, answer. Loaded at the first such request.
 */
export function exportHandlers(
  run: ExportCommands,
  lookupFor: (environment: string) => LedgerLookup,
) {
  const exporterId = (c: Context<HonoTypes>) => c.req.param('exporterID') ?? '';
  const pipelineId = (c: Context<HonoTypes>) => c.req.param('pipelineID') ?? '';
  /** The ledger must exist in the token's environment, before anything else is read. */
  const ledgerOf = async (c: Context<HonoTypes>) =>
    (await requestLedger(c, lookupFor(environmentOf(c)))).name;
  const transition =
    (to: PipelineTransition): Handler =>
    async (c) => {
      await run.changePipeline(environmentOf(c), await ledgerOf(c), pipelineId(c), to);
      return c.body(null, 202);
    };
  return {
    createExporter: (async (c) => {
      const body = await readJsonBody(c, exporterBody);
      return jsonResponse(c, { data: await run.createExporter(environmentOf(c), body) }, 201);
    }) as Handler,
    listExporters: (async (c) => {
      const query = readListQuery(c.req.query(), EXPORTERS_LIST);
      return jsonResponse(c, { cursor: await run.listExporters(environmentOf(c), query) });
    }) as Handler,
    getExporter: (async (c) =>
      jsonResponse(c, { data: await run.getExporter(environmentOf(c), exporterId(c)) })) as Handler,
    replaceExporter: (async (c) => {
      const body = await readJsonBody(c, exporterBody);
      await run.replaceExporter(environmentOf(c), exporterId(c), body);
      return c.body(null, 204);
    }) as Handler,
    deleteExporter: (async (c) => {
      await run.deleteExporter(environmentOf(c), exporterId(c));
      return c.body(null, 204);
    }) as Handler,
    createPipeline: (async (c) => {
      const ledger = await ledgerOf(c);
      const { exporterID } = await readJsonBody(c, pipelineBody);
      const data = await run.createPipeline(environmentOf(c), ledger, exporterID);
      return jsonResponse(c, { data }, 201);
    }) as Handler,
    listPipelines: (async (c) => {
      const ledger = await ledgerOf(c);
      const query = readListQuery(c.req.query(), pipelinesList(ledger));
      return jsonResponse(c, { cursor: await run.listPipelines(environmentOf(c), ledger, query) });
    }) as Handler,
    getPipeline: (async (c) => {
      const ledger = await ledgerOf(c);
      return jsonResponse(c, {
        data: await run.getPipeline(environmentOf(c), ledger, pipelineId(c)),
      });
    }) as Handler,
    start: transition('start'),
    stop: transition('stop'),
    reset: transition('reset'),
    deletePipeline: (async (c) => {
      await run.deletePipeline(environmentOf(c), await ledgerOf(c), pipelineId(c));
      return c.body(null, 204);
    }) as Handler,
  };
}
