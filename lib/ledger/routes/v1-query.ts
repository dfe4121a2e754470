import { ValidationError } from '../../errors/index.js';
import { readListQuery, type ListQuery } from '../../pagination/cursor.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { requireFeature, type FeatureSet } from '../domain/features.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import type { TransactionFilter } from '../domain/transaction-filter.js';
import { ledgerKeys } from '../store/keys.js';

/**
 * The v1 list's query (API.md §3.4) turned into the v2 reads' terms: one index-served filter (account, source,
 * destination, reference, one `metadata[key]=value`, or a startTime/endTime range), and `after` (transactions with txid < after) as the
 * start key of the first page. Combinations of different indexes are refused, as in v2.
 */
export interface V1ListQuery {
  query: ListQuery;
  filter: TransactionFilter | undefined;
  /** Filters recorded in the page cursors, so that a cursor alone continues the listing. */
  recorded: Record<string, string>;
  /** Only with `reference`, where `after` cannot be a start key: a filter on the single result. */
  before?: number;
}

const FILTERS = ['after', 'reference', 'account', 'source', 'destination', 'startTime', 'endTime'] as const;
/** The reference's deprecated snake_case spellings. */
const ALIASES: Record<string, string> = { page_size: 'pageSize', start_time: 'startTime', end_time: 'endTime' };
/** Marks a cursor as a v1 listing's (both lists page the same items, with different filters). */
const V1_MARK = 'v1';
const METADATA_PARAM = /^metadata\[(.{1,256})\]$/s;

export function readV1ListQuery(raw: Record<string, string>, ledger: string, features: FeatureSet): V1ListQuery {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('metadata[') && !METADATA_PARAM.test(name)) throw new ValidationError(`${name.slice(0, 64)}: must be metadata[<key>] with a key of 1-256 characters`);
    const canonical = ALIASES[name] ?? name;
    if (params[canonical] !== undefined) throw new ValidationError(`${name}: given twice (as ${canonical} and its alias)`);
    params[canonical] = value;
  }
  const list = `ledger.transactions.${ledger}`;
  const metadataNames = Object.keys(params).filter((n) => METADATA_PARAM.test(n));
  const query = readListQuery(params, list, [...FILTERS, ...metadataNames]);
  if (query.cursor) {
    const f = query.cursor.f ?? {};
    if (f[V1_MARK] !== '1') throw new ValidationError('cursor: not a cursor of this list');
    const { [V1_MARK]: _mark, ...filters } = f;
    return { query, filter: readFilter(filters, features), recorded: f };
  }
  const filters = Object.fromEntries([...FILTERS, ...metadataNames].filter((n) => n !== 'after' && params[n] !== undefined).map((n) => [n, params[n]!]));
  const filter = readFilter(filters, features);
  const recorded = { [V1_MARK]: '1', ...filters };
  if (params.after === undefined) return { query, filter, recorded };

  if (!/^\d{1,15}$/.test(params.after)) throw new ValidationError('after: must be a transaction id (a non-negative integer)');
  const after = Number(params.after);
  if (filter?.kind === 'time') throw new ValidationError('after: cannot be combined with startTime or endTime');
  if (filter?.kind === 'reference' || filter?.kind === 'account') return { query, filter, recorded, before: after };
  // The first page starts right after `after` in descending order: a start key, as a cursor would carry.
  const k =
    filter?.kind === 'metadata'
        ? ledgerKeys.transactionMetadata(ledger, filter.key, filter.value, after)
        : ledgerKeys.transaction(ledger, after);
  return { query: { pageSize: query.pageSize, cursor: { l: list, p: query.pageSize, k, d: 'n', f: recorded } }, filter, recorded };
}

function readFilter(filters: Record<string, string>, features: FeatureSet): TransactionFilter | undefined {
  const names = Object.keys(filters);
  const isTime = (n: string) => n === 'startTime' || n === 'endTime';
  const time = names.filter(isTime);
  const others = names.filter((n) => !isTime(n));
  if (others.length + (time.length > 0 ? 1 : 0) > 1) {
    throw new ValidationError(`${names.join(', ')}: only one of reference, account, source, destination, metadata[key] or a startTime/endTime range per request`);
  }
  if (time.length > 0) {
    // v1 semantics: startTime inclusive, endTime exclusive.
    const bound = (name: 'startTime' | 'endTime', inclusive: boolean) =>
      filters[name] === undefined ? {} : { [name === 'startTime' ? 'from' : 'to']: { at: sortableInstant(parseInstant(filters[name]!, name)), inclusive } };
    return { kind: 'time', ...bound('startTime', true), ...bound('endTime', false) };
  }
  const [name] = others;
  if (name === undefined) return undefined;
  const value = filters[name]!;
  const metadataKey = METADATA_PARAM.exec(name)?.[1];
  if (metadataKey !== undefined) {
    // v1 metadata could hold any JSON; ours is strings: the value matches exactly. At most 1024 characters, the
    // most a cursor records per filter (a longer one would make the next page's cursor unreadable).
    if (value.length > 1024) throw new ValidationError(`${name.slice(0, 64)}: must be at most 1024 characters`);
    return { kind: 'metadata', key: metadataKey, value };
  }
  if (name === 'reference') {
    if (value.length === 0 || value.length > 256) throw new ValidationError('reference: must be 1-256 characters');
    return { kind: 'reference', reference: value };
  }
  requireFeature(features, 'INDEX_TRANSACTION_ACCOUNTS');
  // v1 read these as regular expressions; only exact addresses can be served from the index.
  if (value.length > MAX_ADDRESS_LENGTH || !ACCOUNT_ADDRESS.test(value)) throw new ValidationError(`${name}: must be a complete account address (patterns are not supported)`);
  return { kind: 'account', address: value, role: name === 'account' ? 'any' : (name as 'source' | 'destination') };
}
