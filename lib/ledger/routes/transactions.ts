import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import {
  BOOLEAN,
  DATE_TIME,
  header,
  openapi,
  PAGE_PARAMETERS,
  path,
  query,
} from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import type { SchemaReads } from '../commands/schema-write.js';
import { keepsEffectiveVolumes, requireEffectiveVolumes } from '../domain/features.js';
import { readListSort } from '../domain/list-sort.js';
import {
  effectiveBy,
  readPointInTime,
  readTransactionOrder,
  type TransactionOrder,
} from '../domain/point-in-time.js';
import { planTransactionQuery } from '../domain/query/transaction-query.js';
import { preCommitVolumes, transactionView, type VolumesView } from '../domain/transaction.js';
import type { EffectiveVolumeReads } from '../store/effective-volume-reads.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerRecord } from '../store/registry.js';
import type { LedgerStats } from '../store/stats.js';
import type { StoredTransaction } from '../store/transaction-pages.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import {
  readIdempotencyKey,
  readTransactionId,
  recordParams,
  refuseInsertionDate,
  requestLedger,
} from './request.js';
import {
  createUnderSchema,
  requestSchema,
  SCHEMA_VERSION_PARAMETER,
  schemaVersionOption,
} from './schema-version.js';
import { transactionData, transactionPage } from './schemas.js';
import { createTransactionSchema, revertBodySchema } from './write-requests.js';

export interface TransactionRoutesDeps {
  lookup: LedgerLookup;
  schemas: SchemaReads;
  commands: LedgerCommands;
  reads: TransactionReads;
  stats: LedgerStats;
  effectiveVolumes: EffectiveVolumeReads;
}

/** Transactions (docs/api.md §3.2): create, get, list, count, revert. */
export function transactionRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => TransactionRoutesDeps,
): void {
  v2CreateTransactionRoute(app, depsOf);
  v2GetTransactionRoute(app, depsOf);
  v2RevertTransactionRoute(app, depsOf);
  v2ListTransactionsRoute(app, depsOf);
}

function v2CreateTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => TransactionRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/transactions',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreateTransaction',
        summary: 'Create a transaction',
        description:
          'Postings apply in order; every account but `world` must stay at or above zero (`INSUFFICIENT_FUND`) unless `force`. A second use of a `reference` is 409 `CONFLICT`.',
        tags: ['ledger: transactions'],
        parameters: [
          query('dryRun', 'Compute and answer the transaction without writing anything.', BOOLEAN),
          query('force', 'Skip the balance checks.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        body: createTransactionSchema,
        responses: {
          200: {
            description: 'The committed transaction, with its pre- and post-commit volumes.',
            schema: transactionData,
            headers: {
              'Idempotency-Hit': {
                description: '`true` when the answer is a replay.',
                schema: { type: 'string' },
              },
            },
          },
        },
      },
    ),
    async (c) => {
      const { lookup, schemas, commands, effectiveVolumes } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const body = await readJsonBody(c, createTransactionSchema, { parse: parseJson });
      const { input, schema } = await createUnderSchema(c, schemas, ledger, body);
      const idempotencyKey = readIdempotencyKey(c);
      const outcome = await commands.execute(ledger, {
        kind: 'create',
        input,
        options: {
          dryRun: booleanFlag(c.req.query('dryRun'), 'dryRun'),
          force: booleanFlag(c.req.query('force'), 'force'),
          ...(schema ? { schema } : {}),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
      });
      if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
      const withEffective =
        outcome.kind === 'dry-run'
          ? outcome.result
          : await withEffectiveVolumes(
              ledger,
              outcome.result as CreatedView,
              effectiveVolumes,
              outcome.kind === 'committed' && outcome.inOrder === true,
            );
      return jsonResponse(c, { data: withEffective });
    },
  );
}

function v2GetTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => TransactionRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/transactions/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetTransaction',
        summary: 'Get a transaction',
        tags: ['ledger: transactions'],
        parameters: [
          path('id', 'Transaction id.', { type: 'integer', minimum: 1 }),
          query('expand', '`volumes`, `effectiveVolumes` (comma-separated).'),
          query('pit', 'Point in time (RFC 3339): the state as it was then.', DATE_TIME),
        ],
        responses: { 200: { description: 'The transaction.', schema: transactionData } },
      },
    ),
    async (c) => {
      const { lookup, reads, effectiveVolumes } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const id = readTransactionId(c.req.param('id'));
      const expand = readExpand(c.req.query('expand'), ledger);
      const pit = readPointInTime(c.req.query('pit'));
      const stored = await reads.get(ledger, id);
      // At a point in time, a transaction dated after it did not exist yet (as the reference: not found).
      if (!stored || (pit !== undefined && !effectiveBy(stored.tx, pit)))
        throw new NotFoundError(`transaction ${id} not found`);
      const found =
        pit === undefined ? stored : (await reads.atPointInTime(ledger, [stored], pit))[0]!;
      const effective = expand.has('effectiveVolumes')
        ? await effectiveVolumes.ofTransactions(ledger, [found])
        : undefined;
      return jsonResponse(c, { data: view(found, expand, effective) });
    },
  );
}

function v2RevertTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => TransactionRoutesDeps,
): void {
  app.post(
    '/v2/:ledger/transactions/:id/revert',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2RevertTransaction',
        summary: 'Revert a transaction',
        description:
          'A new transaction with every posting reversed; a second revert is 400 `ALREADY_REVERT`.',
        tags: ['ledger: transactions'],
        parameters: [
          path('id', 'Transaction id.', { type: 'integer', minimum: 1 }),
          query('force', 'Skip the balance checks.', BOOLEAN),
          query('atEffectiveDate', "Date the revert at the original's timestamp.", BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
          query('dryRun', 'Compute without writing.', BOOLEAN),
          header(
            'Idempotency-Key',
            'Replays of the same key and body answer the first result (kept at least 24 hours).',
          ),
        ],
        body: revertBodySchema,
        bodyOptional: true,
        responses: { 201: { description: 'The reverting transaction.', schema: transactionData } },
      },
    ),
    async (c) => {
      const { lookup, schemas, commands } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      const id = readTransactionId(c.req.param('id'));
      const body = (await readJsonBody(c, v.optional(revertBodySchema), { optional: true })) ?? {};
      const schema = await requestSchema(c, schemas, ledger);
      const idempotencyKey = readIdempotencyKey(c);
      const outcome = await commands.execute(ledger, {
        kind: 'revert',
        id,
        body,
        options: {
          force: booleanFlag(c.req.query('force'), 'force'),
          atEffectiveDate: booleanFlag(c.req.query('atEffectiveDate'), 'atEffectiveDate'),
          dryRun: booleanFlag(c.req.query('dryRun'), 'dryRun'),
          ...schemaVersionOption(schema),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
      });
      if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
      return jsonResponse(c, { data: outcome.result }, 201);
    },
  );
}

function v2ListTransactionsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => TransactionRoutesDeps,
): void {
  app.get(
    '/v2/:ledger/transactions',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListTransactions',
        summary: 'List transactions',
        description: 'Newest first (`reverse=true`: oldest first).',
        tags: ['ledger: transactions'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('reverse', 'Oldest first.', BOOLEAN),
          query('expand', '`volumes`, `effectiveVolumes` (comma-separated).'),
          query('pit', 'Point in time (RFC 3339): the state as it was then.', DATE_TIME),
          query('order', '`effective` to read `pit` by effective date.'),
          query(
            'sort',
            '`<field>:<asc|desc>`: `id`, `inserted_at` (the same order), `timestamp` (effective time).',
          ),
          query('query', 'Filter, as JSON (`$match`, `$lt`, `$and`, …; docs/api.md §3.3).'),
        ],
        responses: { 200: { description: 'A page of transactions.', schema: transactionPage } },
        head: {
          operationId: 'v2CountTransactions',
          summary: 'Count transactions',
          description: 'What the same list (filters and `pit`) holds.',
          responses: {
            204: {
              description: 'The count, in the `Count` header.',
              headers: {
                Count: { description: 'Number of transactions.', schema: { type: 'integer' } },
              },
            },
          },
        },
      },
    ),
    async (c) => {
      const { lookup, reads, stats, effectiveVolumes } = depsOf(c);
      const ledger = await requestLedger(c, lookup);
      refuseInsertionDate(c);
      const query = readListQuery(
        c.req.query(),
        `ledger.transactions.${ledger.name}`,
        LISTING_PARAMS,
      );
      // A cursor carries the listing's parameters: with one, the request's own are not read (only pageSize).
      const params = query.cursor ? (query.cursor.f ?? {}) : c.req.query();
      const { pit, order, ascending, access, keep } = listingPlan(params, ledger);
      if (c.req.method === 'HEAD') {
        const count =
          access || keep || pit !== undefined
            ? await reads.count(ledger, access, pit, keep)
            : (await stats.read(ledger)).transactions;
        c.header('Count', String(count));
        return c.body(null, 204);
      }
      const expand = readExpand(params.expand, ledger);
      const listing = { ...(pit !== undefined ? { pit } : {}), order, ...(keep ? { keep } : {}) };
      const page = await reads.list(
        ledger,
        query,
        ascending,
        access,
        recordParams(params, LISTING_PARAMS),
        undefined,
        listing,
      );
      const effective = expand.has('effectiveVolumes')
        ? await effectiveVolumes.ofTransactions(ledger, page.data)
        : undefined;
      return jsonResponse(c, {
        cursor: { ...page, data: page.data.map((t) => view(t, expand, effective)) },
      });
    },
  );
}

/** The list's own parameters, all recorded in its cursors. */
const LISTING_PARAMS = ['reverse', 'expand', 'query', 'pit', 'order', 'sort'];

/** The list's point in time, order and query plan, from its parameters (a cursor's or the request's). */
function listingPlan(params: Record<string, string | undefined>, ledger: LedgerRecord) {
  const pit = readPointInTime(params.pit);
  const { order, ascending } = listOrder(params);
  const { access, keep } = planTransactionQuery(params.query, ledger.features, {
    order,
    ...(pit !== undefined ? { pit } : {}),
  });
  return { pit, order, ascending, access, keep };
}

/**
 * The list's order: the reference's `sort=<field>:<asc|desc>` (id, inserted_at, timestamp), or its older
 * `order=effective` and `reverse`; both at once could disagree, so that is refused.
 */
function listOrder(params: Record<string, string | undefined>): {
  order: TransactionOrder;
  ascending: boolean;
} {
  const sort = readListSort(params.sort, 'transactions');
  if (!sort)
    return {
      order: readTransactionOrder(params.order),
      ascending: booleanFlag(params.reverse, 'reverse'),
    };
  if (params.order !== undefined || params.reverse !== undefined)
    throw new ValidationError('sort: give sort, or order and reverse, not both');
  return { order: sort.key === 'effective' ? 'effective' : 'id', ascending: sort.ascending };
}

function view(
  stored: StoredTransaction,
  expand: Set<string>,
  effective?: Map<number, VolumesView>,
) {
  const post = effective?.get(stored.tx.id);
  return transactionView(
    stored.tx,
    expand.has('volumes') ? { post: stored.post } : undefined,
    post ? { post } : undefined,
  );
}

/** What a create answers: the transaction with its commit-order volumes (transactionView with `post`). */
type CreatedView = ReturnType<typeof transactionView> & { postCommitVolumes: VolumesView };

/**
 * A created (or replayed) transaction answers its effective volumes too when the ledger keeps them, as the
 * reference does. A transaction committed now with no back-dated move (`inOrder`) has effective volumes equal to
 * its commit-order ones at that moment: they come from the decision. Otherwise (a back-dated one, a replay) they
 * are read back like `GET ?expand=effectiveVolumes` (the moves are written before the answer). A dry run writes
 * no moves, so it answers commit-order volumes only (docs/decisions/ledger.md).
 */
async function withEffectiveVolumes(
  ledger: LedgerRecord,
  created: CreatedView,
  reads: EffectiveVolumeReads,
  inOrder: boolean,
) {
  if (!keepsEffectiveVolumes(ledger.features)) return created;
  const stored: StoredTransaction = {
    tx: { ...created, metadata: created.metadata ?? {} } as StoredTransaction['tx'],
    post: created.postCommitVolumes,
  };
  const post = inOrder
    ? created.postCommitVolumes
    : (await reads.ofTransactions(ledger, [stored])).get(created.id);
  return post
    ? {
        ...created,
        postCommitEffectiveVolumes: post,
        preCommitEffectiveVolumes: preCommitVolumes(post, created.postings),
      }
    : created;
}

const EXPANDABLE = new Set(['volumes', 'effectiveVolumes']);

/** `expand` values; effective volumes need the moves and the feature that keeps them by effective time. */
function readExpand(raw: string | undefined, ledger: LedgerRecord): Set<string> {
  const values = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const value of values) {
    if (!EXPANDABLE.has(value))
      throw new ValidationError(
        `expand: "${value.slice(0, 32)}" is not supported (supported: ${[...EXPANDABLE].join(', ')})`,
      );
  }
  if (values.includes('effectiveVolumes')) requireEffectiveVolumes(ledger.features);
  return new Set(values);
}
