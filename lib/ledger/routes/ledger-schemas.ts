import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError, SchemaAlreadyExistsError, ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { cursorOf, dataOf, dateTime } from '../../openapi/schemas.js';
import { readListQuery } from '../../pagination/cursor.js';
import { instantFromMs } from '../../time/instant.js';
import {
  parseSchemaInput,
  readSchemaVersion,
  type SchemaInput,
} from '../domain/schema/schema-data.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { type SchemaStore, schemaListName } from '../store/schema-store.js';
import { requestLedger } from './request.js';

const sameSchema = (a: SchemaInput, b: SchemaInput) =>
  JSON.stringify([a.chart, a.queries, a.transactions]) ===
  JSON.stringify([b.chart, b.queries, b.transactions]);

export interface SchemaRoutesDeps {
  lookup: LedgerLookup;
  schemas: SchemaStore;
  now: () => number;
}

const templates = v.optional(v.record(v.string(), v.looseObject({})));
/** What insertSchema takes (checked whole by domain/schema before anything is stored). */
const schemaBody = v.looseObject({
  chart: v.record(v.string(), v.unknown()),
  queries: templates,
  transactions: templates,
});
const schemaView = v.looseObject({
  version: v.string(),
  createdAt: dateTime,
  chart: v.record(v.string(), v.unknown()),
  queries: templates,
  transactions: templates,
});
export const ledgerSchemaSchemas = { Schema: schemaView, SchemaData: schemaBody };

/**
 * Ledger schemas (v2.4, docs/api.md §3.5): versions inserted once and never changed, read one at a time or listed
 * by creation. Their query templates run through `queries/{id}/run`.
 */
export function schemaRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => SchemaRoutesDeps,
): void {
  v2InsertSchemaRoute(app, depsOf);
  v2GetSchemaRoute(app, depsOf);
  v2ListSchemasRoute(app, depsOf);
}

function v2InsertSchemaRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => SchemaRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/schemas/:version',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2InsertSchema',
        summary: 'Insert a schema version',
        description:
          'The chart of accounts, query templates and transaction templates of a new version. A version exists once: inserting it again is 400 `SCHEMA_ALREADY_EXISTS` (unless the same body comes with an `Idempotency-Key`).',
        tags: ['ledger: schemas'],
        body: schemaBody,
        responses: { 204: { description: 'Inserted.' } },
      },
    ),
    async (c) => {
      const { lookup, schemas, now } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const version = readSchemaVersion(c.req.param('version'));
      const input = parseSchemaInput(await readJsonBody(c, schemaBody));
      if (await schemas.insert(ledger, version, input, instantFromMs(now())))
        return c.body(null, 204);
      // A retried insert (same key, same body) is the insert that already happened.
      const existing = await schemas.get(ledger, version);
      if (c.req.header('idempotency-key') && existing && sameSchema(existing, input))
        return c.body(null, 204);
      throw new SchemaAlreadyExistsError(`schema version "${version}" already exists`);
    },
  );
}

function v2GetSchemaRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => SchemaRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/schemas/:version',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetSchema',
        summary: 'Get a schema version',
        tags: ['ledger: schemas'],
        responses: { 200: { description: 'The schema version.', schema: dataOf(schemaView) } },
      },
    ),
    async (c) => {
      const { lookup, schemas } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const version = c.req.param('version');
      const found = /^[0-9A-Za-z._-]{1,64}$/.test(version)
        ? await schemas.get(ledger, version)
        : undefined;
      if (!found) throw new NotFoundError(`schema version "${version.slice(0, 64)}" not found`);
      return jsonResponse(c, { data: found });
    },
  );
}

function v2ListSchemasRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => SchemaRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/schemas',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListSchemas',
        summary: 'List schema versions',
        description: 'By creation, newest first (`order=asc`: oldest first).',
        tags: ['ledger: schemas'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('sort', '`created_at` (the one order served).'),
          query('order', '`asc` or `desc` (default).'),
        ],
        responses: { 200: { description: 'A page of versions.', schema: cursorOf(schemaView) } },
      },
    ),
    async (c) => {
      const { lookup, schemas } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const list = readListQuery(c.req.query(), schemaListName(ledger.name), ['sort', 'order']);
      const params = list.cursor ? (list.cursor.f ?? {}) : c.req.query();
      if (params.sort !== undefined && params.sort !== 'created_at')
        throw new ValidationError('sort: schemas are listed by created_at');
      if (params.order !== undefined && params.order !== 'asc' && params.order !== 'desc')
        throw new ValidationError('order: must be asc or desc');
      const page = await schemas.list(ledger, list, params.order === 'asc');
      return jsonResponse(c, { cursor: page });
    },
  );
}
