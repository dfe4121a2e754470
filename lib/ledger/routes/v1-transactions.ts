import type { Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { AppEnv } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { createTransactionSchema } from '../commands/create-transaction.js';
import { transactionView } from '../domain/transaction.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerCommands } from '../sequencer/ledger-commands.js';
import { readIdempotencyKey } from './request.js';
import { resolveV1Ledger } from './v1-ledger.js';
import { readV1ListQuery } from './v1-query.js';

export interface V1TransactionRoutesDeps {
  lookup: LedgerLookup;
  commands: LedgerCommands;
  reads: TransactionReads;
}

/**
 * The v1 transaction routes kept for existing callers (API.md §3.4): the v2 reads and the v2 create command,
 * answered in v1 shapes. Registered after every v2 route, so `/v2/...` is never taken for a ledger "v2".
 */
export function v1TransactionRoutes(app: Hono<AppEnv>, { lookup, commands, reads }: V1TransactionRoutesDeps): void {
  app.get('/:ledger/transactions', async (c) => {
    const ledger = await resolveV1Ledger(lookup, c.req.param('ledger'));
    const { query, filter, recorded, before } = readV1ListQuery(c.req.query(), ledger.name, ledger.features);
    const page = await reads.list(ledger, query, false, filter, recorded, before);
    const data = page.data.filter((t) => before === undefined || t.tx.id < before).map((t) => v1Transaction(transactionView(t.tx, { post: t.post })));
    return jsonResponse(c, { cursor: { ...page, data } });
  });

  app.post('/:ledger/transactions', async (c) => {
    const ledger = await resolveV1Ledger(lookup, c.req.param('ledger'));
    const input = await readJsonBody(c, createTransactionSchema, { parse: parseJson });
    const idempotencyKey = readIdempotencyKey(c);
    const outcome = await commands.execute(ledger, {
      kind: 'create',
      input,
      // v1's dry run is `preview`.
      options: { dryRun: booleanFlag(c.req.query('preview'), 'preview'), force: false, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) },
    });
    if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
    return jsonResponse(c, { data: [v1Transaction(outcome.result as V2View)] });
  });
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
