import type { Context, Hono } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { DATE_TIME, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import type { BalanceHistoryDeps } from './balance-history-handler.js';
import { handlersPerScope } from './handlers-per-scope.js';
import { balanceHistoryPage } from './schemas.js';

/**
 * GET /v2/<ledger>/accounts/<address>/balances/history (docs/api.md §3.6): a pair's balance over effective time.
 * Its reads and the walk load at the first such request (a chunk of the split bundle): most containers never serve
 * one, and every cold start would otherwise carry them.
 */
export function balanceHistoryRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => BalanceHistoryDeps,
): void {
  const handler = handlersPerScope(depsOf, (deps) =>
    import('./balance-history-handler.js').then((m) => m.balanceHistoryHandler(deps)),
  );
  app.get(
    '/v2/:ledger/accounts/:address/balances/history',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2GetBalanceHistory',
        summary: 'Balance history of an account and asset',
        description:
          'By effective time, oldest first: a point per transaction, or sampled per `interval` (an extension of the reference API).',
        tags: ['ledger: accounts'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('asset', 'The asset (required).'),
          query(
            'from',
            'First instant (RFC 3339, inclusive); required with `interval`.',
            DATE_TIME,
          ),
          query('to', 'Last instant (RFC 3339, inclusive); default now.', DATE_TIME),
          query('interval', 'Sampling step: a whole number and a unit s, m, h or d (`15m`, `1d`).'),
        ],
        responses: { 200: { description: 'A page of points.', schema: balanceHistoryPage } },
      },
    ),
    async (c) => (await handler(c))(c),
  );
}
