import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { metadataMap } from '../../validation/common.js';
import { keyedRecord } from '../../validation/record.js';
import { resolveFeatures } from '../domain/features.js';
import { parseLedgerFilter } from '../domain/ledger-filter.js';
import {
  BUCKET_NAME,
  DEFAULT_BUCKET,
  LEDGER_NAME,
  RESERVED_LEDGER_NAMES,
} from '../domain/names.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerRecord, LedgerRegistry } from '../store/registry.js';
import type { LedgerStats } from '../store/stats.js';
import { requestLedger } from './request.js';
import { ledgerData, ledgerInfoSchema, ledgerPage, statsSchema } from './schemas.js';

const createLedgerSchema = v.strictObject({
  bucket: v.optional(
    v.pipe(v.string('must be a string'), v.regex(BUCKET_NAME, 'must match ^[0-9a-zA-Z_-]{1,63}$')),
  ),
  metadata: v.optional(metadataMap),
  features: v.optional(
    keyedRecord(
      v.string(),
      v.string('feature values must be strings'),
      'must map feature names to values',
    ),
  ),
});

export const ledgerView = (l: LedgerRecord) => ({
  id: l.id,
  name: l.name,
  bucket: l.bucket,
  metadata: l.metadata,
  features: l.features,
  addedAt: l.addedAt,
  ...(l.deletedAt !== undefined ? { deletedAt: l.deletedAt } : {}),
});

export interface LedgerRoutesDeps {
  registry: LedgerRegistry;
  lookup: LedgerLookup;
  stats: LedgerStats;
  now: () => number;
}

/**
 * A bucket's deletion marks its ledgers deleted (not found, left out of lists) until it is restored; nothing is
 * erased.
 */
function markBucket(depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps, deleted: boolean) {
  return async (c: Context<HonoTypes>) => {
    const bucket = c.req.param('bucket') ?? '';
    // Only the caller's environment's ledgers of the bucket: a bucket is storage shared by environments.
    const environment = environmentOf(c);
    const { registry, lookup, now } = depsOf(c);
    const marked = BUCKET_NAME.test(bucket)
      ? await registry.markBucket(
          environment,
          bucket,
          deleted ? formatInstant(instantFromMs(now())) : undefined,
        )
      : 0;
    if (marked === 0)
      throw new NotFoundError(`bucket "${bucket.slice(0, 63)}" not found (it holds no ledger)`);
    // Other containers see it within LEDGER_RECHECK_MS (ledger-lookup.ts); this one at once.
    lookup.forgetBucket(environment, bucket);
    return c.body(null, 204);
  };
}

/** Ledgers (docs/api.md §3.1): create, read, list, metadata, `_info`, stats. */
export function ledgerRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  // The bucket routes come before the `/v2/:ledger/...` ones: `_` is a reserved ledger name.
  v2DeleteBucketRoute(app, depsOf);
  v2RestoreBucketRoute(app, depsOf);
  v2ListLedgersRoute(app, depsOf);
  v2CreateLedgerRoute(app, depsOf);
  v2GetLedgerRoute(app, depsOf);
  v2UpdateLedgerMetadataRoute(app, depsOf);
  v2DeleteLedgerMetadataRoute(app, depsOf);
  v2GetLedgerInfoRoute(app, depsOf);
  v2ReadStatsRoute(app, depsOf);
}

function v2DeleteBucketRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.delete(
    '/v2/_/buckets/:bucket',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteBucket',
        summary: 'Delete a bucket',
        description:
          'Marks the ledgers of the bucket deleted (not found, left out of lists) until it is restored; nothing is erased.',
        tags: ['ledger: ledgers'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    markBucket(depsOf, true),
  );
}

function v2RestoreBucketRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.post(
    '/v2/_/buckets/:bucket/restore',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2RestoreBucket',
        summary: 'Restore a deleted bucket',
        tags: ['ledger: ledgers'],
        responses: { 204: { description: 'Restored.' } },
      },
    ),
    markBucket(depsOf, false),
  );
}

function v2ListLedgersRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.get(
    '/v2',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListLedgers',
        summary: 'List ledgers',
        description: 'Sorted by id, ascending.',
        tags: ['ledger: ledgers'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('bucket', 'Only the ledgers of this bucket.'),
          query('includeDeleted', 'Include the ledgers of deleted buckets.', BOOLEAN),
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
        ],
        responses: { 200: { description: 'A page of ledgers.', schema: ledgerPage } },
      },
    ),
    async (c) => {
      const { registry } = depsOf(c);
      // `includeDeleted` (the SDK sends it on every call) lists the ledgers of deleted buckets too.
      const query = readListQuery(c.req.query(), 'ledger.ledgers', [
        'bucket',
        'includeDeleted',
        'query',
      ]);
      const includeDeleted = booleanFlag(
        query.cursor ? query.cursor.f?.includeDeleted : c.req.query('includeDeleted'),
        'includeDeleted',
      );
      const bucket = query.cursor?.f?.bucket ?? c.req.query('bucket');
      if (bucket !== undefined && !BUCKET_NAME.test(bucket))
        throw new ValidationError('bucket: must match ^[0-9a-zA-Z_-]{1,63}$');
      const rawFilter = query.cursor ? query.cursor.f?.query : c.req.query('query');
      const filter = parseLedgerFilter(rawFilter);
      const recorded = {
        ...(bucket !== undefined ? { bucket } : {}),
        ...(rawFilter !== undefined && filter ? { query: rawFilter } : {}),
        ...(includeDeleted ? { includeDeleted: 'true' } : {}),
      };
      const page = await registry.list(
        environmentOf(c),
        query,
        bucket,
        filter,
        recorded,
        includeDeleted,
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(ledgerView) } });
    },
  );
}

function v2CreateLedgerRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.post(
    '/v2/:ledger',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreateLedger',
        summary: 'Create a ledger',
        description:
          'Name taken: 400 `LEDGER_ALREADY_EXISTS`. Absent features take their defaults.',
        tags: ['ledger: ledgers'],
        body: createLedgerSchema,
        bodyOptional: true,
        responses: { 204: { description: 'Created.' } },
      },
    ),
    async (c) => {
      const { registry, now } = depsOf(c);
      const name = c.req.param('ledger');
      if (!LEDGER_NAME.test(name))
        throw new ValidationError('ledger: name must match ^[0-9a-zA-Z_-]{1,63}$');
      if (RESERVED_LEDGER_NAMES.has(name))
        throw new ValidationError(`ledger: "${name}" is a reserved name`);
      const body =
        (await readJsonBody(c, v.optional(createLedgerSchema), { optional: true })) ?? {};
      await registry.create({
        environment: environmentOf(c),
        name,
        bucket: body.bucket ?? DEFAULT_BUCKET,
        metadata: body.metadata ?? {},
        features: resolveFeatures(body.features),
        addedAt: formatInstant(instantFromMs(now())),
      });
      return c.body(null, 204);
    },
  );
}

function v2GetLedgerRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.get(
    '/v2/:ledger',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetLedger',
        summary: 'Get a ledger',
        tags: ['ledger: ledgers'],
        responses: { 200: { description: 'The ledger.', schema: ledgerData } },
      },
    ),
    async (c) => {
      const { registry } = depsOf(c);
      const name = c.req.param('ledger');
      const record = LEDGER_NAME.test(name)
        ? await registry.get({ environment: environmentOf(c), name })
        : undefined;
      if (!record || record.deletedAt !== undefined)
        throw new NotFoundError(`ledger "${name.slice(0, 63)}" not found`);
      return jsonResponse(c, { data: ledgerView(record) });
    },
  );
}

function v2UpdateLedgerMetadataRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.put(
    '/v2/:ledger/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2UpdateLedgerMetadata',
        summary: "Set a ledger's metadata",
        description: 'Merged into the existing metadata.',
        tags: ['ledger: ledgers'],
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const { registry, lookup } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      await registry.saveMetadata(ledger, await readJsonBody(c, metadataMap));
      return c.body(null, 204);
    },
  );
}

function v2DeleteLedgerMetadataRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.delete(
    '/v2/:ledger/metadata/:key',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2DeleteLedgerMetadata',
        summary: "Delete a ledger's metadata key",
        tags: ['ledger: ledgers'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      const { registry, lookup } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      await registry.deleteMetadata(ledger, c.req.param('key'));
      return c.body(null, 204);
    },
  );
}

function v2GetLedgerInfoRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/_info',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetLedgerInfo',
        summary: 'Ledger info',
        tags: ['ledger: ledgers'],
        responses: { 200: { description: 'Name and storage.', schema: ledgerInfoSchema } },
      },
    ),
    async (c) => {
      const { lookup } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      return jsonResponse(c, {
        data: {
          name: ledger.name,
          // The reference's storage answers its schema migrations; this storage has none to report (and its table
          // names are the deployment's business, not the caller's).
          storage: { migrations: [] },
        },
      });
    },
  );
}

function v2ReadStatsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => LedgerRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/stats',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ReadStats',
        summary: 'Ledger statistics',
        tags: ['ledger: ledgers'],
        responses: {
          200: { description: 'Counts of accounts and transactions.', schema: statsSchema },
        },
      },
    ),
    async (c) => {
      const { lookup, stats } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      return jsonResponse(c, { data: await stats.read(ledger) });
    },
  );
}
