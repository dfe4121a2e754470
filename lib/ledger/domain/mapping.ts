import { ValidationError } from '../../errors/index.js';
import { stringifyJson } from '../../json/bigint-json.js';
import { LEDGER_MAX_AMOUNT, LEDGER_MAX_DIGITS } from '../../money/amounts.js';
import { type LimitRule, limitsView } from './limits.js';
import { type BalanceMonitor, monitorView } from './monitors.js';

/**
 * The ledger mapping of the v1 API (docs/api.md §3.4): contracts `{name?, account, expr}` constraining the balance an
 * account may go down to. `expr` is a JSON tree over `"$balance"`, `{"$meta": key}` and constants, combined with
 * `$and`/`$or` and compared with `$eq`/`$gt`/`$gte`/`$lt`/`$lte`. This file holds the shape and its
 * validation; `contract-eval.ts` evaluates it.
 */
export interface Mapping {
  contracts: Contract[];
  /** The ledger's limits (docs/api.md §3.6): kept in the same item and version as the contracts. */
  limits?: LimitRule[];
  /** The ledger's balance monitors (docs/api.md §3.6): decided with the limits, so in the same item and version. */
  monitors?: BalanceMonitor[];
}

export interface Contract {
  name?: string;
  /** An account address pattern: `*` matches any run of characters (`:` included), the rest literally. */
  account: string;
  expr: Expr;
}

export type Operand =
  | { kind: 'balance' }
  | { kind: 'meta'; key: string }
  | { kind: 'integer'; value: bigint }
  | { kind: 'string'; value: string };
export type Comparator = '$eq' | '$gt' | '$gte' | '$lt' | '$lte';
export interface Combination {
  op: '$and' | '$or';
  args: Expr[];
}
export interface Comparison {
  op: Comparator;
  left: Operand;
  right: Operand;
}
export type Expr = Combination | Comparison;
export const isCombination = (expr: Expr): expr is Combination =>
  expr.op === '$and' || expr.op === '$or';

/** Bounds that keep the mapping item small and evaluation cheap (docs/decisions/ledger.md, "Ledger mapping"). */
export const MAX_CONTRACTS = 100;
export const MAX_MAPPING_BYTES = 64 * 1024;
export const MAX_EXPR_DEPTH = 16;
const MAX_PATTERN_LENGTH = 256;
const MAX_NAME_LENGTH = 128;
const MAX_META_KEY_LENGTH = 256;
const MAX_STRING_CONSTANT = 1024;
/** A constant is an integer no longer than an amount may be (docs/decisions/ledger.md, "Amounts"). */
const MAX_INTEGER = LEDGER_MAX_AMOUNT;

const PATTERN = /^[a-zA-Z0-9_*-]+(:[a-zA-Z0-9_*-]+)*$/;
const COMPARATORS = new Set<string>(['$eq', '$gt', '$gte', '$lt', '$lte']);
const ORDERINGS = new Set<string>(['$gt', '$gte', '$lt', '$lte']);

const fail = (path: string, message: string): never => {
  throw new ValidationError(`${path}: ${message}`);
};
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'bigint'
        ? 'an integer'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;
const quote = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);

/**
 * Validates a PUT body (already parsed with exact big integers) into a Mapping. Every refusal names the path of
 * the bad node, e.g. `body.contracts[2].expr.$and[1].$gte: must have exactly 2 operands`.
 */
export function parseMapping(body: unknown): Mapping {
  if (!isObject(body)) return fail('body', 'must be an object {"contracts": [...]}');
  for (const key of Object.keys(body))
    if (key !== 'contracts') fail(`body.${key.slice(0, 32)}`, 'unknown field');
  const contracts = body.contracts;
  if (!Array.isArray(contracts)) return fail('body.contracts', 'must be an array of contracts');
  if (contracts.length > MAX_CONTRACTS)
    fail('body.contracts', `must have at most ${MAX_CONTRACTS} contracts`);
  const mapping: Mapping = {
    contracts: contracts.map((c, i) => parseContract(c, `body.contracts[${i}]`)),
  };
  const size = Buffer.byteLength(mappingJson(mapping));
  if (size > MAX_MAPPING_BYTES)
    fail('body.contracts', `the mapping is ${size} bytes; at most ${MAX_MAPPING_BYTES}`);
  return mapping;
}

function parseContract(raw: unknown, path: string): Contract {
  if (!isObject(raw))
    return fail(path, 'must be an object {"account": "<pattern>", "expr": {...}}');
  for (const key of Object.keys(raw))
    if (!['name', 'account', 'expr'].includes(key))
      fail(`${path}.${key.slice(0, 32)}`, 'unknown field');
  const { name, account, expr } = raw;
  if (
    name !== undefined &&
    (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH)
  ) {
    fail(`${path}.name`, `must be a string of 1-${MAX_NAME_LENGTH} characters`);
  }
  if (typeof account !== 'string')
    return fail(`${path}.account`, 'must be an account pattern such as "users:*"');
  if (account.length > MAX_PATTERN_LENGTH || !PATTERN.test(account)) {
    fail(
      `${path}.account`,
      'must be an account pattern: segments of a-z A-Z 0-9 _ - and * separated by ":"',
    );
  }
  if (expr === undefined) return fail(`${path}.expr`, 'is required');
  return {
    ...(name !== undefined ? { name: name as string } : {}),
    account,
    expr: parseExpr(expr, `${path}.expr`, 1),
  };
}

function parseExpr(raw: unknown, path: string, depth: number): Expr {
  if (depth > MAX_EXPR_DEPTH) fail(path, `expressions may nest at most ${MAX_EXPR_DEPTH} levels`);
  if (!isObject(raw))
    return fail(
      path,
      `must be an object with one operator ($and, $or, $eq, $gt, $gte, $lt, $lte), not ${describe(raw)}`,
    );
  const keys = Object.keys(raw);
  if (keys.length !== 1) return fail(path, `must have exactly one operator, found ${keys.length}`);
  const op = keys[0]!;
  const args = raw[op];
  const here = `${path}.${op.slice(0, 32)}`;
  if (op === '$and' || op === '$or') {
    if (!Array.isArray(args) || args.length === 0)
      return fail(here, 'must be a non-empty array of expressions');
    return { op, args: args.map((a, i) => parseExpr(a, `${here}[${i}]`, depth + 1)) };
  }
  if (!COMPARATORS.has(op))
    return fail(
      path,
      `unknown operator ${quote(op)} (known: $and, $or, $eq, $gt, $gte, $lt, $lte)`,
    );
  if (!Array.isArray(args) || args.length !== 2)
    return fail(
      here,
      `must have exactly 2 operands, found ${Array.isArray(args) ? args.length : describe(args)}`,
    );
  const left = parseOperand(args[0], `${here}[0]`);
  const right = parseOperand(args[1], `${here}[1]`);
  if (ORDERINGS.has(op)) {
    // Orderings compare integers: a string constant can never be one, so it is refused rather than always false.
    for (const [operand, i] of [
      [left, 0],
      [right, 1],
    ] as const) {
      if (operand.kind === 'string')
        fail(`${here}[${i}]`, `${op} compares integers; a string constant cannot be ordered`);
    }
  } else if (
    (left.kind === 'string' && (right.kind === 'balance' || right.kind === 'integer')) ||
    (right.kind === 'string' && (left.kind === 'balance' || left.kind === 'integer'))
  ) {
    fail(
      here,
      'compares a string with an integer: both operands must be integers, or strings (a $meta value is either)',
    );
  }
  return { op: op as Comparator, left, right };
}

function parseOperand(raw: unknown, path: string): Operand {
  if (raw === '$balance') return { kind: 'balance' };
  if (typeof raw === 'string') {
    // v1 read strings starting with `$` as variables; `$balance` is the only one, so anything else is a typo.
    if (raw.startsWith('$'))
      return fail(path, `unknown variable ${quote(raw)} (the only variable is "$balance")`);
    if (raw.length > MAX_STRING_CONSTANT)
      return fail(path, `string constants are at most ${MAX_STRING_CONSTANT} characters`);
    return { kind: 'string', value: raw };
  }
  if (typeof raw === 'bigint') {
    if (raw > MAX_INTEGER || raw < -MAX_INTEGER)
      return fail(path, `integer constants have at most ${LEDGER_MAX_DIGITS} digits`);
    return { kind: 'integer', value: raw };
  }
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw))
      return fail(path, 'numeric constants must be integers (no fraction, no exponent)');
    return { kind: 'integer', value: BigInt(raw) };
  }
  if (isObject(raw) && Object.keys(raw).length === 1 && '$meta' in raw) {
    const key = raw.$meta;
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_META_KEY_LENGTH)
      return fail(
        `${path}.$meta`,
        `must be a metadata key (a string of 1-${MAX_META_KEY_LENGTH} characters)`,
      );
    return { kind: 'meta', key };
  }
  return fail(
    path,
    `must be "$balance", {"$meta": "<key>"}, an integer or a string, not ${describe(raw)}`,
  );
}

/** The wire form of a mapping (what PUT answers, GET returns and the event carries): the request's own shape. */
export function mappingView(mapping: Mapping): {
  contracts: Array<{ name?: string; account: string; expr: unknown }>;
} {
  return {
    contracts: mapping.contracts.map((c) => ({
      ...(c.name !== undefined ? { name: c.name } : {}),
      account: c.account,
      expr: exprView(c.expr),
    })),
  };
}

export function exprView(expr: Expr): unknown {
  if (isCombination(expr)) return { [expr.op]: expr.args.map(exprView) };
  return { [expr.op]: [operandView(expr.left), operandView(expr.right)] };
}

function operandView(operand: Operand): unknown {
  switch (operand.kind) {
    case 'balance':
      return '$balance';
    case 'meta':
      return { $meta: operand.key };
    default:
      return operand.value;
  }
}

/** Exact JSON text of a mapping (integers as bare big integers): how it is stored and measured. */
/** The stored form: the contracts as the v1 API shows them, and the limits and monitors when there are any. */
export function mappingJson(mapping: Mapping): string {
  const limits = mapping.limits?.length ? { limits: limitsView(mapping.limits).rules } : {};
  const monitors = mapping.monitors?.length ? { monitors: mapping.monitors.map(monitorView) } : {};
  return stringifyJson({ ...mappingView(mapping), ...limits, ...monitors });
}
