import type { Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import * as v from 'valibot';
import { lazyLoad } from '../../async/lazy-load.js';
import { ValidationError } from '../../errors/index.js';
import type { HonoTypes } from '../../http/types.js';
import { stringifyJson } from '../../json/bigint-json.js';
import { openapi, query } from '../../openapi/describe.js';
import type { LogImportDeps } from '../commands/import-logs.js';
import { bodyLines } from '../domain/body-lines.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { logView } from './logs.js';
import { requestLedger } from './request.js';

export interface LogTransferDeps extends LogImportDeps {
  lookup: LedgerLookup;
}

/**
 * Log export and import as the reference serves them: the export is the ledger's whole log, oldest first, one Log
 * (as the v2 log list serves it) per line, `application/octet-stream`; the import takes that stream into an empty
 * ledger and answers 204 (commands/import-logs.ts).
 */
export function logTransferRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LogTransferDeps,
): void {
  v2ExportLogsRoute(app, depsOf);
  v2ImportLogsRoute(app, depsOf);
}

function v2ExportLogsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LogTransferDeps,
): void {
  app.post(
    '/v2/:ledger/logs/export',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ExportLogs',
        summary: "Export a ledger's log",
        description: 'The whole log, oldest first, one Log (JSON) per line.',
        tags: ['ledger: logs'],
        responses: {
          200: {
            description: 'The log stream.',
            mediaType: 'application/octet-stream',
            schema: v.string(),
          },
        },
      },
    ),
    async (c) => {
      const deps = depsOf(c);
      // Resolved before the stream starts: an unknown ledger is a 404, not an empty 200.
      const ledger = await requestLedger(c, deps.lookup);
      c.header('content-type', 'application/octet-stream');
      return stream(
        c,
        async (out) => {
          for await (const log of deps.logs.oldestFirst(ledger))
            await out.write(`${stringifyJson(logView(log))}\n`);
        },
        // The status is sent already: a failed read can only cut the stream short (the last line's id tells).
        async (err) => {
          c.get('logger')?.log('error', 'log export failed', {
            requestId: c.get('requestId'),
            error: { name: err.name, message: err.message },
          });
        },
      );
    },
  );
}

function v2ImportLogsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LogTransferDeps,
): void {
  app.post(
    '/v2/:ledger/logs/import',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ImportLogs',
        summary: 'Import a log into an empty ledger',
        description:
          'The stream an export produced: the chain is verified and every log replayed through the ledger rules.',
        tags: ['ledger: logs'],
        parameters: [
          query(
            'after',
            "Continue a ledger an earlier import filled: its last log id, which must be the ledger's last (docs/api.md).",
            { type: 'integer', minimum: 0 },
          ),
        ],
        body: v.string(),
        bodyMediaType: 'application/octet-stream',
        responses: { 204: { description: 'Imported.' } },
      },
    ),
    async (c) => {
      const deps = depsOf(c);
      const ledger = await requestLedger(c, deps.lookup);
      const after = afterParam(c.req.query('after'));
      const body = c.req.raw.body ?? emptyBody();
      const { importLogs, MAX_IMPORT_LINE_BYTES } = await loadImport();
      await importLogs(deps, ledger, bodyLines(body, MAX_IMPORT_LINE_BYTES), after);
      return c.body(null, 204);
    },
  );
}

/**
 * The import (its command, the chain check, the replay) loads at the first import a container serves (a chunk of
 * the split bundle): a rare operation, and 5 kB every cold start would otherwise carry. No static import of
 * commands/import-logs.ts or domain/log-import.ts may stay in this file.
 */
const loadImport = lazyLoad(() => import('../commands/import-logs.js'));

/** `after`: the ledger's last log id, when the import continues a ledger an earlier part filled. */
function afterParam(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw new ValidationError('after: must be a log id (an integer of at most 15 digits)');
  return Number(value);
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}
