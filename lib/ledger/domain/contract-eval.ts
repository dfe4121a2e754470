import { stringifyJson } from '../../json/bigint-json.js';
import { LEDGER_OPERAND_MAX_DIGITS } from '../../money/amounts.js';
import { matchesPattern } from './account-pattern.js';
import type { Contract, Expr, Mapping, Operand } from './mapping.js';
import { exprView, isCombination } from './mapping.js';

/**
 * Evaluation of mapping contracts (docs/api.md §3.4). Pure: the caller gives the balance after a debit and the
 * account's metadata as stored before the transaction.
 *
 * Type rules (docs/decisions/ledger.md, "Ledger mapping"): `$balance` and integer constants are integers (bigint,
 * exact); a `$meta` value is a string. Compared with an integer, a metadata value counts only when it is a
 * decimal integer (of up to LEDGER_OPERAND_MAX_DIGITS digits); a missing or non-integer value makes that comparison false, so a floor such
 * as `{"$gte": ["$balance", {"$meta": "floor"}]}` fails closed. Compared with a string or another `$meta`,
 * `$eq` is string equality (missing never equals anything).
 */

/** The built-in contract every account falls back to: never below zero. */
export const DEFAULT_CONTRACT: Contract = {
  account: '*',
  expr: { op: '$gte', left: { kind: 'balance' }, right: { kind: 'integer', value: 0n } },
};

const INTEGER = new RegExp(`^-?\\d{1,${LEDGER_OPERAND_MAX_DIGITS}}$`);
/** The contract that decides for an account: the mapping's first match, else the built-in default. */
export function contractFor(
  mapping: Mapping | undefined,
  address: string,
): { contract: Contract; index: number | undefined } {
  const index = mapping?.contracts.findIndex((c) => matchesPattern(c.account, address)) ?? -1;
  return index >= 0
    ? { contract: mapping!.contracts[index]!, index }
    : { contract: DEFAULT_CONTRACT, index: undefined };
}

type Value =
  | { kind: 'integer'; value: bigint }
  | { kind: 'string'; value: string }
  | { kind: 'missing' };

function operandValue(
  operand: Operand,
  balance: bigint,
  metadata: Readonly<Record<string, string>>,
): Value {
  switch (operand.kind) {
    case 'balance':
      return { kind: 'integer', value: balance };
    case 'meta': {
      const text = Object.hasOwn(metadata, operand.key) ? metadata[operand.key] : undefined;
      return text === undefined ? { kind: 'missing' } : { kind: 'string', value: text };
    }
    default:
      return operand;
  }
}

/** A metadata string read as an integer, when the other side of a comparison is one. */
function asInteger(value: Value): bigint | undefined {
  if (value.kind === 'integer') return value.value;
  if (value.kind === 'string' && INTEGER.test(value.value)) return BigInt(value.value);
  return undefined;
}

export function evaluate(
  expr: Expr,
  balance: bigint,
  metadata: Readonly<Record<string, string>>,
): boolean {
  if (isCombination(expr))
    return expr.op === '$and'
      ? expr.args.every((e) => evaluate(e, balance, metadata))
      : expr.args.some((e) => evaluate(e, balance, metadata));
  const left = operandValue(expr.left, balance, metadata);
  const right = operandValue(expr.right, balance, metadata);
  if (left.kind === 'missing' || right.kind === 'missing') return false;
  if (expr.op === '$eq' && left.kind === 'string' && right.kind === 'string')
    return left.value === right.value;
  const a = asInteger(left);
  const b = asInteger(right);
  if (a === undefined || b === undefined) return false;
  switch (expr.op) {
    case '$eq':
      return a === b;
    case '$gt':
      return a > b;
    case '$gte':
      return a >= b;
    case '$lt':
      return a < b;
    case '$lte':
      return a <= b;
  }
}

/** How a failed contract is named in INSUFFICIENT_FUND messages. */
export function describeContract(contract: Contract, index: number | undefined): string {
  if (index === undefined) return 'the default contract (balance >= 0)';
  const label = contract.name !== undefined ? ` ${JSON.stringify(contract.name)}` : '';
  return `contract ${index}${label} (account ${JSON.stringify(contract.account)}, expr ${stringifyJson(exprView(contract.expr))})`;
}
