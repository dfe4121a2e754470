import { NotFoundError, ValidationError } from '../../errors/index.js';
import { type Cursor, decodeCursor } from '../../pagination/cursor.js';
import type { Account } from '../domain/account.js';
import { type AggregatedBalance, aggregateBalances } from '../domain/balance.js';
import { isHashedId } from '../domain/ids.js';
import { newPool, type Pool, type PoolInput, withAccount } from '../domain/pool.js';
import { compilePoolQuery } from '../domain/pool-query.js';
import { ACCOUNT_KIND } from '../store/kinds.js';
import type { PaymentsStores } from '../store/stores.js';

/** A dynamic pool's query is evaluated over at most this many accounts (pages of 1000). */
export const MAX_ACCOUNTS_SCANNED = 10_000;
/** Accounts whose balances are read at once when aggregating a pool. */
const CONCURRENT_READS = 16;

export const poolNotFound = (id: string) => new NotFoundError(`pool ${id} not found`);

async function accountOrUndefined(
  stores: PaymentsStores,
  id: string,
): Promise<Account | undefined> {
  return isHashedId(id) ? stores.accounts.get(id) : undefined;
}

export async function createPool(
  stores: PaymentsStores,
  id: string,
  createdAt: string,
  input: PoolInput,
): Promise<Pool> {
  const ids = [...new Set(input.accountIDs ?? [])];
  const accounts = new Map<string, Account | undefined>();
  if (input.query === undefined || Object.keys(input.query).length === 0) {
    for (let i = 0; i < ids.length; i += CONCURRENT_READS) {
      const chunk = ids.slice(i, i + CONCURRENT_READS);
      const found = await Promise.all(chunk.map((a) => accountOrUndefined(stores, a)));
      chunk.forEach((a, j) => {
        accounts.set(a, found[j]);
      });
    }
  }
  const pool = newPool(id, createdAt, input, accounts);
  return stores.pools.save(id, () => pool);
}

export async function addAccountToPool(
  stores: PaymentsStores,
  poolId: string,
  accountId: string,
): Promise<void> {
  const account = await accountOrUndefined(stores, accountId);
  await stores.pools.save(poolId, (current) => {
    if (!current) throw poolNotFound(poolId);
    return withAccount(current, accountId, account);
  });
}

/** The accounts a pool holds now: its list, or for a dynamic pool, the accounts its query selects. */
export async function poolAccounts(stores: PaymentsStores, pool: Pool): Promise<string[]> {
  if (pool.type === 'STATIC' || pool.query === undefined) return pool.accountIDs;
  const matches = compilePoolQuery(pool.query);
  const selected: string[] = [];
  let scanned = 0;
  let cursor: Cursor | undefined;
  for (;;) {
    const page = await stores.accounts.list({ pageSize: 1000, ...(cursor ? { cursor } : {}) });
    scanned += page.data.length;
    for (const account of page.data) if (matches(account)) selected.push(account.id);
    if (!page.hasMore || !page.next) break;
    if (scanned >= MAX_ACCOUNTS_SCANNED)
      throw new ValidationError(
        `pool ${pool.id}: its query would be evaluated over more than ${MAX_ACCOUNTS_SCANNED} accounts`,
      );
    cursor = decodeCursor(page.next, ACCOUNT_KIND.list);
  }
  return selected;
}

/** The pool's balances by asset, at `at` or now. */
export async function poolBalances(
  stores: PaymentsStores,
  poolId: string,
  at?: string,
): Promise<AggregatedBalance[]> {
  const pool = await stores.pools.get(poolId);
  if (!pool) throw poolNotFound(poolId);
  const ids = await poolAccounts(stores, pool);
  const balances = [];
  for (let i = 0; i < ids.length; i += CONCURRENT_READS) {
    const chunk = ids.slice(i, i + CONCURRENT_READS);
    const read = await Promise.all(chunk.map((a) => stores.balances.balancesAt(a, at)));
    balances.push(...read.flat());
  }
  return aggregateBalances(balances);
}
