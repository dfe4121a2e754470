import type { Context, Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { openapi } from '../../openapi/describe.js';
import { dataOf } from '../../openapi/schemas.js';
import { updateLimitsWrite } from '../commands/limits.js';
import { limitsView } from '../domain/limits.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { MappingReads } from '../store/mapping-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { limitsBodySchema } from './limits-requests.js';
import { requestLedger } from './request.js';

const limitsData = dataOf(limitsBodySchema);

interface LimitsRoutesDeps {
  lookup: LedgerLookup;
  writer: LedgerWriter;
  mappings: MappingReads;
}

/** The ledger's persistent balance limits (docs/api.md §3.6): read and replace. */
export function limitsRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LimitsRoutesDeps,
): void {
  v2GetLimitsRoute(app, depsOf);
  v2UpdateLimitsRoute(app, depsOf);
}

function v2GetLimitsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LimitsRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/limits',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetLimits',
        summary: "The ledger's balance limits",
        description:
          'Rules per account pattern and asset that no write may break (an extension of the reference API).',
        tags: ['ledger: accounts'],
        responses: { 200: { description: 'The rules (none: `[]`).', schema: limitsData } },
      },
    ),
    async (c) => {
      const { lookup, mappings } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const mapping = await mappings.get(ledger);
      return jsonResponse(c, { data: limitsView(mapping?.limits ?? []) });
    },
  );
}

function v2UpdateLimitsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LimitsRoutesDeps,
): void {
  app.put(
    '/v2/:ledger/limits',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2UpdateLimits',
        summary: "Replace the ledger's balance limits",
        description:
          'In force for every write committed after it: min, max, debitsMustNotExceedCredits, creditsMustNotExceedDebits; `force` lifts a rule only with `forceAllowed`.',
        tags: ['ledger: accounts'],
        body: limitsBodySchema,
        responses: { 200: { description: 'The rules saved.', schema: limitsData } },
      },
    ),
    async (c) => {
      const { lookup, writer } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const body = await readJsonBody(c, limitsBodySchema, { parse: parseJson });
      return jsonResponse(c, {
        data: await writer.writeHead(updateLimitsWrite(ledger, body.rules)),
      });
    },
  );
}
