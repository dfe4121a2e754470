import { ValidationError } from '../../errors/index.js';
import { isObject, quote, readQueryOperator } from './query-json.js';

/**
 * The ledger list's `query` (the reference's filters on ledgers): `$match` on `bucket`, `name` or
 * `metadata[key]`, `$like` on `name` (`%` any characters), `$exists` on `metadata` (a key), combined with
 * `$and`, `$or`, `$not`.
 */
export type LedgerFilter =
  | { field: 'bucket' | 'name'; equals: string }
  | { field: 'name'; like: string }
  | { metadata: string; equals: string }
  | { metadataExists: string }
  | { and: LedgerFilter[] }
  | { or: LedgerFilter[] }
  | { not: LedgerFilter };

const MAX_DEPTH = 8;
const MAX_NODES = 50;
const METADATA_FIELD = /^metadata\[(.{1,256})\]$/s;

export function parseLedgerFilter(raw: string | undefined): LedgerFilter | undefined {
  const query = readQueryOperator(raw, '{"$match": {"bucket": "_default"}}');
  if (!query) return undefined;
  const budget = { nodes: 0 };
  return node(query.operator, query.operand, 'query', 0, budget);
}

function node(
  operator: string,
  operand: unknown,
  where: string,
  depth: number,
  budget: { nodes: number },
): LedgerFilter {
  if (depth > MAX_DEPTH) throw new ValidationError(`${where}: nested more than ${MAX_DEPTH} deep`);
  if (++budget.nodes > MAX_NODES)
    throw new ValidationError(`query: more than ${MAX_NODES} conditions`);
  switch (operator) {
    case '$and':
    case '$or': {
      if (!Array.isArray(operand) || operand.length === 0)
        throw new ValidationError(`${where}.${operator}: must be a non-empty array of conditions`);
      const parts = operand.map((part, i) =>
        single(part, `${where}.${operator}[${i}]`, depth + 1, budget),
      );
      return operator === '$and' ? { and: parts } : { or: parts };
    }
    case '$not':
      return { not: single(operand, `${where}.$not`, depth + 1, budget) };
    case '$match':
    case '$like':
    case '$exists':
      return condition(operator, operand, where);
    default:
      throw new ValidationError(
        `${where}: operator ${quote(operator)} is not supported on ledgers ($match, $like, $exists, $and, $or, $not)`,
      );
  }
}

function single(
  value: unknown,
  where: string,
  depth: number,
  budget: { nodes: number },
): LedgerFilter {
  if (!isObject(value) || Object.keys(value).length !== 1)
    throw new ValidationError(`${where}: must be an object with one operator`);
  const [operator] = Object.keys(value) as [string];
  return node(operator, value[operator], where, depth, budget);
}

function condition(
  operator: '$match' | '$like' | '$exists',
  operand: unknown,
  where: string,
): LedgerFilter {
  if (!isObject(operand) || Object.keys(operand).length !== 1)
    throw new ValidationError(`${where}.${operator}: must name exactly one field`);
  const [field] = Object.keys(operand) as [string];
  const value = operand[field];
  const at = `${where}.${operator}.${field.slice(0, 64)}`;
  if (operator === '$exists') {
    if (field !== 'metadata' || typeof value !== 'string' || value === '')
      throw new ValidationError(`${where}.$exists: takes {"metadata": "<key>"}`);
    return { metadataExists: value };
  }
  if (typeof value !== 'string' || value.length > 4096)
    throw new ValidationError(`${at}: must be a string of at most 4096 characters`);
  if (operator === '$like') {
    if (field !== 'name') throw new ValidationError(`${where}.$like: only on name`);
    return { field: 'name', like: value };
  }
  if (field === 'bucket' || field === 'name') return { field, equals: value };
  const key = METADATA_FIELD.exec(field)?.[1];
  if (key !== undefined) return { metadata: key, equals: value };
  throw new ValidationError(
    `${where}.$match: unknown field ${quote(field)} (bucket, name, metadata[key])`,
  );
}

/** Whether a ledger matches (`%` in a `$like` pattern is any run of characters, every other character itself). */
export function ledgerMatches(
  filter: LedgerFilter,
  ledger: { name: string; bucket: string; metadata: Record<string, string> },
): boolean {
  if ('and' in filter) return filter.and.every((f) => ledgerMatches(f, ledger));
  if ('or' in filter) return filter.or.some((f) => ledgerMatches(f, ledger));
  if ('not' in filter) return !ledgerMatches(filter.not, ledger);
  if ('metadataExists' in filter) return Object.hasOwn(ledger.metadata, filter.metadataExists);
  if ('metadata' in filter)
    return (
      Object.hasOwn(ledger.metadata, filter.metadata) &&
      ledger.metadata[filter.metadata] === filter.equals
    );
  if ('like' in filter) return likeMatches(filter.like, ledger.name);
  return ledger[filter.field] === filter.equals;
}

function likeMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('%');
  if (parts.length === 1) return text === pattern;
  if (!text.startsWith(parts[0]!) || !text.endsWith(parts[parts.length - 1]!)) return false;
  // Greedy left to right over the middle parts: linear, no backtracking (a hostile pattern costs nothing).
  let at = parts[0]!.length;
  const end = text.length - parts[parts.length - 1]!.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return at <= end;
}
