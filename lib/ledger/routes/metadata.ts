import type { Context, Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, header, openapi, query } from '../../openapi/describe.js';
import { metadataMap } from '../../validation/common.js';
import type { MetadataChange, MetadataTarget } from '../commands/metadata.js';
import type { SchemaReads } from '../commands/schema-write.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { readAddress, readIdempotencyKey, readTransactionId, requestLedger } from './request.js';
import { requestSchema, SCHEMA_VERSION_PARAMETER, writeSchemaOption } from './schema-version.js';

export interface MetadataRoutesDeps {
  lookup: LedgerLookup;
  commands: LedgerCommands;
  schemas: SchemaReads;
}

/** One metadata change, through the ledger's commands (idempotent, dry run, under the request's schema). */
async function apply(
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
  c: Context<HonoTypes>,
  target: MetadataTarget,
  change: MetadataChange,
) {
  const { lookup, commands, schemas } = depsOf(c);
  const ledger = await requestLedger(c, lookup);
  const schema = await requestSchema(c, schemas, ledger);
  const idempotencyKey = readIdempotencyKey(c);
  const outcome = await commands.execute(ledger, {
    kind: 'metadata',
    target,
    change,
    options: {
      dryRun: booleanFlag(c.req.query('dryRun'), 'dryRun'),
      ...writeSchemaOption(schema),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    },
  });
  // A replayed write says so, as create and revert do (the reference sets it on every idempotent replay).
  if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
  return c.body(null, 204);
}

/** Metadata writes on transactions and accounts (docs/api.md §3.2, §3.3): 204 on success. */
export function metadataRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
): void {
  v2AddMetadataOnTransactionRoute(app, depsOf);
  v2DeleteTransactionMetadataRoute(app, depsOf);
  v2AddMetadataToAccountRoute(app, depsOf);
  v2DeleteAccountMetadataRoute(app, depsOf);
}

function v2AddMetadataOnTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/transactions/:id/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2AddMetadataOnTransaction',
        summary: "Set a transaction's metadata",
        description: 'Merged into the existing metadata.',
        tags: ['ledger: transactions'],
        parameters: [
          query('dryRun', 'Check without writing.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) =>
      apply(
        depsOf,
        c,
        { type: 'TRANSACTION', id: readTransactionId(c.req.param('id')) },
        { kind: 'save', metadata: await readJsonBody(c, metadataMap) },
      ),
  );
}

function v2DeleteTransactionMetadataRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
): void {
  app.delete(
    '/v2/:ledger/transactions/:id/metadata/:key',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteTransactionMetadata',
        summary: "Delete a transaction's metadata key",
        tags: ['ledger: transactions'],
        parameters: [
          query('dryRun', 'Check without writing.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    (c) =>
      apply(
        depsOf,
        c,
        { type: 'TRANSACTION', id: readTransactionId(c.req.param('id')) },
        { kind: 'delete', key: c.req.param('key') },
      ),
  );
}

function v2AddMetadataToAccountRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/accounts/:address/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2AddMetadataToAccount',
        summary: "Set an account's metadata",
        description: 'Creates the account if needed; merged into its metadata.',
        tags: ['ledger: accounts'],
        parameters: [
          query('dryRun', 'Check without writing.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) =>
      apply(
        depsOf,
        c,
        { type: 'ACCOUNT', address: readAddress(c.req.param('address')) },
        { kind: 'save', metadata: await readJsonBody(c, metadataMap) },
      ),
  );
}

function v2DeleteAccountMetadataRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => MetadataRoutesDeps,
): void {
  app.delete(
    '/v2/:ledger/accounts/:address/metadata/:key',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteAccountMetadata',
        summary: "Delete an account's metadata key",
        tags: ['ledger: accounts'],
        parameters: [
          query('dryRun', 'Check without writing.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    (c) =>
      apply(
        depsOf,
        c,
        { type: 'ACCOUNT', address: readAddress(c.req.param('address')) },
        { kind: 'delete', key: c.req.param('key') },
      ),
  );
}
