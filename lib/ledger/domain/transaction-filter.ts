import { ValidationError } from '../../errors/index.js';
import { requireFeature, type FeatureSet } from './features.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from './names.js';
import { isObject, quote, readQueryOperator } from './query-json.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';

/**
 * The transaction filters we serve from an index (API.md §3.2, "never an unbounded scan"):
 * - `{"$match": {"account"|"source"|"destination": "<address>"}}` — the per-account index items
 *   (INDEX_TRANSACTION_ACCOUNTS must be ON);
 * - `{"$match": {"reference": "<ref>"}}` — the reference item;
 * - `{"$match": {"metadata[<key>]": "<value>"}}` — the transaction metadata index items (exact value);
 * - a time range on `timestamp` with `$gt`/`$gte`/`$lt`/`$lte`, alone or two under `$and` — gsi1 by time.
 * Anything else (combinations of different indexes, `$or`, `$not`, ...) is refused with 400.
 */
export type TransactionFilter =
  | { kind: 'account'; address: string; role: 'any' | 'source' | 'destination' }
  | { kind: 'reference'; reference: string }
  | { kind: 'metadata'; key: string; value: string }
  | { kind: 'time'; from?: Bound; to?: Bound };

export interface Bound {
  /** Sortable instant (see domain/time.ts). */
  at: string;
  inclusive: boolean;
}

const ROLE: Record<string, 'any' | 'source' | 'destination'> = { account: 'any', source: 'source', destination: 'destination' };
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);
const METADATA_FIELD = /^metadata\[(.{1,256})\]$/s;

export function parseTransactionFilter(raw: string | undefined, features: FeatureSet): TransactionFilter | undefined {
  const query = readQueryOperator(raw, '{"$match": {"account": "users:1"}}');
  if (!query) return undefined;
  const { operator, operand } = query;
  if (operator === '$match') return match(operand, features);
  if (RANGE.has(operator)) return range([{ [operator]: operand }]);
  if (operator === '$and') {
    if (!Array.isArray(operand)) throw new ValidationError('query.$and: must be an array');
    return range(operand);
  }
  throw new ValidationError(`query: operator ${quote(operator)} is not supported on transactions (supported: $match on account, source, destination, reference or metadata[key]; $gt/$gte/$lt/$lte on timestamp)`);
}

function match(operand: unknown, features: FeatureSet): TransactionFilter {
  if (!isObject(operand) || Object.keys(operand).length !== 1) throw new ValidationError('query.$match: must name exactly one field');
  const [field, value] = Object.entries(operand)[0]!;
  if (typeof value !== 'string') throw new ValidationError(`query.$match.${field.slice(0, 32)}: must be a string`);
  if (field === 'reference') {
    if (value.length === 0 || value.length > 256) throw new ValidationError('query.$match.reference: must be 1-256 characters');
    return { kind: 'reference', reference: value };
  }
  const metadataKey = METADATA_FIELD.exec(field)?.[1];
  if (metadataKey !== undefined) {
    if (value.length > 4096) throw new ValidationError(`query.$match.${field.slice(0, 64)}: must be a string of at most 4096 characters`);
    return { kind: 'metadata', key: metadataKey, value };
  }
  const role = ROLE[field];
  if (!role) throw new ValidationError(`query.$match: filtering transactions on ${quote(field)} is not supported (supported: account, source, destination, reference, metadata[key])`);
  requireFeature(features, 'INDEX_TRANSACTION_ACCOUNTS');
  if (value.length > MAX_ADDRESS_LENGTH || !ACCOUNT_ADDRESS.test(value)) throw new ValidationError(`query.$match.${field}: must be a complete account address`);
  return { kind: 'account', address: value, role };
}

function range(conditions: unknown[]): TransactionFilter {
  if (conditions.length === 0 || conditions.length > 2) throw new ValidationError('query.$and: must hold one or two timestamp bounds');
  const filter: { kind: 'time'; from?: Bound; to?: Bound } = { kind: 'time' };
  for (const condition of conditions) {
    if (!isObject(condition) || Object.keys(condition).length !== 1) throw new ValidationError('query.$and: each element must be one $gt/$gte/$lt/$lte condition');
    const [operator, operand] = Object.entries(condition)[0]!;
    if (!RANGE.has(operator)) throw new ValidationError(`query: operator ${quote(operator)} is not supported inside $and (only timestamp bounds)`);
    if (!isObject(operand) || Object.keys(operand).length !== 1 || typeof operand.timestamp !== 'string') {
      throw new ValidationError(`query.${operator}: must be {"timestamp": "<RFC 3339 date-time>"}`);
    }
    const bound = { at: sortableInstant(parseInstant(operand.timestamp, `query.${operator}.timestamp`)), inclusive: operator.endsWith('e') };
    const side = operator.startsWith('$g') ? 'from' : 'to';
    if (filter[side]) throw new ValidationError(`query: two ${side === 'from' ? 'lower' : 'upper'} bounds on timestamp`);
    filter[side] = bound;
  }
  return filter;
}
