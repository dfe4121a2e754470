import { ValidationError } from '../../errors/index.js';
import type { Account } from './account.js';
import { compilePoolQuery } from './pool-query.js';

/** STATIC: a list of accounts kept by hand; DYNAMIC: the accounts a query selects, whenever it is read. */
export const POOL_TYPES = ['STATIC', 'DYNAMIC'] as const;
export type PoolType = (typeof POOL_TYPES)[number];

/** A static pool holds at most this many accounts: its list lives in one item. */
export const MAX_POOL_ACCOUNTS = 1000;

export interface Pool {
  id: string;
  name: string;
  createdAt: string;
  type: PoolType;
  /** A static pool's accounts (a dynamic pool's are resolved from its query when read). */
  accountIDs: string[];
  query?: Record<string, unknown>;
}

export interface PoolInput {
  name: string;
  accountIDs?: string[];
  query?: Record<string, unknown>;
}

/** Only the provider's own accounts can be pooled, as in the reference. */
function requireInternal(account: Account | undefined, id: string): void {
  if (!account) throw new ValidationError(`accountIDs: account ${id.slice(0, 64)} not found`);
  if (account.type !== 'INTERNAL')
    throw new ValidationError(`accountIDs: account ${id} is not an internal account`);
}

/**
 * A new pool: with a non-empty query it is dynamic (the query is checked now), otherwise static over the given
 * accounts, each of which must exist and be internal.
 */
export function newPool(
  id: string,
  createdAt: string,
  input: PoolInput,
  accounts: ReadonlyMap<string, Account | undefined>,
): Pool {
  if (input.query !== undefined && Object.keys(input.query).length > 0) {
    compilePoolQuery(input.query);
    return { id, name: input.name, createdAt, type: 'DYNAMIC', accountIDs: [], query: input.query };
  }
  if (input.accountIDs === undefined)
    throw new ValidationError('body: query or accountIDs is required');
  const accountIDs = [...new Set(input.accountIDs)];
  if (accountIDs.length > MAX_POOL_ACCOUNTS)
    throw new ValidationError(`accountIDs: at most ${MAX_POOL_ACCOUNTS} accounts`);
  for (const a of accountIDs) requireInternal(accounts.get(a), a);
  return { id, name: input.name, createdAt, type: 'STATIC', accountIDs };
}

export function withAccount(pool: Pool, accountId: string, account: Account | undefined): Pool {
  requireInternal(account, accountId);
  if (pool.type === 'DYNAMIC')
    throw new ValidationError(
      `pool ${pool.id} is a dynamic pool, use the pool query update endpoint to add an account`,
    );
  if (pool.accountIDs.includes(accountId)) return pool;
  if (pool.accountIDs.length >= MAX_POOL_ACCOUNTS)
    throw new ValidationError(`pool ${pool.id} already holds ${MAX_POOL_ACCOUNTS} accounts`);
  return { ...pool, accountIDs: [...pool.accountIDs, accountId] };
}

export function withoutAccount(pool: Pool, accountId: string): Pool {
  if (pool.type === 'DYNAMIC')
    throw new ValidationError(
      `pool ${pool.id} is a dynamic pool, use the pool query update endpoint to remove an account`,
    );
  return { ...pool, accountIDs: pool.accountIDs.filter((a) => a !== accountId) };
}

export function withQuery(pool: Pool, query: Record<string, unknown>): Pool {
  if (pool.type === 'STATIC')
    throw new ValidationError(
      `pool ${pool.id} is a static pool, use the pool account addition or deletion endpoints`,
    );
  compilePoolQuery(query);
  return { ...pool, query };
}

/** The record as the API answers it: `poolAccounts` are the accounts it holds (resolved for a dynamic pool). */
export function poolView(pool: Pool, accounts: readonly string[] = pool.accountIDs) {
  return {
    id: pool.id,
    name: pool.name,
    createdAt: pool.createdAt,
    type: pool.type,
    poolAccounts: [...accounts],
    ...(pool.query !== undefined ? { query: pool.query } : {}),
  };
}
