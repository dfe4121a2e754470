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
import { readIdempotencyKey } from './request.js';
import { requestSchema, V1_SCHEMA_VERSION_PARAMETER, writeSchemaOption } from './schema-version.js';
import { resolveV1Ledger, v1Handler } from './v1-ledger.js';

/**
 * v1's metadata writes on a transaction or an account (`<path>/metadata`, `<path>/metadata/:key`): v2's metadata
 * command (same log, idempotency and events), `preview` as a dry run, 204.
 */
export function v1MetadataRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => {
    lookup: LedgerLookup;
    commands: LedgerCommands;
    schemas: SchemaReads;
  },
  path: string,
  targetOf: (c: Context<HonoTypes>) => MetadataTarget,
): void {
  const write = (changeOf: (c: Context<HonoTypes>) => Promise<MetadataChange>) =>
    v1Handler(async (c) => {
      const { lookup, commands, schemas } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      const target = targetOf(c);
      const schema = await requestSchema(c, schemas, ledger);
      const idempotencyKey = readIdempotencyKey(c);
      const outcome = await commands.execute(ledger, {
        kind: 'metadata',
        target,
        change: await changeOf(c),
        options: {
          dryRun: booleanFlag(c.req.query('preview'), 'preview'),
          ...writeSchemaOption(schema),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
      });
      if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
      return c.body(null, 204);
    });
  const onAccount = path.includes('/accounts/');
  const parameters = [
    query('preview', 'Check without writing (a dry run).', BOOLEAN),
    V1_SCHEMA_VERSION_PARAMETER,
    header('Idempotency-Key', 'Replays of the same key and body answer the first result.'),
  ];
  const what = onAccount ? 'an account' : 'a transaction';
  app.post(
    `${path}/metadata`,
    openapi(
      OPENAPI_SPECS && {
        // The SDK's names for v1's metadata writes.
        operationId: onAccount ? 'addMetadataToAccount' : 'addMetadataOnTransaction',
        summary: `Set the metadata of ${what} (v1)`,
        tags: ['ledger v1'],
        deprecated: true,
        parameters,
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    write(async (c) => ({ kind: 'save', metadata: await readJsonBody(c, metadataMap) })),
  );
  app.delete(
    `${path}/metadata/:key`,
    openapi(
      OPENAPI_SPECS && {
        operationId: onAccount ? 'deleteAccountMetadata' : 'deleteTransactionMetadata',
        summary: `Delete a metadata key of ${what} (v1)`,
        tags: ['ledger v1'],
        deprecated: true,
        parameters,
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    write(async (c) => ({ kind: 'delete', key: c.req.param('key')! })),
  );
}
