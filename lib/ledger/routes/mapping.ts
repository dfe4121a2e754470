import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import { openapi } from '../../openapi/describe.js';
import { updateMappingWrite } from '../commands/mapping.js';
import { mappingView, parseMapping } from '../domain/mapping.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { MappingReads } from '../store/mapping-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { mappingBodySchema, mappingSchema } from './schemas.js';
import { resolveV1Ledger } from './v1-ledger.js';

export interface MappingRoutesDeps {
  lookup: LedgerLookup;
  writer: LedgerWriter;
  mappings: MappingReads;
}

const answer = (c: Context, data: unknown) =>
  c.body(stringifyJson({ data }), 200, { 'content-type': 'application/json' });

/**
 * The v1 mapping (docs/api.md §3.4): GET answers `{data: Mapping | null}` (null until one is set, as the reference
 * did), PUT replaces it and answers the stored mapping. Integers in expressions are always bare JSON numbers,
 * whatever `Formance-Bigint-As-String` says: in an expression a string is a string constant, not a number.
 */
export function mappingRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MappingRoutesDeps,
): void {
  getMappingRoute(app, depsOf);
  updateMappingRoute(app, depsOf);
}

function getMappingRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MappingRoutesDeps,
): void {
  app.get(
    '/:ledger/mapping',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getMapping',
        summary: "Get the ledger's mapping (v1)",
        tags: ['ledger v1'],
        deprecated: true,
        responses: {
          200: { description: 'The contracts (`null` when none).', schema: mappingSchema },
        },
      },
    ),
    async (c) => {
      const { lookup, mappings } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      const mapping = await mappings.get(ledger);
      return answer(c, mapping ? mappingView(mapping) : null);
    },
  );
}

function updateMappingRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MappingRoutesDeps,
): void {
  app.put(
    '/:ledger/mapping',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'updateMapping',
        summary: "Replace the ledger's mapping (v1)",
        description:
          'Contracts constrain balances: the first matching contract decides; `world` is exempt.',
        tags: ['ledger v1'],
        deprecated: true,
        body: mappingBodySchema,
        responses: { 200: { description: 'The mapping saved.', schema: mappingSchema } },
      },
    ),
    async (c) => {
      const { lookup, writer } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      const mapping = parseMapping(await readJsonBody(c, v.unknown(), { parse: parseJson }));
      return answer(c, await writer.writeHead(updateMappingWrite(ledger, mapping)));
    },
  );
}
