import { ValidationError } from '../../../errors/index.js';
import { isObject, quote, readQueryOperator } from '../query-json.js';

/**
 * The reference platform's filter language, parsed once for every list: comparisons on a field under `$and`,
 * `$or` and `$not`. Each list names its fields and what they accept (a Schema); evaluation (evaluate.ts) and
 * the choice of an index (each list's planner) work on the parsed tree, never on the raw JSON.
 */
export type Operator = '$match' | '$lt' | '$lte' | '$gt' | '$gte' | '$like' | '$in' | '$exists';

export type Query = { and: Query[] } | { or: Query[] } | { not: Query } | Condition;

export interface Condition {
  op: Operator;
  /** The field as written (`metadata[kind]`, `balance[USD/2]`, `address`). */
  field: string;
  /** The operand as the field's rule normalised it (an `$in` list: each element so). */
  value: unknown;
}

/** What a field accepts and how an item's value is tested against an operand. */
export interface FieldRule<T> {
  operators: readonly Operator[];
  /** Checks and normalises one operand (400 naming `at` when it is not one this field takes). */
  operand: (raw: unknown, at: string, op: Operator) => unknown;
  /** Whether the item satisfies `op` with the normalised operand (`$in`: called once per element as `$match`). */
  test: (item: T, op: Exclude<Operator, '$in'>, operand: unknown) => boolean;
}

/** A list's fields: a rule per name, or undefined for a field the list does not know. */
export type Schema<T> = (field: string) => FieldRule<T> | undefined;

export const QUERY_LIMITS = { depth: 8, conditions: 50, inValues: 100, likeLength: 256 } as const;

const OPERATORS = new Set<string>([
  '$match',
  '$lt',
  '$lte',
  '$gt',
  '$gte',
  '$like',
  '$in',
  '$exists',
]);

/** Parses `query` for a list; undefined when absent, empty or `{}`. Every error is a 400 that names the place. */
export function parseQuery<T>(
  raw: string | undefined,
  schema: Schema<T>,
  example: string,
  list: string,
): Query | undefined {
  const top = readQueryOperator(raw, example);
  if (!top) return undefined;
  const budget = { conditions: 0 };
  return node(top.operator, top.operand, 'query', 0, { schema, budget, list });
}

interface Context<T> {
  schema: Schema<T>;
  budget: { conditions: number };
  list: string;
}

function node<T>(
  operator: string,
  operand: unknown,
  where: string,
  depth: number,
  ctx: Context<T>,
): Query {
  if (depth > QUERY_LIMITS.depth)
    throw new ValidationError(`${where}: nested more than ${QUERY_LIMITS.depth} deep`);
  if (++ctx.budget.conditions > QUERY_LIMITS.conditions)
    throw new ValidationError(`query: more than ${QUERY_LIMITS.conditions} conditions`);
  if (operator === '$and' || operator === '$or') {
    if (!Array.isArray(operand) || operand.length === 0)
      throw new ValidationError(`${where}.${operator}: must be a non-empty array of conditions`);
    const parts = operand.map((part, i) =>
      single(part, `${where}.${operator}[${i}]`, depth + 1, ctx),
    );
    return operator === '$and' ? { and: parts } : { or: parts };
  }
  if (operator === '$not') return { not: single(operand, `${where}.$not`, depth + 1, ctx) };
  if (OPERATORS.has(operator)) return condition(operator as Operator, operand, where, ctx);
  throw new ValidationError(
    `${where}: unknown operator ${quote(operator)} (known: $match, $lt, $lte, $gt, $gte, $like, $in, $exists, $and, $or, $not)`,
  );
}

function single<T>(value: unknown, where: string, depth: number, ctx: Context<T>): Query {
  if (!isObject(value) || Object.keys(value).length !== 1)
    throw new ValidationError(`${where}: must be an object with one operator`);
  const [operator] = Object.keys(value) as [string];
  return node(operator, value[operator], where, depth, ctx);
}

function condition<T>(op: Operator, operand: unknown, where: string, ctx: Context<T>): Condition {
  // `$exists` names its field as the reference does: {"$exists": {"metadata": "<key>"}} tests metadata[<key>].
  if (!isObject(operand) || Object.keys(operand).length !== 1)
    throw new ValidationError(
      `${where}.${op}: must name exactly one field, such as {"${op}": {"<field>": <value>}}`,
    );
  const [field] = Object.keys(operand) as [string];
  const at = `${where}.${op}.${field.slice(0, 64)}`;
  const rule = ctx.schema(field);
  if (!rule) throw new ValidationError(`${where}.${op}: ${ctx.list} have no field ${quote(field)}`);
  if (!rule.operators.includes(op))
    throw new ValidationError(
      `${at}: operator ${op} is not supported on this field (supported: ${rule.operators.join(', ')})`,
    );
  const raw = operand[field];
  if (op === '$in') {
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > QUERY_LIMITS.inValues)
      throw new ValidationError(
        `${at}: $in takes a non-empty array of at most ${QUERY_LIMITS.inValues} values`,
      );
    return { op, field, value: raw.map((v, i) => rule.operand(v, `${at}[${i}]`, '$match')) };
  }
  if (op === '$like' && (typeof raw !== 'string' || raw.length > QUERY_LIMITS.likeLength)) {
    throw new ValidationError(
      `${at}: $like takes a pattern of at most ${QUERY_LIMITS.likeLength} characters`,
    );
  }
  return { op, field, value: rule.operand(raw, at, op) };
}

/** Whether an item satisfies the query, by the schema's tests. */
export function evaluate<T>(query: Query, item: T, schema: Schema<T>): boolean {
  if ('and' in query) return query.and.every((q) => evaluate(q, item, schema));
  if ('or' in query) return query.or.some((q) => evaluate(q, item, schema));
  if ('not' in query) return !evaluate(query.not, item, schema);
  const rule = schema(query.field)!;
  if (query.op === '$in')
    return (query.value as unknown[]).some((v) => rule.test(item, '$match', v));
  return rule.test(item, query.op, query.value);
}

/** The conditions every match must satisfy: the query itself, or the parts of a top-level `$and`. */
export function conjuncts(query: Query): Query[] {
  return 'and' in query ? query.and.flatMap(conjuncts) : [query];
}

/** Every field a query names. */
export function fields(query: Query): string[] {
  if ('and' in query) return query.and.flatMap(fields);
  if ('or' in query) return query.or.flatMap(fields);
  if ('not' in query) return fields(query.not);
  return [query.field];
}
