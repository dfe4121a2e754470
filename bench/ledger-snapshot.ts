/**
 * Reads a whole ledger through its public v2 routes only (what a customer or auditor could do), for the
 * invariant checker: every transaction (ascending), every account with volumes, the aggregated balances and
 * every log (the API lists them newest first; returned ascending). Amounts go through the exact JSON parser:
 * they may exceed 2^53.
 */
import { logEntryFromApi as toEntry } from '../cli/api/log-pages.js';
import { parseJson } from '../lib/json/bigint-json.js';
import { callJson } from './http.js';
import type {
  LedgerSnapshot,
  ListedAccount,
  ListedTransaction,
  SentPosting,
} from './ledger-invariants.js';

export interface LedgerTarget {
  baseUrl: string;
  token: string;
}

/** Page size of every list read (the list routes allow up to 1000; 100 keeps each answer small). */
const PAGE_SIZE = 100;

interface CursorPage {
  cursor?: { hasMore: boolean; next?: string; data: Array<Record<string, unknown>> };
}

/** Every item of a cursor-paged list; a cursor carries the first request's filters, so only it is sent after. */
async function readAll(
  target: LedgerTarget,
  path: string,
  query: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let next = `${path}?pageSize=${PAGE_SIZE}${query ? `&${query}` : ''}`;
  for (;;) {
    const res = await callJson<CursorPage>(target.baseUrl, target.token, 'GET', next, undefined, {
      parse: parseJson,
    });
    const cursor = res.body?.cursor;
    if (res.status !== 200 || !cursor)
      throw new Error(
        `GET ${next} answered ${res.status}: ${String(JSON.stringify(res.body, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).slice(0, 300)}`,
      );
    items.push(...cursor.data);
    if (!cursor.hasMore || !cursor.next) return items;
    next = `${path}?cursor=${encodeURIComponent(cursor.next)}`;
  }
}

const posting = (p: Record<string, unknown>): SentPosting => ({
  source: String(p.source),
  destination: String(p.destination),
  asset: String(p.asset),
  amount: BigInt(p.amount as bigint),
});

export async function readLedgerSnapshot(
  target: LedgerTarget,
  ledger: string,
): Promise<LedgerSnapshot> {
  const base = `/api/ledger/v2/${ledger}`;
  const [transactions, accounts, aggregate, logs] = await Promise.all([
    // `reverse=true` lists oldest first: the checker sees the ids in the order the API gives them.
    readAll(target, `${base}/transactions`, 'reverse=true'),
    readAll(target, `${base}/accounts`, 'expand=volumes'),
    callJson<{ data: Record<string, bigint> }>(
      target.baseUrl,
      target.token,
      'GET',
      `${base}/aggregate/balances`,
      undefined,
      { parse: parseJson },
    ),
    readAll(target, `${base}/logs`, ''),
  ]);
  if (aggregate.status !== 200)
    throw new Error(`GET ${base}/aggregate/balances answered ${aggregate.status}`);
  return {
    transactions: transactions.map(
      (t): ListedTransaction => ({
        id: Number(t.id),
        postings: (t.postings as Array<Record<string, unknown>>).map(posting),
      }),
    ),
    accounts: accounts.map(
      (a): ListedAccount => ({
        address: String(a.address),
        volumes: (a.volumes ?? {}) as ListedAccount['volumes'],
      }),
    ),
    aggregate: aggregate.body.data,
    logs: logs.map(toEntry).reverse(),
  };
}
