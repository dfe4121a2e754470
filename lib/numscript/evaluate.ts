import type { Expression, Position } from './ast.js';
import type { BalanceBook } from './balances.js';
import { compilationError, type NumscriptError } from './errors.js';
import { FEATURE, type FeatureFlag } from './features.js';
import { type Rational, rational } from './rational.js';
import { accountValue, renderValue, type Value } from './values.js';

/**
 * Evaluates expressions against the script's variables and balances. Function calls are only allowed without a
 * feature flag as a variable's origin (`inVarOrigin`), as in the reference.
 */
export class Evaluator {
  readonly variables = new Map<string, Value>();
  inVarOrigin = false;

  constructor(
    private readonly balances: BalanceBook,
    private readonly flags: ReadonlySet<string>,
  ) {}

  requireFlag(flag: FeatureFlag, at: Position): void {
    if (!this.flags.has(flag)) {
      throw compilationError(
        'ExperimentalFeature',
        `this feature is experimental. You need the '${flag}' feature flag to enable it`,
        at,
      );
    }
  }

  evaluate(expression: Expression): Value {
    switch (expression.type) {
      case 'variable': {
        const value = this.variables.get(expression.name);
        if (!value)
          throw compilationError(
            'UnboundVariable',
            `unbound variable: $${expression.name}`,
            expression.loc,
          );
        return value;
      }
      case 'asset':
        return { type: 'asset', value: expression.value };
      case 'string':
        return { type: 'string', value: expression.value };
      case 'number':
        return { type: 'number', value: expression.value };
      case 'percent':
        return { type: 'portion', value: rational(expression.numerator, expression.denominator) };
      case 'account':
        return this.accountLiteral(expression);
      case 'monetary': {
        const asset = this.expect(expression.asset, 'asset') as { value: string };
        const amount = this.expect(expression.amount, 'number') as { value: bigint };
        return { type: 'monetary', asset: asset.value, amount: amount.value };
      }
      case 'negate': {
        const operand = this.evaluate(expression.operand);
        if (operand.type === 'number') return { type: 'number', value: -operand.value };
        if (operand.type === 'monetary') return { ...operand, amount: -operand.amount };
        throw typeError('number|monetary', operand, expression.loc);
      }
      case 'binary':
        return this.binary(expression);
      case 'call':
        return this.call(expression);
    }
  }

  private binary(expression: Extract<Expression, { type: 'binary' }>): Value {
    const left = this.evaluate(expression.left);
    const right = this.evaluate(expression.right);
    if (expression.op === '/') {
      if (left.type !== 'number') throw typeError('number', left, expression.left.loc);
      if (right.type !== 'number') throw typeError('number', right, expression.right.loc);
      if (right.value === 0n) {
        throw compilationError(
          'DivideByZero',
          `cannot divide by zero (in ${left.value}/0)`,
          expression.loc,
        );
      }
      return { type: 'portion', value: rational(left.value, right.value) };
    }
    const sign = expression.op === '+' ? 1n : -1n;
    if (left.type === 'number') {
      if (right.type !== 'number') throw typeError('number', right, expression.right.loc);
      return { type: 'number', value: left.value + sign * right.value };
    }
    if (left.type === 'monetary') {
      if (right.type !== 'monetary') throw typeError('monetary', right, expression.right.loc);
      if (right.asset !== left.asset)
        throw mismatchedCurrency(left.asset, right.asset, expression.right.loc);
      return { type: 'monetary', asset: left.asset, amount: left.amount + sign * right.amount };
    }
    throw typeError('number|monetary', left, expression.left.loc);
  }

  private accountLiteral(expression: Extract<Expression, { type: 'account' }>): Value {
    const parts = expression.parts.map((part) => {
      if (typeof part === 'string') return part;
      this.requireFlag(FEATURE.accountInterpolation, expression.loc);
      const value = this.variables.get(part.variable);
      if (!value)
        throw compilationError(
          'UnboundVariable',
          `unbound variable: $${part.variable}`,
          expression.loc,
        );
      if (value.type === 'account') return value.name;
      if (value.type === 'string' || value.type === 'number') return String(value.value);
      throw typeError('account|string|number', value, expression.loc);
    });
    return accountValue(parts.join(':'), expression.loc);
  }

  private call(call: Extract<Expression, { type: 'call' }>): Value {
    if (!this.inVarOrigin) this.requireFlag(FEATURE.midScriptFunctionCall, call.loc);
    switch (call.name) {
      case 'meta':
        throw compilationError(
          'InvalidNestedMeta',
          'meta() can only be the whole origin of a variable',
          call.loc,
        );
      case 'balance': {
        const [account, asset] = this.arguments(call, ['account', 'asset']) as [string, string];
        const balance = this.balances.current(account, asset);
        if (balance < 0n) {
          throw compilationError(
            'NegativeBalance',
            `cannot fetch negative balance from account @${account}`,
            call.loc,
          );
        }
        return { type: 'monetary', asset, amount: balance };
      }
      case 'overdraft': {
        this.requireFlag(FEATURE.overdraftFunction, call.loc);
        const [account, asset] = this.arguments(call, ['account', 'asset']) as [string, string];
        const balance = this.balances.current(account, asset);
        return { type: 'monetary', asset, amount: balance > 0n ? 0n : -balance };
      }
      case 'get_asset': {
        this.requireFlag(FEATURE.getAssetFunction, call.loc);
        const [monetary] = this.arguments(call, ['monetary']) as [
          Extract<Value, { type: 'monetary' }>,
        ];
        return { type: 'asset', value: monetary.asset };
      }
      case 'get_amount': {
        this.requireFlag(FEATURE.getAmountFunction, call.loc);
        const [monetary] = this.arguments(call, ['monetary']) as [
          Extract<Value, { type: 'monetary' }>,
        ];
        return { type: 'number', value: monetary.amount };
      }
      default:
        throw compilationError('UnboundFunction', `unknown function: ${call.name}`, call.loc);
    }
  }

  /** Evaluates a call's arguments against their types: accounts/strings/assets come back as strings. */
  arguments(
    call: { name: string; args: Expression[]; loc: Position },
    types: Array<Value['type'] | 'any'>,
  ): Array<string | Value> {
    if (call.args.length !== types.length) {
      throw compilationError(
        'BadArity',
        `bad arity for ${call.name}: expected ${types.length} arguments (got ${call.args.length} instead)`,
        call.loc,
      );
    }
    return call.args.map((arg, i) => {
      const type = types[i]!;
      if (type === 'any') return this.evaluate(arg);
      const value = this.expect(arg, type);
      if (value.type === 'account') return value.name;
      if (value.type === 'string' || value.type === 'asset') return value.value;
      return value;
    });
  }

  expect(expression: Expression, type: Value['type']): Value {
    const value = this.evaluate(expression);
    if (value.type !== type) throw typeError(type, value, expression.loc);
    return value;
  }

  account(expression: Expression): string {
    return (this.expect(expression, 'account') as { name: string }).name;
  }

  portion(expression: Expression): Rational {
    return (this.expect(expression, 'portion') as { value: Rational }).value;
  }

  monetary(expression: Expression): { asset: string; amount: bigint } {
    return this.expect(expression, 'monetary') as { asset: string; amount: bigint };
  }

  /** A monetary in the asset being sent (caps, overdraft bounds), as its amount. */
}

export function typeError(expected: string, value: Value, at: Position): NumscriptError {
  return compilationError(
    'TypeError',
    `invalid value received. Expecting value of type ${expected} (got ${value.type} ${renderValue(value)} instead)`,
    at,
  );
}

export function mismatchedCurrency(expected: string, got: string, at: Position): NumscriptError {
  return compilationError(
    'MismatchedCurrency',
    `mismatched currency (expected '${expected}', got '${got}' instead)`,
    at,
  );
}
