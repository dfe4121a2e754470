import type {
  Destination,
  Expression,
  KeptOrDestination,
  Position,
  ProgramTree,
  SentValue,
  Source,
} from './ast.js';
import { compilationError } from './errors.js';
import { VALUE_TYPES, type ValueType } from './values.js';

/** 'unknown' where only the run can tell (e.g. an interpolated account part): never reported. */
type StaticType = ValueType | 'unknown';

/** Functions usable inside expressions: argument types and result type (meta's is the declared one). */
export const EXPRESSION_FUNCTIONS: Record<string, { args: ValueType[]; result: StaticType }> = {
  meta: { args: ['account', 'string'], result: 'unknown' },
  balance: { args: ['account', 'asset'], result: 'monetary' },
  overdraft: { args: ['account', 'asset'], result: 'monetary' },
  get_asset: { args: ['monetary'], result: 'asset' },
  get_amount: { args: ['monetary'], result: 'number' },
};

/** Functions usable as statements. 'unknown' accepts any value. */
export const STATEMENT_FUNCTIONS: Record<string, StaticType[]> = {
  set_tx_meta: ['string', 'unknown'],
  set_account_meta: ['account', 'string', 'unknown'],
};

/**
 * Static checks: every variable declared once with a real type and used only after its declaration, every
 * function known and called with the right number of arguments, and every expression of the type its place
 * needs where that is known without running. What only the run can know (balances, metadata, feature flags)
 * is left to the interpreter.
 */
export function checkProgram(tree: ProgramTree): void {
  const declared = new Map<string, ValueType>();

  for (const declaration of tree.vars) {
    if (!(VALUE_TYPES as readonly string[]).includes(declaration.typeName)) {
      throw compilationError(
        'InvalidType',
        `this type does not exist: ${declaration.typeName}`,
        declaration.loc,
      );
    }
    if (declared.has(declaration.name)) {
      throw compilationError(
        'DuplicateVariable',
        `variable $${declaration.name} is declared twice`,
        declaration.loc,
      );
    }
    const type = declaration.typeName as ValueType;
    const origin = declaration.origin;
    if (origin?.type === 'call' && origin.name === 'meta') {
      checkCall(origin, declared);
    } else if (origin) {
      expect(origin, type, declared);
    }
    declared.set(declaration.name, type);
  }

  for (const statement of tree.statements) {
    switch (statement.type) {
      case 'send':
        checkSent(statement.sent, declared);
        checkSource(statement.source, declared);
        checkDestination(statement.destination, declared);
        break;
      case 'save':
        checkSent(statement.sent, declared);
        expect(statement.account, 'account', declared);
        break;
      case 'call': {
        const parameters = STATEMENT_FUNCTIONS[statement.name];
        if (!parameters)
          throw compilationError(
            'UnboundFunction',
            `unknown function: ${statement.name}`,
            statement.loc,
          );
        checkArity(statement.name, parameters.length, statement.args.length, statement.loc);
        statement.args.forEach((arg, i) => {
          expect(arg, parameters[i]!, declared);
        });
        break;
      }
    }
  }
}

function checkSent(sent: SentValue, declared: Map<string, ValueType>): void {
  if (sent.kind === 'all') expect(sent.asset, 'asset', declared);
  else expect(sent.value, 'monetary', declared);
}

function checkSource(source: Source, declared: Map<string, ValueType>): void {
  switch (source.type) {
    case 'account':
      expect(source.address, 'account', declared);
      if (source.color) expect(source.color, 'string', declared);
      if (source.overdraft && source.overdraft !== 'unbounded')
        expect(source.overdraft, 'monetary', declared);
      return;
    case 'scaling':
      expect(source.address, 'account', declared);
      expect(source.through, 'account', declared);
      return;
    case 'inorder':
    case 'oneof':
      for (const inner of source.sources) checkSource(inner, declared);
      return;
    case 'allotment':
      checkRemainingOnce(source.items, source.loc);
      for (const item of source.items) {
        if (item.portion !== 'remaining') expect(item.portion, 'portion', declared);
        checkSource(item.from, declared);
      }
      return;
    case 'capped':
      expect(source.cap, 'monetary', declared);
      checkSource(source.from, declared);
      return;
  }
}

function checkDestination(destination: Destination, declared: Map<string, ValueType>): void {
  const target = (to: KeptOrDestination) => {
    if (to.type === 'to') checkDestination(to.destination, declared);
  };
  switch (destination.type) {
    case 'account':
      expect(destination.address, 'account', declared);
      return;
    case 'allotment':
      checkRemainingOnce(destination.items, destination.loc);
      for (const item of destination.items) {
        if (item.portion !== 'remaining') expect(item.portion, 'portion', declared);
        target(item.to);
      }
      return;
    case 'inorder':
    case 'oneof':
      for (const clause of destination.clauses) {
        expect(clause.cap, 'monetary', declared);
        target(clause.to);
      }
      target(destination.remaining);
      return;
  }
}

function checkRemainingOnce(
  items: Array<{ portion: 'remaining' | Expression }>,
  at: Position,
): void {
  if (items.filter((item) => item.portion === 'remaining').length > 1) {
    throw compilationError(
      'InvalidAllotmentSum',
      'an allotment has at most one `remaining` clause',
      at,
    );
  }
}

function checkArity(name: string, expected: number, given: number, at: Position): void {
  if (expected !== given) {
    throw compilationError(
      'BadArity',
      `bad arity for ${name}: expected ${expected} arguments (got ${given} instead)`,
      at,
    );
  }
}

function expect(
  expression: Expression,
  wanted: StaticType,
  declared: Map<string, ValueType>,
): void {
  const actual = typeOf(expression, declared);
  if (wanted !== 'unknown' && actual !== 'unknown' && actual !== wanted) {
    throw compilationError(
      'TypeError',
      `expected a value of type ${wanted} (got ${actual} instead)`,
      expression.loc,
    );
  }
}

function checkCall(
  call: Extract<Expression, { type: 'call' }>,
  declared: Map<string, ValueType>,
): StaticType {
  const signature = EXPRESSION_FUNCTIONS[call.name];
  if (!signature)
    throw compilationError('UnboundFunction', `unknown function: ${call.name}`, call.loc);
  checkArity(call.name, signature.args.length, call.args.length, call.loc);
  call.args.forEach((arg, i) => {
    expect(arg, signature.args[i]!, declared);
  });
  return signature.result;
}

function typeOf(expression: Expression, declared: Map<string, ValueType>): StaticType {
  switch (expression.type) {
    case 'variable': {
      const type = declared.get(expression.name);
      if (!type)
        throw compilationError(
          'UnboundVariable',
          `unbound variable: $${expression.name}`,
          expression.loc,
        );
      return type;
    }
    case 'asset':
    case 'string':
    case 'number':
    case 'account':
    case 'monetary':
      if (expression.type === 'account') {
        for (const part of expression.parts) {
          if (typeof part !== 'string' && !declared.has(part.variable)) {
            throw compilationError(
              'UnboundVariable',
              `unbound variable: $${part.variable}`,
              expression.loc,
            );
          }
        }
      }
      if (expression.type === 'monetary') {
        expect(expression.asset, 'asset', declared);
        expect(expression.amount, 'number', declared);
      }
      return expression.type;
    case 'percent':
      return 'portion';
    case 'negate': {
      const operand = typeOf(expression.operand, declared);
      if (operand !== 'unknown' && operand !== 'number' && operand !== 'monetary') {
        throw compilationError(
          'TypeError',
          `cannot negate a value of type ${operand}`,
          expression.loc,
        );
      }
      return operand;
    }
    case 'binary': {
      if (expression.op === '/') {
        expect(expression.left, 'number', declared);
        expect(expression.right, 'number', declared);
        return 'portion';
      }
      const left = typeOf(expression.left, declared);
      if (left !== 'unknown' && left !== 'number' && left !== 'monetary') {
        throw compilationError(
          'TypeError',
          `cannot apply '${expression.op}' to a value of type ${left}`,
          expression.loc,
        );
      }
      expect(expression.right, left, declared);
      return left;
    }
    case 'call':
      if (expression.name === 'meta') {
        throw compilationError(
          'InvalidNestedMeta',
          'meta() can only be the whole origin of a variable',
          expression.loc,
        );
      }
      return checkCall(expression, declared);
  }
}
