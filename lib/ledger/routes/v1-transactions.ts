import type { Context, Hono } from 'hono';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { readJsonBody, withoutNullFields } from '../../http/json-body.js';
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
  query,
} from '../../openapi/describe.js';
import { type Cursor, decodeCursor, MAX_PAGE_SIZE } from '../../pagination/cursor.js';
import type { SchemaReads } from '../commands/schema-write.js';
import { createTransactionsAtomically } from '../commands/v1-batch.js';
import type { LedgerRecord } from '../domain/change.js';
import { transactionView } from '../domain/transaction.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerStats } from '../store/stats.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { readIdempotencyKey, readTransactionId } from './request.js';
import {
  createUnderSchema,
  requestSchema,
  schemaVersionOption,
  V1_SCHEMA_VERSION_PARAMETER,
} from './schema-version.js';
import { v1TransactionData, v1TransactionList, v1TransactionPage } from './schemas.js';
import { resolveV1Ledger, v1Handler } from './v1-ledger.js';
import { v1MetadataRoutes } from './v1-metadata.js';
import { readV1ListQuery, type V1ListQuery } from './v1-query.js';
import { createTransactionSchema, v1BatchSchema } from './write-requests.js';

export interface V1TransactionRoutesDeps {
  lookup: LedgerLookup;
  commands: LedgerCommands;
  reads: TransactionReads;
  stats: LedgerStats;
  writer: LedgerWriter;
  schemas: SchemaReads;
}

/**
 * The v1 transaction routes kept for existing callers (docs/api.md §3.4): the v2 reads and the v2 commands (the same
 * log entries, idempotency records and events as v2 writes), answered in v1 shapes. Registered after every v2
 * route, so `/v2/...` is never taken for a ledger "v2".
 */
export function v1TransactionRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  listTransactionsRoute(app, depsOf);
  createTransactionRoute(app, depsOf);
  createTransactionsRoute(app, depsOf);
  getTransactionRoute(app, depsOf);
  revertTransactionRoute(app, depsOf);
  v1MetadataRoutes(app, depsOf, '/:ledger/transactions/:id', (c) => ({
    type: 'TRANSACTION',
    id: readTransactionId(c.req.param('id')!),
  }));
}

function listTransactionsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  app.get(
    '/:ledger/transactions',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listTransactions',
        summary: 'List transactions (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          ...PAGE_PARAMETERS,
          query('after', 'Only transactions with a lower id.'),
          query('reference', 'Only this reference.'),
          query('account', 'Only transactions touching this account (pattern).'),
          query('source', 'Only transactions from this account.'),
          query('destination', 'Only transactions to this account.'),
          query('startTime', 'From this date (RFC 3339).', DATE_TIME),
          query('endTime', 'Before this date (RFC 3339).', DATE_TIME),
          query('metadata', 'Metadata filter (`metadata[key]=value`).'),
        ],
        responses: {
          200: { description: 'A page of v1 transactions.', schema: v1TransactionPage },
        },
        head: {
          operationId: 'countTransactions',
          summary: 'Count transactions (v1)',
          responses: {
            200: {
              description: 'The count, in the `Count` header.',
              headers: {
                Count: { description: 'Number of transactions.', schema: { type: 'integer' } },
              },
            },
          },
        },
      },
    ),
    v1Handler(async (c) => {
      const { reads, stats } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const listing = readV1ListQuery(c.req.query(), ledger, ledger.features);
      if (c.req.method === 'HEAD') {
        const count = listing.filtered
          ? await countListing(reads, ledger, listing)
          : (await stats.read(ledger)).transactions;
        return c.body(null, 200, { Count: String(count) });
      }
      const page = await reads.list(
        ledger,
        listing.query,
        false,
        listing.filter,
        listing.recorded,
        listing.before,
      );
      const data = page.data
        .filter(listing.matches)
        .map((t) => v1Transaction(transactionView(t.tx, { post: t.post })));
      return jsonResponse(c, { cursor: { ...page, data } });
    }),
  );
}

function createTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  app.post(
    '/:ledger/transactions',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createTransaction',
        summary: 'Create a transaction (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          query('preview', 'Compute without writing (a dry run).', BOOLEAN),
          V1_SCHEMA_VERSION_PARAMETER,
          header('Idempotency-Key', 'Replays of the same key and body answer the first result.'),
        ],
        body: createTransactionSchema,
        responses: {
          200: { description: 'The transaction, in a list of one.', schema: v1TransactionList },
        },
      },
    ),
    v1Handler(async (c) => {
      const { commands, schemas } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const body = await readJsonBody(c, createTransactionSchema, { parse: parseJson });
      const { input, schema } = await createUnderSchema(c, schemas, ledger, body);
      const idempotencyKey = readIdempotencyKey(c);
      const outcome = await commands.execute(ledger, {
        kind: 'create',
        input,
        // v1's dry run is `preview`.
        options: {
          dryRun: booleanFlag(c.req.query('preview'), 'preview'),
          force: false,
          ...(schema ? { schema } : {}),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
      });
      if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
      return jsonResponse(c, { data: [v1Transaction(outcome.result as V2View)] });
    }),
  );
}

function createTransactionsRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  app.post(
    '/:ledger/transactions/batch',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'CreateTransactions',
        summary: 'Create transactions in one commit (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [V1_SCHEMA_VERSION_PARAMETER],
        body: v1BatchSchema,
        responses: { 200: { description: 'The transactions.', schema: v1TransactionList } },
      },
    ),
    v1Handler(async (c) => {
      const { writer, schemas } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      if (c.req.header('idempotency-key') !== undefined)
        throw new ValidationError(
          'Idempotency-Key: not supported on the v1 batch (send the transactions one by one, or use the v2 bulk with an ik per element)',
        );
      const { transactions } = await readJsonBody(c, v1BatchSchema, { parse: parseBatch });
      const schema = await requestSchema(c, schemas, ledger);
      const results = await createTransactionsAtomically(ledger, transactions, writer, schema);
      return jsonResponse(c, { data: results.map((r) => v1Transaction(r as V2View)) });
    }),
  );
}

function getTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  app.get(
    '/:ledger/transactions/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getTransaction',
        summary: 'Get a transaction (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        responses: { 200: { description: 'The transaction.', schema: v1TransactionData } },
      },
    ),
    v1Handler(async (c) => {
      const { reads } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const id = readTransactionId(c.req.param('id')!);
      const stored = await reads.get(ledger, id);
      if (!stored) throw new NotFoundError(`transaction ${id} not found`);
      return jsonResponse(c, {
        data: v1Transaction(transactionView(stored.tx, { post: stored.post })),
      });
    }),
  );
}

function revertTransactionRoute(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => V1TransactionRoutesDeps,
): void {
  app.post(
    '/:ledger/transactions/:id/revert',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'revertTransaction',
        summary: 'Revert a transaction (v1)',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          query('disableChecks', 'Let the reverse postings overdraw.', BOOLEAN),
          query('preview', 'Compute without writing (a dry run).', BOOLEAN),
          V1_SCHEMA_VERSION_PARAMETER,
          header('Idempotency-Key', 'Replays of the same key and body answer the first result.'),
        ],
        responses: {
          201: { description: 'The reverting transaction.', schema: v1TransactionData },
        },
      },
    ),
    v1Handler(async (c) => {
      const { commands, schemas } = depsOf(c);
      const ledger = await resolveV1Ledger(c, depsOf(c).lookup);
      const id = readTransactionId(c.req.param('id')!);
      const schema = await requestSchema(c, schemas, ledger);
      const idempotencyKey = readIdempotencyKey(c);
      const outcome = await commands.execute(ledger, {
        kind: 'revert',
        id,
        body: {},
        // v1's `disableChecks` is v2's `force`: the reverse postings may overdraw.
        options: {
          force: booleanFlag(c.req.query('disableChecks'), 'disableChecks'),
          atEffectiveDate: false,
          dryRun: booleanFlag(c.req.query('preview'), 'preview'),
          ...schemaVersionOption(schema),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
      });
      if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
      return jsonResponse(c, { data: v1Transaction(outcome.result as V2View) }, 201);
    }),
  );
}

/** The batch body; a `null` field of an element is absent, as it is on a single create (the SDK sends `metadata: null`). */
function parseBatch(text: string): unknown {
  const body = parseJson(text) as { transactions?: unknown };
  if (body && typeof body === 'object' && Array.isArray(body.transactions))
    return { ...body, transactions: body.transactions.map((t) => withoutNullFields(t)) };
  return body;
}

/** What the same listing holds: its pages, counted (each page a bounded read). */
async function countListing(
  reads: TransactionReads,
  ledger: LedgerRecord,
  listing: V1ListQuery,
): Promise<number> {
  const list = `ledger.transactions.${ledger.name}`;
  let total = 0;
  let cursor: Cursor | undefined = listing.query.cursor;
  do {
    const page = await reads.list(
      ledger,
      { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
      false,
      listing.filter,
      listing.recorded,
      listing.before,
    );
    total += page.data.filter(listing.matches).length;
    cursor = page.next ? decodeCursor(page.next, list) : undefined;
  } while (cursor);
  return total;
}

type V2View = ReturnType<typeof transactionView>;

/**
 * A v1 Transaction: `txid` for `id`, pre- and post-commit volumes always present. Built from the v2 view, which
 * is also what an idempotent replay stores, so a replay of a v2 create through v1 answers the same shape.
 */
export function v1Transaction(tx: V2View) {
  return {
    txid: tx.id,
    postings: tx.postings,
    ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
    metadata: tx.metadata,
    timestamp: tx.timestamp,
    reverted: tx.reverted,
    preCommitVolumes: tx.preCommitVolumes ?? {},
    postCommitVolumes: tx.postCommitVolumes ?? {},
  };
}
