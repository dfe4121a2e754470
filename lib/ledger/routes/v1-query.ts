import { ValidationError } from '../../errors/index.js';
import { type ListQuery, readListQuery } from '../../pagination/cursor.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { type FeatureSet, isEnabled } from '../domain/features.js';
import type { TransactionFilter } from '../domain/transaction-filter.js';
import { type LedgerRef, ledgerKeys } from '../store/keys.js';
import type { StoredTransaction } from '../store/transaction-pages.js';
import { type AddressPattern, matchesPattern, readAddressPattern } from './v1-pattern.js';

/**
 * The v1 transaction list's query (docs/api.md §3.4) in the v2 reads' terms. Every filter combines with every other,
 * as the reference's v1 ANDs them: one of them drives the read — the most selective one an index serves:
 * reference, then an exact account/source/destination (INDEX_TRANSACTION_ACCOUNTS), then the first
 * `metadata[key]`, then a startTime/endTime range, else the listing by id — and all of them are checked on the
 * transactions that read returns. A page reads at most pageSize transactions, so it may hold fewer matches
 * while `hasMore` is true; its cursor resumes where the read stopped and carries every filter.
 */
export interface V1ListQuery {
  query: ListQuery;
  /** The index-served filter that drives the read. */
  filter: TransactionFilter | undefined;
  /** Filters recorded in the page cursors, so that a cursor alone continues the listing. */
  recorded: Record<string, string>;
  /** `after` for drivers where it cannot be a start key (reference, account): passed to the account read. */
  before?: number;
  /** Every filter of the request, checked on each transaction read. */
  matches: (t: StoredTransaction) => boolean;
  /** Whether the request has any filter (an unfiltered count is the ledger's transaction count). */
  filtered: boolean;
}

const FILTERS = [
  'after',
  'reference',
  'account',
  'source',
  'destination',
  'startTime',
  'endTime',
] as const;
/** The reference's deprecated snake_case spellings. */
const ALIASES: Record<string, string> = {
  page_size: 'pageSize',
  start_time: 'startTime',
  end_time: 'endTime',
  pagination_token: 'cursor',
};
/** Marks a cursor as a v1 listing's (both lists page the same items, with different filters). */
const V1_MARK = 'v1';
export const METADATA_PARAM = /^metadata\[(.{1,256})\]$/s;

/**
 * v1's `metadata[key]=value` parameters, as (key, value) pairs. At most 1024 characters a value, the most a
 * cursor records per filter (a longer one would make the next page's cursor unreadable).
 */
export function metadataParams(filters: Record<string, string>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(filters)) {
    const key = METADATA_PARAM.exec(name)?.[1];
    if (key === undefined) continue;
    if (value.length > 1024)
      throw new ValidationError(`${name.slice(0, 64)}: must be at most 1024 characters`);
    pairs.push([key, value]);
  }
  return pairs;
}

/** Whether metadata holds `key` with `value` (an own key: `__proto__` or `constructor` are data like any other). */
export const hasValue = (metadata: Record<string, string>, key: string, value: string) =>
  Object.hasOwn(metadata, key) && metadata[key] === value;

/** Request parameters under their canonical names (aliases folded, each given once). */
export function canonicalParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('metadata[') && !METADATA_PARAM.test(name))
      throw new ValidationError(
        `${name.slice(0, 64)}: must be metadata[<key>] with a key of 1-256 characters`,
      );
    const canonical = ALIASES[name] ?? name;
    if (params[canonical] !== undefined)
      throw new ValidationError(`${name}: given twice (as ${canonical} and its alias)`);
    params[canonical] = value;
  }
  return params;
}

export function readV1ListQuery(
  raw: Record<string, string>,
  ledger: LedgerRef,
  features: FeatureSet,
): V1ListQuery {
  const params = canonicalParams(raw);
  const list = `ledger.transactions.${ledger.name}`;
  const metadataNames = Object.keys(params).filter((n) => METADATA_PARAM.test(n));
  const query = readListQuery(params, list, [...FILTERS, ...metadataNames]);
  if (query.cursor) {
    const f = query.cursor.f ?? {};
    if (f[V1_MARK] !== '1') throw new ValidationError('cursor: not a cursor of this list');
    const { [V1_MARK]: _mark, ...filters } = f;
    // The cursor's key already says where the read resumes: `after` is only checked.
    return { query, ...plan(filters, ledger, features, false), recorded: f };
  }
  const filters = Object.fromEntries(
    [...FILTERS, ...metadataNames]
      .filter((n) => params[n] !== undefined && params[n] !== '')
      .map((n) => [n, params[n]!]),
  );
  const planned = plan(filters, ledger, features, true);
  const recorded = { [V1_MARK]: '1', ...filters };
  if (planned.startKey === undefined) return { query, ...planned, recorded };
  // The first page starts right after `after` in descending order: a start key, as a cursor would carry.
  return {
    query: {
      pageSize: query.pageSize,
      cursor: { l: list, p: query.pageSize, k: planned.startKey, d: 'n', f: recorded },
    },
    ...planned,
    recorded,
  };
}

interface Plan {
  filter: TransactionFilter | undefined;
  before?: number;
  startKey?: Record<string, string>;
  matches: (t: StoredTransaction) => boolean;
  filtered: boolean;
}

/** v1's transaction filters, read and checked. */
interface V1Filters {
  after: number | undefined;
  reference: string | undefined;
  roles: Array<[name: 'account' | 'source' | 'destination', AddressPattern]>;
  metadata: Array<[string, string]>;
  /** v1 semantics: startTime inclusive, endTime exclusive (sortable instants). */
  from: string | undefined;
  to: string | undefined;
}

function readV1Filters(filters: Record<string, string>): V1Filters {
  let after: number | undefined;
  if (filters.after !== undefined) {
    if (!/^\d{1,15}$/.test(filters.after))
      throw new ValidationError('after: must be a transaction id (a non-negative integer)');
    after = Number(filters.after);
  }
  const reference = filters.reference;
  if (reference !== undefined && reference.length > 256)
    throw new ValidationError('reference: must be 1-256 characters');
  const roles: V1Filters['roles'] = [];
  for (const name of ['account', 'source', 'destination'] as const) {
    if (filters[name] !== undefined) roles.push([name, readAddressPattern(filters[name], name)]);
  }
  const instant = (name: 'startTime' | 'endTime') =>
    filters[name] !== undefined ? sortableInstant(parseInstant(filters[name], name)) : undefined;
  return {
    after,
    reference,
    roles,
    metadata: [...metadataParams(filters)],
    from: instant('startTime'),
    to: instant('endTime'),
  };
}

/** Every filter as a check on a transaction read: whichever index serves the list, all of them hold. */
function checksOf({ after, reference, roles, metadata, from, to }: V1Filters) {
  const checks: Array<(t: StoredTransaction) => boolean> = [];
  if (after !== undefined) checks.push((t) => t.tx.id < after);
  if (reference !== undefined) checks.push((t) => t.tx.reference === reference);
  for (const [name, pattern] of roles) {
    checks.push((t) =>
      t.tx.postings.some(
        (p) =>
          (name !== 'destination' && matchesPattern(pattern, p.source)) ||
          (name !== 'source' && matchesPattern(pattern, p.destination)),
      ),
    );
  }
  for (const [key, value] of metadata) checks.push((t) => hasValue(t.tx.metadata, key, value));
  if (from !== undefined || to !== undefined) {
    checks.push((t) => {
      const at = sortableInstant(parseInstant(t.tx.timestamp, 'timestamp'));
      return (from === undefined || at >= from) && (to === undefined || at < to);
    });
  }
  return checks;
}

function plan(
  filters: Record<string, string>,
  ledger: LedgerRef,
  features: FeatureSet,
  first: boolean,
): Plan {
  const read = readV1Filters(filters);
  const { after, reference, roles, metadata, from, to } = read;
  const checks = checksOf(read);
  const matches = (t: StoredTransaction) => checks.every((check) => check(t));
  const filtered = checks.length > 0;

  if (reference !== undefined)
    return {
      filter: { kind: 'reference', reference },
      ...(after !== undefined ? { before: after } : {}),
      matches,
      filtered,
    };
  const exact = roles.find(([, p]) => p.kind === 'exact');
  if (exact && isEnabled(features, 'INDEX_TRANSACTION_ACCOUNTS')) {
    const [name, pattern] = exact;
    const address = (pattern as { address: string }).address;
    return {
      filter: { kind: 'account', address, role: name === 'account' ? 'any' : name },
      ...(after !== undefined ? { before: after } : {}),
      matches,
      filtered,
    };
  }
  const startAt = first && after !== undefined;
  const [firstPair] = metadata;
  if (firstPair) {
    const [key, value] = firstPair;
    return {
      filter: { kind: 'metadata', key, value },
      ...(startAt ? { startKey: ledgerKeys.transactionMetadata(ledger, key, value, after!) } : {}),
      matches,
      filtered,
    };
  }
  if (from !== undefined || to !== undefined) {
    return {
      filter: {
        kind: 'time',
        ...(from !== undefined ? { from: { at: from, inclusive: true } } : {}),
        ...(to !== undefined ? { to: { at: to, inclusive: false } } : {}),
      },
      matches,
      filtered,
    };
  }
  return {
    filter: undefined,
    ...(startAt ? { startKey: ledgerKeys.transaction(ledger, after!) } : {}),
    matches,
    filtered,
  };
}
