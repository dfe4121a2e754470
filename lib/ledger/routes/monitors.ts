import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { AppEnv } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { describe } from '../../openapi/describe.js';
import { cursorOf, dataOf } from '../../openapi/schemas.js';
import { createMonitorWrite, deleteMonitorWrite } from '../commands/monitors.js';
import { MAX_MONITORS } from '../domain/monitors.js';
import { createMonitorSchema, monitorSchema, monitorView } from '../domain/monitors-schema.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { MappingReads } from '../store/mapping-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { requestLedger } from './request.js';

const TAGS = ['ledger: accounts'];
const monitorData = dataOf(monitorSchema);

/** The ledger's balance monitors (docs/api.md §3.6): create, list, read, delete. */
export function monitorsRoutes(
  app: Hono<AppEnv>,
  {
    lookup,
    writer,
    mappings,
  }: { lookup: LedgerLookup; writer: LedgerWriter; mappings: MappingReads },
): void {
  const monitorsOf = async (c: Parameters<typeof requestLedger>[0]) =>
    (await mappings.get(await requestLedger(c, lookup)))?.monitors ?? [];

  openapi: app.post(
    '/v2/:ledger/monitors',
    describe({
      operationId: 'v2CreateMonitor',
      summary: 'Create a balance monitor',
      description:
        'Triggers `ledger.balance_monitor_triggered` once per crossing of its condition, in commit order (an extension of the reference API).',
      tags: TAGS,
      body: createMonitorSchema,
      responses: { 201: { description: 'The monitor, in force from now.', schema: monitorData } },
    }),
  );
  app.post('/v2/:ledger/monitors', async (c) => {
    const ledger = await requestLedger(c, lookup);
    const body = await readJsonBody(c, createMonitorSchema, { parse: parseJson });
    const monitor = await writer.writeHead(createMonitorWrite(ledger, body, randomUUID()));
    return jsonResponse(c, { data: monitor }, 201);
  });

  openapi: app.get(
    '/v2/:ledger/monitors',
    describe({
      operationId: 'v2ListMonitors',
      summary: "The ledger's balance monitors",
      description: 'Every monitor (at most 100), oldest first, in one page.',
      tags: TAGS,
      responses: { 200: { description: 'The monitors.', schema: cursorOf(monitorSchema) } },
    }),
  );
  app.get('/v2/:ledger/monitors', async (c) => {
    const monitors = (await monitorsOf(c)).map(monitorView);
    return jsonResponse(c, {
      cursor: { pageSize: MAX_MONITORS, hasMore: false, data: monitors },
    });
  });

  openapi: app.get(
    '/v2/:ledger/monitors/:monitorID',
    describe({
      operationId: 'v2GetMonitor',
      summary: 'A balance monitor',
      tags: TAGS,
      responses: { 200: { description: 'The monitor.', schema: monitorData } },
    }),
  );
  app.get('/v2/:ledger/monitors/:monitorID', async (c) => {
    const id = c.req.param('monitorID');
    const monitor = (await monitorsOf(c)).find((m) => m.id === id);
    if (!monitor) throw new NotFoundError(`monitor ${id.slice(0, 64)} not found`);
    return jsonResponse(c, { data: monitorView(monitor) });
  });

  openapi: app.delete(
    '/v2/:ledger/monitors/:monitorID',
    describe({
      operationId: 'v2DeleteMonitor',
      summary: 'Delete a balance monitor',
      description: 'Writes committed after it trigger it no more.',
      tags: TAGS,
      responses: { 204: { description: 'Deleted.' } },
    }),
  );
  app.delete('/v2/:ledger/monitors/:monitorID', async (c) => {
    const ledger = await requestLedger(c, lookup);
    const id = c.req.param('monitorID');
    await writer.writeHead(deleteMonitorWrite(ledger, id));
    return c.body(null, 204);
  });
}
