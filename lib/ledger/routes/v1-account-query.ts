import { ValidationError } from '../../errors/index.js';
import { type ListQuery, readListQuery } from '../../pagination/cursor.js';
import type { AccountFilter } from '../domain/account-filter.js';
import { type FeatureSet, isEnabled } from '../domain/features.js';
import { integerOperand } from '../domain/query/values.js';
import { type AccountRead, accountListName } from '../store/account-reads.js';
import { type LedgerRef, ledgerKeys } from '../store/keys.js';
import { matchesPattern, readAddressPattern } from './v1-pattern.js';
import { canonicalParams, hasValue, METADATA_PARAM, metadataParams } from './v1-query.js';

/**
 * The v1 account list's query (and the v1 balances list's, which takes only `address` and `after`). Every filter
 * combines with every other: an exact address or prefix (INDEX_ADDRESS_SEGMENTS) drives the read on the account
 * index, else the first `metadata[key]` on the account metadata index, else the listing by address; then every
 * filter is checked on the accounts the read returns. A page reads at most pageSize accounts, so it may hold
 * fewer matches while `hasMore` is true; its cursor resumes where the read stopped and carries every filter.
 *
 * - `address`: a pattern (v1-pattern.ts);
 * - `metadata[key]=value`: exact string match, any number of them;
 * - `balance` with `balanceOperator` (e/eq, ne, lt, lte, gt, gte; gte when absent, as the SDK documents): the
 *   account has some asset whose balance compares so (accounts without volumes do not match, as in the reference);
 * - `after`: addresses after it in the listing's (ascending) order.
 */
export interface V1AccountQuery {
  query: ListQuery;
  filter: AccountFilter | undefined;
  /** What the cursors carry (with the v1 mark). */
  carried: Record<string, string>;
  matches: (read: AccountRead) => boolean;
  filtered: boolean;
  /** Whether a filter needs each account's volumes. */
  needsVolumes: boolean;
}

const OPERATORS: Record<string, (balance: bigint, bound: bigint) => boolean> = {
  e: (b, n) => b === n,
  eq: (b, n) => b === n,
  ne: (b, n) => b !== n,
  lt: (b, n) => b < n,
  lte: (b, n) => b <= n,
  gt: (b, n) => b > n,
  gte: (b, n) => b >= n,
};

export function readV1AccountQuery(
  raw: Record<string, string>,
  ledger: LedgerRef,
  features: FeatureSet,
  kind: 'accounts' | 'balances',
): V1AccountQuery {
  const mark = kind === 'accounts' ? 'v1' : 'v1b';
  const params = canonicalParams(raw);
  const names =
    kind === 'accounts'
      ? [
          'address',
          'after',
          'balance',
          'balanceOperator',
          ...Object.keys(params).filter((n) => METADATA_PARAM.test(n)),
        ]
      : ['address', 'after'];
  const query = readListQuery(params, accountListName(ledger.name), names);
  if (query.cursor) {
    const { [mark]: marked, ...filters } = query.cursor.f ?? {};
    if (marked !== '1') throw new ValidationError('cursor: not a cursor of this list');
    const { startKey: _none, ...planned } = plan(
      onlyParams(filters, names),
      ledger,
      features,
      false,
    );
    return { query, ...planned, carried: { ...onlyParams(filters, names), [mark]: '1' } };
  }
  const filters = Object.fromEntries(
    names.filter((n) => params[n] !== undefined && params[n] !== '').map((n) => [n, params[n]!]),
  );
  const { startKey, ...planned } = plan(filters, ledger, features, true);
  const carried = { ...filters, [mark]: '1' };
  if (!startKey) return { query, ...planned, carried };
  return {
    query: {
      pageSize: query.pageSize,
      cursor: {
        l: accountListName(ledger.name),
        p: query.pageSize,
        k: startKey,
        d: 'n',
        f: carried,
      },
    },
    ...planned,
    carried,
  };
}

/** The cursor also records the index's own filter fields: only the request's parameters are read back. */
const onlyParams = (filters: Record<string, string>, names: string[]) =>
  Object.fromEntries(Object.entries(filters).filter(([n]) => names.includes(n)));

interface Plan {
  filter: AccountFilter | undefined;
  startKey?: Record<string, string>;
  matches: (read: AccountRead) => boolean;
  filtered: boolean;
  needsVolumes: boolean;
}

function plan(
  filters: Record<string, string>,
  ledger: LedgerRef,
  features: FeatureSet,
  first: boolean,
): Plan {
  const checks: Array<(read: AccountRead) => boolean> = [];
  const pattern =
    filters.address !== undefined ? readAddressPattern(filters.address, 'address') : undefined;
  if (pattern) checks.push((r) => matchesPattern(pattern, r.account.address));
  const after = filters.after;
  if (after !== undefined) checks.push((r) => r.account.address > after);
  const metadata = metadataParams(filters);
  for (const [key, value] of metadata) checks.push((r) => hasValue(r.account.metadata, key, value));
  let needsVolumes = false;
  if (filters.balance !== undefined) {
    const bound = integerOperand(filters.balance, 'balance');
    const operator = filters.balanceOperator ?? 'gte';
    const compare = OPERATORS[operator];
    if (!compare)
      throw new ValidationError(
        `balanceOperator: must be one of ${Object.keys(OPERATORS).join(', ')}`,
      );
    needsVolumes = true;
    checks.push((r) => Object.values(r.volumes ?? {}).some((v) => compare(v.balance, bound)));
  } else if (filters.balanceOperator !== undefined) {
    throw new ValidationError('balanceOperator: only with balance');
  }
  const matches = (r: AccountRead) => checks.every((check) => check(r));
  const filtered = checks.length > 0;

  if (pattern?.kind === 'exact')
    return { filter: { address: pattern.address, prefix: false }, matches, filtered, needsVolumes };
  if (pattern?.kind === 'prefix' && isEnabled(features, 'INDEX_ADDRESS_SEGMENTS')) {
    const startAt = first && after?.startsWith(pattern.prefix);
    return {
      filter: { address: pattern.prefix, prefix: true },
      ...(startAt ? { startKey: listKey(ledger, after!) } : {}),
      matches,
      filtered,
      needsVolumes,
    };
  }
  const [pair] = metadata;
  if (pair)
    return {
      filter: { metadata: { key: pair[0], value: pair[1] } },
      matches,
      filtered,
      needsVolumes,
    };
  return {
    filter: undefined,
    ...(first && after !== undefined ? { startKey: listKey(ledger, after) } : {}),
    matches,
    filtered,
    needsVolumes,
  };
}

/** The account index key of an address (existing or not): a page starting there holds the addresses after it. */
function listKey(ledger: LedgerRef, address: string): Record<string, string> {
  return {
    ...ledgerKeys.account(ledger, address),
    gsi1pk: ledgerKeys.accountList(ledger),
    gsi1sk: address,
  };
}
