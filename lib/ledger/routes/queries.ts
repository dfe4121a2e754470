import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { stringifyJson } from '../../json/bigint-json.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import {
  type QueryResource,
  type QueryTemplate,
  resolveQueryTemplate,
} from '../domain/schema/query-template.js';
import { schemaQuery } from '../domain/schema/schema-data.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { SchemaStore } from '../store/schema-store.js';
import { requestLedger } from './request.js';

export interface QueryRoutesDeps {
  lookup: LedgerLookup;
  schemas: SchemaStore;
  /** The service itself: a run is answered by the resource's own list route (its planner, its bounded pages). */
  dispatch: (request: Request) => Promise<Response>;
}

const runBody = v.looseObject({
  vars: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
  params: v.optional(v.looseObject({})),
  cursor: v.optional(v.string()),
});

/** The list parameters a run may set (the template's, the body's `params`, the query string's, in that order). */
const LIST_PARAMS = [
  'pageSize',
  'sort',
  'pit',
  'expand',
  'order',
  'reverse',
  'groupBy',
  'insertionDate',
];

/**
 * `POST /v2/{ledger}/queries/{id}/run?schemaVersion=…` (v2.4, docs/api.md §3.5): the query template `id` of that
 * schema version, its variables put in, run as the list of its resource — the same route, so the same query
 * language, planner, bounded pages and cursors. A cursor alone (query string or body) continues a run.
 */
export function queryRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => QueryRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/queries/:id/run',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2RunQuery',
        summary: 'Run a query template',
        description:
          "Runs the schema version's query template as its resource's list (transactions, accounts, logs, volumes) and answers that list's page.",
        tags: ['ledger: schemas'],
        parameters: [
          query('schemaVersion', 'The schema version holding the template.'),
          ...PAGE_PARAMETERS,
          query('sort', 'As the list takes it.'),
          query('pit', 'As the list takes it.'),
          query('expand', 'As the list takes it.'),
        ],
        body: runBody,
        responses: { 200: { description: "The resource list's page." } },
      },
    ),
    async (c) => {
      const { lookup, schemas, dispatch } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const version = c.req.query('schemaVersion');
      if (!version) throw new ValidationError('schemaVersion: required');
      const schema = /^[0-9A-Za-z._-]{1,64}$/.test(version)
        ? await schemas.get(ledger, version)
        : undefined;
      if (!schema) throw new NotFoundError(`schema version "${version.slice(0, 64)}" not found`);
      const id = c.req.param('id');
      const template = schemaQuery(schema, id);
      if (!template)
        throw new NotFoundError(
          `schema version "${version}" has no query template "${id.slice(0, 64)}"`,
        );
      const body = (await readJsonBody(c, v.optional(runBody), { optional: true })) ?? {};
      // A cursor carries the run's filter and parameters: with one, the variables are not read again.
      const cursor = c.req.query('cursor') ?? body.cursor;
      const search = cursor
        ? new URLSearchParams({
            cursor,
            ...(c.req.query('pageSize') ? { pageSize: c.req.query('pageSize')! } : {}),
          })
        : runSearch(template, body, c.req.query());
      const url = new URL(c.req.url);
      url.pathname = url.pathname.replace(/\/queries\/[^/]+\/run$/, `/${template.resource}`);
      url.search = search.toString();
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-type');
      headers.delete('content-length');
      return dispatch(new Request(url, { method: 'GET', headers }));
    },
  );
}

/** A first run's list query string: the template resolved with the body's vars, the parameters merged. */
function runSearch(
  template: QueryTemplate,
  body: v.InferOutput<typeof runBody>,
  search: Record<string, string>,
): URLSearchParams {
  const resolved = resolveQueryTemplate(template, body.vars ?? {});
  return listSearch(resolved.resource, resolved.filter, {
    ...resolved.params,
    ...stringParams(body.params ?? {}),
    ...stringParams(search),
  });
}

function stringParams(raw: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(raw).flatMap(([name, value]) =>
      LIST_PARAMS.includes(name) && value !== undefined ? [[name, String(value)]] : [],
    ),
  );
}

/** The list's query string: the filter as its `query`, and the parameters in that list's own words. */
function listSearch(
  resource: QueryResource,
  filter: unknown,
  params: Record<string, string>,
): URLSearchParams {
  const { pit, ...rest } = params;
  let where = filter;
  const out: Record<string, string> = { ...rest };
  if (pit !== undefined) {
    // Volumes take the window's end, logs a condition on their date; the other lists take `pit` as is.
    if (resource === 'volumes') out.endTime = pit;
    else if (resource === 'logs')
      where = where ? { $and: [where, { $lte: { date: pit } }] } : { $lte: { date: pit } };
    else out.pit = pit;
  }
  if (resource === 'logs') delete out.expand;
  if (where !== undefined) out.query = stringifyJson(where);
  return new URLSearchParams(out);
}
