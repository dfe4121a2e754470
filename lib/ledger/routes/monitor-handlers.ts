import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { createMonitorWrite, deleteMonitorWrite } from '../commands/monitors.js';
import { MAX_MONITORS, monitorView } from '../domain/monitors.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { MappingReads } from '../store/mapping-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { createMonitorSchema } from './monitor-schemas.js';
import { requestLedger } from './request.js';

export interface MonitorDeps {
  lookup: LedgerLookup;
  writer: LedgerWriter;
  mappings: MappingReads;
}

export type MonitorHandlers = ReturnType<typeof monitorHandlers>;

/**
 * The monitors' handlers (docs/api.md §3.6), loaded by routes/monitors.ts at the first monitors request a container
 * serves: their schemas and commands are no part of a cold start.
 */
export function monitorHandlers({ lookup, writer, mappings }: MonitorDeps) {
  const schema = createMonitorSchema();
  const monitorsOf = async (c: Context<HonoTypes>) =>
    (await mappings.get(await requestLedger(c, lookup)))?.monitors ?? [];
  return {
    async create(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await requestLedger(c, lookup);
      const body = await readJsonBody(c, schema, { parse: parseJson });
      const monitor = await writer.writeHead(createMonitorWrite(ledger, body, randomUUID()));
      return jsonResponse(c, { data: monitor }, 201);
    },
    async list(c: Context<HonoTypes>): Promise<Response> {
      const monitors = (await monitorsOf(c)).map(monitorView);
      return jsonResponse(c, {
        cursor: { pageSize: MAX_MONITORS, hasMore: false, data: monitors },
      });
    },
    async get(c: Context<HonoTypes>): Promise<Response> {
      const id = c.req.param('monitorID') ?? '';
      const monitor = (await monitorsOf(c)).find((m) => m.id === id);
      if (!monitor) throw new NotFoundError(`monitor ${id.slice(0, 64)} not found`);
      return jsonResponse(c, { data: monitorView(monitor) });
    },
    async delete(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await requestLedger(c, lookup);
      await writer.writeHead(deleteMonitorWrite(ledger, c.req.param('monitorID') ?? ''));
      return c.body(null, 204);
    },
  };
}
