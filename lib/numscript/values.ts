import type { Position } from './ast.js';
import { compilationError } from './errors.js';
import { compare, ONE, type Rational, rational, renderRational, ZERO } from './rational.js';

/** A run-time value. Accounts are held without their `@`, as the reference does. */
export type Value =
  | { type: 'monetary'; asset: string; amount: bigint }
  | { type: 'number'; value: bigint }
  | { type: 'string'; value: string }
  | { type: 'account'; name: string }
  | { type: 'asset'; value: string }
  | { type: 'portion'; value: Rational };

export type ValueType = Value['type'];

export const VALUE_TYPES: readonly ValueType[] = [
  'monetary',
  'number',
  'string',
  'account',
  'asset',
  'portion',
];

/** The ledger's account and asset name rules (the reference checks postings against the same ones). */
export const ACCOUNT_NAME = /^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$/;
export const ASSET_NAME = /^[A-Z][A-Z0-9]{0,16}(_[A-Z]{1,16})?(\/\d{1,6})?$/;

/** Bounds the cost of BigInt parsing on hostile input; far beyond any real amount (DynamoDB stops at 38). */
const MAX_DIGITS = 1000;
const INTEGER = /^[+-]?[0-9]+$/;
const PERCENT = /^([0-9]+)(?:[.]([0-9]+))?%$/;
const FRACTION = /^([0-9]+)\s?\/\s?([0-9]+)$/;

/** How the reference renders a value as metadata (its Value.String()). */
export function renderValue(value: Value): string {
  switch (value.type) {
    case 'monetary':
      return `${value.asset} ${value.amount}`;
    case 'number':
      return value.value.toString();
    case 'portion':
      return renderRational(value.value);
    case 'account':
      return value.name;
    case 'string':
    case 'asset':
      return value.value;
  }
}

function parseInteger(raw: string, variable: string, at: Position, whole = raw): bigint {
  if (!INTEGER.test(raw) || raw.length > MAX_DIGITS) {
    throw compilationError(
      'InvalidVariableValue',
      `invalid number literal for $${variable}: '${whole}'`,
      at,
    );
  }
  return BigInt(raw);
}

export function parsePortion(raw: string, variable: string, at: Position): Rational {
  const bad = (reason: string) =>
    compilationError(
      'InvalidVariableValue',
      `bad portion for $${variable}: '${raw}' (${reason})`,
      at,
    );
  if (raw.length > MAX_DIGITS) throw bad('too long');
  let portion: Rational;
  const percent = PERCENT.exec(raw);
  const fraction = percent ? null : FRACTION.exec(raw);
  if (percent) {
    const decimals = percent[2] ?? '';
    portion = rational(BigInt(percent[1]! + decimals), 100n * 10n ** BigInt(decimals.length));
  } else if (fraction) {
    if (BigInt(fraction[2]!) === 0n) throw bad('invalid fractional format');
    portion = rational(BigInt(fraction[1]!), BigInt(fraction[2]!));
  } else {
    throw bad('invalid format');
  }
  if (compare(portion, ZERO) < 0 || compare(portion, ONE) > 0)
    throw bad('portion must be between 0% and 100% inclusive');
  return portion;
}

export function accountValue(name: string, at: Position): Value {
  if (!ACCOUNT_NAME.test(name))
    throw compilationError('InvalidAccountName', `invalid account name: @${name}`, at);
  return { type: 'account', name };
}

/** A variable's text (from the request's `vars` or from account metadata) read as its declared type. */
export function parseVariable(
  typeName: string,
  raw: string,
  variable: string,
  at: Position,
): Value {
  switch (typeName) {
    case 'monetary': {
      const parts = raw.split(' ');
      if (parts.length !== 2) {
        throw compilationError(
          'InvalidVariableValue',
          `invalid monetary literal for $${variable}: '${raw}'`,
          at,
        );
      }
      return {
        type: 'monetary',
        asset: parts[0]!,
        amount: parseInteger(parts[1]!, variable, at, raw),
      };
    }
    case 'account':
      if (!ACCOUNT_NAME.test(raw)) {
        throw compilationError(
          'InvalidAccountName',
          `invalid account name for $${variable}: '${raw}'`,
          at,
        );
      }
      return { type: 'account', name: raw };
    case 'portion':
      return { type: 'portion', value: parsePortion(raw, variable, at) };
    case 'asset':
      if (!ASSET_NAME.test(raw))
        throw compilationError(
          'InvalidVariableValue',
          `invalid asset for $${variable}: '${raw}'`,
          at,
        );
      return { type: 'asset', value: raw };
    case 'number':
      return { type: 'number', value: parseInteger(raw, variable, at) };
    case 'string':
      return { type: 'string', value: raw };
    default:
      throw compilationError('InvalidType', `this type does not exist: ${typeName}`, at);
  }
}
