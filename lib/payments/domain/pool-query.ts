import { ValidationError } from '../../errors/index.js';
import type { Account } from './account.js';

/**
 * A dynamic pool's query, in the reference's filter language over accounts: `{"$match": {"<field>": "<value>"}}`
 * combined with `$and`, `$or` (lists) and `$not`. Fields: id, reference, connector_id, type, default_asset, name
 * and `metadata[<key>]`. A query is compiled when the pool is created or its query changed, so a pool never holds
 * a query that cannot be read.
 */
export type AccountPredicate = (account: Account) => boolean;

const MAX_DEPTH = 8;
const METADATA = /^metadata\[(.+)\]$/;

const FIELDS: Record<string, (a: Account) => string | undefined> = {
  id: (a) => a.id,
  reference: (a) => a.reference,
  connector_id: (a) => a.connectorID,
  type: (a) => a.type,
  default_asset: (a) => a.defaultAsset,
  name: (a) => a.name,
};

export function compilePoolQuery(query: unknown, depth = 0): AccountPredicate {
  if (depth > MAX_DEPTH) throw invalid(`nested deeper than ${MAX_DEPTH} levels`);
  if (query === null || typeof query !== 'object' || Array.isArray(query))
    throw invalid('each clause must be an object');
  const entries = Object.entries(query as Record<string, unknown>);
  if (entries.length !== 1) throw invalid('each clause must have exactly one operator');
  const [operator, operand] = entries[0] as [string, unknown];
  switch (operator) {
    case '$and':
    case '$or': {
      if (!Array.isArray(operand) || operand.length === 0)
        throw invalid(`${operator} takes a non-empty list of clauses`);
      const parts = operand.map((q) => compilePoolQuery(q, depth + 1));
      return operator === '$and' ? (a) => parts.every((p) => p(a)) : (a) => parts.some((p) => p(a));
    }
    case '$not': {
      const inner = compilePoolQuery(operand, depth + 1);
      return (a) => !inner(a);
    }
    case '$match':
      return compileMatch(operand);
    default:
      throw invalid(`unknown operator ${operator.slice(0, 32)}`);
  }
}

function compileMatch(operand: unknown): AccountPredicate {
  if (operand === null || typeof operand !== 'object' || Array.isArray(operand))
    throw invalid('$match takes an object of one field and its value');
  const entries = Object.entries(operand as Record<string, unknown>);
  if (entries.length !== 1) throw invalid('$match takes exactly one field');
  const [field, value] = entries[0] as [string, unknown];
  if (typeof value !== 'string') throw invalid(`$match: the value of ${field} must be a string`);
  const metadataKey = METADATA.exec(field)?.[1];
  if (metadataKey !== undefined)
    return (a) => Object.hasOwn(a.metadata, metadataKey) && a.metadata[metadataKey] === value;
  const read = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
  if (!read) throw invalid(`unknown key '${field.slice(0, 64)}'`);
  return (a) => read(a) === value;
}

const invalid = (why: string) => new ValidationError(`query: ${why}`);
