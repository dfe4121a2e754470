import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { HonoTypes } from '../../http/types.js';
import { BOOLEAN, header, openapi, PAGE_PARAMETERS, path, query } from '../../openapi/describe.js';
import { cursorOf, dataOf } from '../../openapi/schemas.js';
import { type HandlersOf, handlersPerScope } from './handlers-per-scope.js';
import type { PendingDeps, PendingHandlers } from './pending-handlers.js';
import {
  accountBalancesAnswer,
  createPendingSchema,
  pendingAnswer,
  postPendingSchema,
} from './pending-schemas.js';
import { transactionSchema } from './schemas.js';

const TAGS = ['ledger: pending transfers'];
const ITEM = '/v2/:ledger/pending/:id';
const IDEMPOTENCY = header(
  'Idempotency-Key',
  'Replays of the same key and body answer the first result (kept at least 24 hours).',
);
const DRY_RUN = query('dryRun', 'Decide and answer without writing anything.', BOOLEAN);
const ID = path('id', 'The hold: the log id of the entry that created it.');

/**
 * Pending (two-phase) transfers and an account's balances with its holds (docs/api.md §3.6): an extension of the
 * reference API, served on ledgers with PENDING_TRANSFERS. The handlers load at the first such request.
 */
export function pendingRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => PendingDeps,
): void {
  const handlers: HandlersOf<PendingHandlers> = handlersPerScope(
    depsOf,
    async (deps): Promise<PendingHandlers> =>
      (await import('./pending-handlers.js')).pendingHandlers(deps, await deps.pendingReads()),
  );
  v2CreatePendingRoute(app, handlers);
  v2ListPendingRoute(app, handlers);
  v2GetPendingRoute(app, handlers);
  v2PostPendingRoute(app, handlers);
  v2VoidPendingRoute(app, handlers);
  v2GetAccountBalancesRoute(app, handlers);
}

function v2CreatePendingRoute(app: Hono<HonoTypes>, handlers: HandlersOf<PendingHandlers>): void {
  app.post(
    '/v2/:ledger/pending',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreatePending',
        summary: 'Create a pending transfer (hold)',
        description:
          "Its postings reserve money: each source's available balance (posted − held out) falls, its posted balance does not, and must stay at or above its floor (`INSUFFICIENT_FUND`) unless `force`. Expires at `expiresAt` or after `timeout` seconds, if given. `expect`: balance preconditions as on a transaction (409 `PRECONDITION_FAILED`).",
        tags: TAGS,
        parameters: [DRY_RUN, IDEMPOTENCY],
        body: createPendingSchema(),
        responses: { 201: { description: 'The hold.', schema: dataOf(pendingAnswer()) } },
      },
    ),
    async (c) => (await handlers(c)).create(c),
  );
}

function v2ListPendingRoute(app: Hono<HonoTypes>, handlers: HandlersOf<PendingHandlers>): void {
  app.get(
    '/v2/:ledger/pending',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2ListPending',
        summary: 'List pending transfers',
        description: 'Newest first; `status` keeps one status.',
        tags: TAGS,
        parameters: [
          ...PAGE_PARAMETERS,
          query('status', 'PENDING, POSTED, VOIDED or EXPIRED.', {
            type: 'string',
            enum: ['PENDING', 'POSTED', 'VOIDED', 'EXPIRED'],
          }),
        ],
        responses: { 200: { description: 'A page of holds.', schema: cursorOf(pendingAnswer()) } },
      },
    ),
    async (c) => (await handlers(c)).list(c),
  );
}

function v2GetPendingRoute(app: Hono<HonoTypes>, handlers: HandlersOf<PendingHandlers>): void {
  app.get(
    ITEM,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetPending',
        summary: 'A pending transfer',
        tags: TAGS,
        parameters: [ID],
        responses: { 200: { description: 'The hold.', schema: dataOf(pendingAnswer()) } },
      },
    ),
    async (c) => (await handlers(c)).get(c),
  );
}

function v2PostPendingRoute(app: Hono<HonoTypes>, handlers: HandlersOf<PendingHandlers>): void {
  app.post(
    `${ITEM}/post`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2PostPending',
        summary: 'Post a pending transfer, in full or in part',
        description:
          'Moves held money as a transaction: per posting `amounts` (default all that remains); `final` releases the rest. A resolved hold: 409 `PENDING_RESOLVED`; at or after its expiry: 409 `PENDING_EXPIRED`; more than remains: 400 `VALIDATION`. `expect`: balance preconditions as on a transaction, `after` meaning after the post (409 `PRECONDITION_FAILED`).',
        tags: TAGS,
        parameters: [ID, DRY_RUN, IDEMPOTENCY],
        body: postPendingSchema(),
        responses: {
          200: {
            description: 'The hold after the post, and the transaction it created.',
            schema: dataOf(
              v.strictObject({ pending: pendingAnswer(), transaction: transactionSchema }),
            ),
          },
        },
      },
    ),
    async (c) => (await handlers(c)).post(c),
  );
}

function v2VoidPendingRoute(app: Hono<HonoTypes>, handlers: HandlersOf<PendingHandlers>): void {
  app.post(
    `${ITEM}/void`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2VoidPending',
        summary: 'Void a pending transfer',
        description: 'Releases all that remains of it. A resolved hold: 409 `PENDING_RESOLVED`.',
        tags: TAGS,
        parameters: [ID, DRY_RUN, IDEMPOTENCY],
        responses: { 200: { description: 'The hold, voided.', schema: dataOf(pendingAnswer()) } },
      },
    ),
    async (c) => (await handlers(c)).void(c),
  );
}

function v2GetAccountBalancesRoute(
  app: Hono<HonoTypes>,
  handlers: HandlersOf<PendingHandlers>,
): void {
  app.get(
    '/v2/:ledger/accounts/:address/balances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetAccountBalances',
        summary: "An account's balances with its holds",
        description:
          'Per asset: `posted` (the balance), `pendingIn` and `pendingOut` (held by unresolved holds), `available` (posted − pendingOut).',
        tags: ['ledger: accounts'],
        parameters: [path('address', 'The account address.')],
        responses: {
          200: { description: 'Balances per asset.', schema: dataOf(accountBalancesAnswer()) },
        },
      },
    ),
    async (c) => (await handlers(c)).balances(c),
  );
}
