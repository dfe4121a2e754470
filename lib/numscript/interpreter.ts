import type { Destination, Expression, KeptOrDestination, Position, SentValue, Source, Statement } from './ast.js';
import { allot } from './allotment.js';
import { compilationError, NumscriptError } from './errors.js';
import { FEATURE, type FeatureFlag } from './features.js';
import { FundsQueue } from './funds-queue.js';
import type { Program } from './program.js';
import { rational, renderRational, type Rational } from './rational.js';
import { ACCOUNT_NAME, accountValue, ASSET_NAME, parseVariable, renderValue, type Value } from './values.js';

/** What a script may read from the ledger. Both must be pure reads; either may throw to ask for a re-run. */
export interface ScriptLedger {
  /** Current balance (input - output) of the account in the asset. */
  balance(account: string, asset: string): bigint;
  metadata(account: string, key: string): string | undefined;
}

export interface ScriptPosting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

export interface ScriptResult {
  postings: ScriptPosting[];
  /** set_tx_meta, rendered as the reference renders values in metadata ("COIN 100", "1/3", "alice"). */
  txMetadata: Record<string, string>;
  /** set_account_meta, by account (without `@`), then key. */
  accountMetadata: Record<string, Record<string, string>>;
}

export interface ExecuteOptions {
  /** Flags enabled on top of the script's own `#![feature("...")]` pragma. */
  featureFlags?: Iterable<string>;
}

/** Destination of funds a `kept` clause leaves with their source (never a valid account name). */
const KEPT = '<kept>';
const WORLD = 'world';

const key = (account: string, asset: string) => `${account}\u0000${asset}`;
/** `USD/2` colored `RED` is `USD_RED/2`: the color goes before the precision, as in the reference. */
function coloredAsset(asset: string, color: string): string {
  if (color === '') return asset;
  const slash = asset.indexOf('/');
  return slash < 0 ? `${asset}_${color}` : `${asset.slice(0, slash)}_${color}${asset.slice(slash)}`;
}
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const nonNegative = (n: bigint) => (n < 0n ? 0n : n);

/**
 * Runs a compiled script. Deterministic and free of side effects: it only calls `ledger`, and reads each
 * balance at most once — all the balances the sources need are read up front, statement by statement, before
 * any funds move (the reference's batched balance query), then kept in memory as the script moves funds.
 */
export function execute(
  program: Program,
  vars: Record<string, string>,
  ledger: ScriptLedger,
  options: ExecuteOptions = {},
): ScriptResult {
  return new Run(program, vars ?? {}, ledger, options).result();
}

class Run {
  private readonly flags: Set<string>;
  private readonly variables = new Map<string, Value>();
  /** Balances as read from the ledger; never rolled back, so a backtracking oneof never reads twice. */
  private readonly read = new Map<string, bigint>();
  /** Balances as the script has moved them so far. */
  private balances = new Map<string, bigint>();
  private queue = FundsQueue.empty();
  private readonly postings: ScriptPosting[] = [];
  private readonly txMetadata = new Map<string, Value>();
  private readonly accountMetadata: Record<string, Record<string, string>> = {};
  private asset = '';
  private inVarOrigin = false;

  constructor(
    private readonly program: Program,
    private readonly vars: Record<string, string>,
    private readonly ledger: ScriptLedger,
    options: ExecuteOptions,
  ) {
    this.flags = new Set([...(options.featureFlags ?? []), ...program.features]);
  }

  result(): ScriptResult {
    this.parseVariables();
    this.prefetchBalances();
    for (const statement of this.program.statements) this.runStatement(statement);
    for (const posting of this.postings) this.checkPosting(posting);
    const txMetadata: Record<string, string> = {};
    for (const [name, value] of this.txMetadata) txMetadata[name] = renderValue(value);
    return { postings: this.postings, txMetadata, accountMetadata: this.accountMetadata };
  }

  // ------------------------------------------------------------ variables

  private parseVariables(): void {
    this.inVarOrigin = true;
    for (const declaration of this.program.vars) {
      const { name, typeName, origin, loc } = declaration;
      let value: Value;
      if (!origin) {
        const raw: unknown = Object.hasOwn(this.vars, name) ? this.vars[name] : undefined;
        if (raw === undefined) throw compilationError('MissingVariable', `variable is missing in vars: ${name}`, loc);
        if (typeof raw !== 'string') {
          throw compilationError('InvalidVariableValue', `variable $${name} must be given as a string`, loc);
        }
        value = parseVariable(typeName, raw, name, loc);
      } else if (origin.type === 'call' && origin.name === 'meta') {
        const [account, metaKey] = this.arguments(origin, ['account', 'string']);
        const raw = this.ledger.metadata(account as string, metaKey as string);
        if (raw === undefined) {
          throw compilationError(
            'MetadataNotFound',
            `account '@${account}' doesn't have metadata associated to the '${metaKey}' key`,
            origin.loc,
          );
        }
        value = parseVariable(typeName, raw, name, origin.loc);
      } else {
        if (origin.type !== 'call') this.requireFlag(FEATURE.midScriptFunctionCall, origin.loc);
        value = this.evaluate(origin);
      }
      this.variables.set(name, value);
    }
    this.inVarOrigin = false;
  }

  // ------------------------------------------------------------ balances

  /**
   * Reads every balance the sources may need before any statement runs. Each read is attempted even if an
   * earlier one threw, so a caller that answers "not loaded yet" by throwing learns every missing balance in
   * one pass; the first error is then rethrown.
   */
  private prefetchBalances(): void {
    const wanted = new Map<string, [string, string]>();
    const want = (account: string, asset: string) => {
      if (account !== WORLD) wanted.set(key(account, asset), [account, asset]);
    };
    const walk = (source: Source): void => {
      switch (source.type) {
        case 'account':
          if (source.overdraft !== 'unbounded') {
            want(this.account(source.address), coloredAsset(this.asset, this.color(source.color)));
          }
          return;
        case 'inorder':
        case 'oneof':
          return source.sources.forEach(walk);
        case 'allotment':
          return source.items.forEach((item) => walk(item.from));
        case 'capped':
          return walk(source.from);
      }
    };
    for (const statement of this.program.statements) {
      if (statement.type === 'send') {
        this.asset = this.sentAsset(statement.sent);
        walk(statement.source);
      } else if (statement.type === 'save') {
        want(this.account(statement.account), this.sentAsset(statement.sent));
      }
    }
    let failure: unknown;
    let failed = false;
    for (const [account, asset] of wanted.values()) {
      try {
        this.current(account, asset);
      } catch (error) {
        if (!failed) [failure, failed] = [error, true];
      }
    }
    if (failed) throw failure;
  }

  /** The balance as moved so far; read from the ledger the first time (world always starts at 0, unread). */
  private current(account: string, asset: string): bigint {
    const k = key(account, asset);
    const known = this.balances.get(k);
    if (known !== undefined) return known;
    let value = this.read.get(k);
    if (value === undefined) {
      value = account === WORLD ? 0n : BigInt(this.ledger.balance(account, asset));
      this.read.set(k, value);
    }
    this.balances.set(k, value);
    return value;
  }

  /** Moves a balance without reading it: an account only credited starts at 0, as in the reference. */
  private adjust(account: string, asset: string, delta: bigint): void {
    const k = key(account, asset);
    this.balances.set(k, (this.balances.get(k) ?? this.read.get(k) ?? 0n) + delta);
  }

  // ------------------------------------------------------------ statements

  private runStatement(statement: Statement): void {
    switch (statement.type) {
      case 'call':
        return this.runFunctionStatement(statement);
      case 'save':
        return this.runSave(statement);
      case 'send': {
        if (statement.sent.kind === 'all') {
          this.asset = this.sentAsset(statement.sent);
          const sent = this.sendAll(statement.source);
          return this.receive(statement.destination, sent);
        }
        const monetary = this.monetary(statement.sent.value);
        this.asset = monetary.asset;
        if (monetary.amount < 0n) {
          throw compilationError('NegativeAmount', `cannot send negative amount: ${monetary.amount}`, statement.sent.loc);
        }
        this.sendExactly(statement.source, monetary.amount);
        return this.receive(statement.destination, monetary.amount);
      }
    }
  }

  private runFunctionStatement(statement: Extract<Statement, { type: 'call' }>): void {
    if (statement.name === 'set_tx_meta') {
      const [name, value] = this.arguments(statement, ['string', 'any']);
      this.txMetadata.set(name as string, value as Value);
    } else if (statement.name === 'set_account_meta') {
      const [account, name, value] = this.arguments(statement, ['account', 'string', 'any']);
      (this.accountMetadata[account as string] ??= {})[name as string] = renderValue(value as Value);
    } else {
      throw compilationError('UnboundFunction', `unknown function: ${statement.name}`, statement.loc);
    }
  }

  /** `save` shields part (or all) of a balance from later sends by lowering the balance the script sees. */
  private runSave(statement: Extract<Statement, { type: 'save' }>): void {
    let asset: string;
    let amount: bigint | null = null;
    if (statement.sent.kind === 'all') {
      asset = this.sentAsset(statement.sent);
    } else {
      const monetary = this.monetary(statement.sent.value);
      [asset, amount] = [monetary.asset, monetary.amount];
    }
    const account = this.account(statement.account);
    const balance = this.current(account, asset);
    const k = key(account, asset);
    if (amount === null) {
      if (balance > 0n) this.balances.set(k, 0n);
      return;
    }
    if (amount < 0n) throw compilationError('NegativeAmount', `cannot save negative amount: ${amount}`, statement.sent.loc);
    // As the reference: an overdrawn balance is raised to zero too.
    this.balances.set(k, nonNegative(balance - amount));
  }

  // ------------------------------------------------------------ sources

  private pushSender(account: string, amount: bigint, color: string): void {
    if (amount === 0n) return;
    this.adjust(account, coloredAsset(this.asset, color), -amount);
    this.queue.push({ account, amount, color });
  }

  private sendExactly(source: Source, amount: bigint): void {
    const sent = this.sendUpTo(source, amount);
    if (sent !== amount) {
      throw new NumscriptError(
        'INSUFFICIENT_FUND',
        'MissingFunds',
        `Not enough funds. Needed [${this.asset} ${amount}] (only [${this.asset} ${sent}] available)`,
        source.loc.line,
        source.loc.column,
      );
    }
  }

  /** Takes as much as it can up to `amount` and says how much; fails only on a script error. */
  private sendUpTo(source: Source, amount: bigint): bigint {
    switch (source.type) {
      case 'account': {
        const overdraft = this.overdraftOf(source);
        const account = this.account(source.address);
        const color = this.color(source.color);
        let taken = amount;
        if (account !== WORLD && overdraft !== null) {
          const balance = this.current(account, coloredAsset(this.asset, color));
          taken = min(nonNegative(balance + overdraft), amount);
        }
        this.pushSender(account, taken, color);
        return taken;
      }
      case 'inorder': {
        let left = amount;
        for (const inner of source.sources) left -= this.sendUpTo(inner, left);
        return amount - left;
      }
      case 'oneof': {
        this.requireFlag(FEATURE.oneof, source.loc);
        for (const inner of source.sources.slice(0, -1)) {
          const queue = this.queue.snapshot();
          const balances = new Map(this.balances);
          if (this.sendUpTo(inner, amount) === amount) return amount;
          [this.queue, this.balances] = [queue, balances];
        }
        return this.sendUpTo(source.sources[source.sources.length - 1]!, amount);
      }
      case 'allotment': {
        const parts = this.allot(amount, source.items, source.loc);
        source.items.forEach((item, i) => this.sendExactly(item.from, parts[i]!));
        return amount;
      }
      case 'capped':
        return this.sendUpTo(source.from, nonNegative(min(amount, this.amountOf(source.cap))));
    }
  }

  /** `send [ASSET *]`: everything the sources can give (balance plus allowed overdraft). */
  private sendAll(source: Source): bigint {
    switch (source.type) {
      case 'account': {
        const overdraft = this.overdraftOf(source);
        const account = this.account(source.address);
        if (account === WORLD || overdraft === null) {
          throw compilationError('InvalidUnboundedInSendAll', 'cannot take all balance from an unbounded source', source.loc);
        }
        const color = this.color(source.color);
        const taken = nonNegative(this.current(account, coloredAsset(this.asset, color)) + overdraft);
        this.pushSender(account, taken, color);
        return taken;
      }
      case 'inorder': {
        let total = 0n;
        for (const inner of source.sources) total += this.sendAll(inner);
        return total;
      }
      case 'oneof':
        this.requireFlag(FEATURE.oneof, source.loc);
        return this.sendAll(source.sources[0]!);
      case 'capped':
        return this.sendUpTo(source.from, nonNegative(this.amountOf(source.cap)));
      case 'allotment':
        throw compilationError('InvalidAllotmentInSendAll', 'cannot take all balance of an allotment source', source.loc);
    }
  }

  /** How far below zero a source may go: null when unbounded, 0 for a plain account. */
  private overdraftOf(source: Extract<Source, { type: 'account' }>): bigint | null {
    if (source.overdraft === 'unbounded') return null;
    return source.overdraft ? nonNegative(this.amountOf(source.overdraft)) : 0n;
  }

  // ------------------------------------------------------------ destinations

  private pushReceiver(account: string, amount: bigint): void {
    if (amount === 0n) return;
    for (const funds of this.queue.pull(amount)) {
      const asset = coloredAsset(this.asset, funds.color);
      if (account === KEPT) {
        this.adjust(funds.account, asset, funds.amount);
        continue;
      }
      this.adjust(account, asset, funds.amount);
      this.postings.push({ source: funds.account, destination: account, amount: funds.amount, asset });
    }
  }

  private receive(destination: Destination, amount: bigint): void {
    switch (destination.type) {
      case 'account':
        return this.pushReceiver(this.account(destination.address), amount);
      case 'allotment': {
        const parts = this.allot(amount, destination.items, destination.loc);
        destination.items.forEach((item, i) => this.receiveInto(item.to, parts[i]!));
        return;
      }
      case 'inorder': {
        let left = amount;
        for (const clause of destination.clauses) {
          const cap = this.amountOf(clause.cap);
          if (left === 0n) break;
          const share = nonNegative(min(cap, left));
          if (share === 0n) continue;
          this.receiveInto(clause.to, share);
          left -= share;
        }
        if (left !== 0n) this.receiveInto(destination.remaining, left);
        return;
      }
      case 'oneof': {
        this.requireFlag(FEATURE.oneof, destination.loc);
        for (const clause of destination.clauses) {
          if (this.amountOf(clause.cap) >= amount) return this.receiveInto(clause.to, amount);
        }
        return this.receiveInto(destination.remaining, amount);
      }
    }
  }

  private receiveInto(target: KeptOrDestination, amount: bigint): void {
    if (target.type === 'kept') this.pushReceiver(KEPT, amount);
    else this.receive(target.destination, amount);
  }

  private allot(amount: bigint, items: Array<{ portion: 'remaining' | Expression }>, at: Position): bigint[] {
    const portions = items.map((item) => (item.portion === 'remaining' ? 'remaining' : this.portion(item.portion)));
    const parts = allot(amount, portions);
    if (!Array.isArray(parts)) {
      throw compilationError(
        'InvalidAllotmentSum',
        `invalid allotment: portions sum should be 1 (got ${renderRational(parts.total)} instead)`,
        at,
      );
    }
    return parts;
  }

  // ------------------------------------------------------------ expressions

  private evaluate(expression: Expression): Value {
    switch (expression.type) {
      case 'variable': {
        const value = this.variables.get(expression.name);
        if (!value) throw compilationError('UnboundVariable', `unbound variable: $${expression.name}`, expression.loc);
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
        throw compilationError('DivideByZero', `cannot divide by zero (in ${left.value}/0)`, expression.loc);
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
      if (right.asset !== left.asset) throw mismatchedCurrency(left.asset, right.asset, expression.right.loc);
      return { type: 'monetary', asset: left.asset, amount: left.amount + sign * right.amount };
    }
    throw typeError('number|monetary', left, expression.left.loc);
  }

  private accountLiteral(expression: Extract<Expression, { type: 'account' }>): Value {
    const parts = expression.parts.map((part) => {
      if (typeof part === 'string') return part;
      this.requireFlag(FEATURE.accountInterpolation, expression.loc);
      const value = this.variables.get(part.variable);
      if (!value) throw compilationError('UnboundVariable', `unbound variable: $${part.variable}`, expression.loc);
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
        throw compilationError('InvalidNestedMeta', 'meta() can only be the whole origin of a variable', call.loc);
      case 'balance': {
        const [account, asset] = this.arguments(call, ['account', 'asset']) as [string, string];
        const balance = this.current(account, asset);
        if (balance < 0n) {
          throw compilationError('NegativeBalance', `cannot fetch negative balance from account @${account}`, call.loc);
        }
        return { type: 'monetary', asset, amount: balance };
      }
      case 'overdraft': {
        this.requireFlag(FEATURE.overdraftFunction, call.loc);
        const [account, asset] = this.arguments(call, ['account', 'asset']) as [string, string];
        const balance = this.current(account, asset);
        return { type: 'monetary', asset, amount: balance > 0n ? 0n : -balance };
      }
      case 'get_asset': {
        this.requireFlag(FEATURE.getAssetFunction, call.loc);
        const [monetary] = this.arguments(call, ['monetary']) as [Extract<Value, { type: 'monetary' }>];
        return { type: 'asset', value: monetary.asset };
      }
      case 'get_amount': {
        this.requireFlag(FEATURE.getAmountFunction, call.loc);
        const [monetary] = this.arguments(call, ['monetary']) as [Extract<Value, { type: 'monetary' }>];
        return { type: 'number', value: monetary.amount };
      }
      default:
        throw compilationError('UnboundFunction', `unknown function: ${call.name}`, call.loc);
    }
  }

  /** Evaluates a call's arguments against their types: accounts/strings/assets come back as strings. */
  private arguments(
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

  private expect(expression: Expression, type: Value['type']): Value {
    const value = this.evaluate(expression);
    if (value.type !== type) throw typeError(type, value, expression.loc);
    return value;
  }

  private account(expression: Expression): string {
    return (this.expect(expression, 'account') as { name: string }).name;
  }

  private portion(expression: Expression): Rational {
    return (this.expect(expression, 'portion') as { value: Rational }).value;
  }

  private monetary(expression: Expression): { asset: string; amount: bigint } {
    return this.expect(expression, 'monetary') as { asset: string; amount: bigint };
  }

  /** A monetary in the asset being sent (caps, overdraft bounds), as its amount. */
  private amountOf(expression: Expression): bigint {
    const monetary = this.monetary(expression);
    if (monetary.asset !== this.asset) throw mismatchedCurrency(this.asset, monetary.asset, expression.loc);
    return monetary.amount;
  }

  private sentAsset(sent: SentValue): string {
    if (sent.kind === 'all') return (this.expect(sent.asset, 'asset') as { value: string }).value;
    return this.monetary(sent.value).asset;
  }

  private color(expression: Expression | null): string {
    if (!expression) return '';
    this.requireFlag(FEATURE.assetColors, expression.loc);
    const color = (this.expect(expression, 'string') as { value: string }).value;
    if (!/^[A-Z]*$/.test(color)) {
      throw compilationError('TypeError', `a color is uppercase letters only (got '${color}')`, expression.loc);
    }
    return color;
  }

  private requireFlag(flag: FeatureFlag, at: Position): void {
    if (!this.flags.has(flag)) {
      throw compilationError(
        'ExperimentalFeature',
        `this feature is experimental. You need the '${flag}' feature flag to enable it`,
        at,
      );
    }
  }

  /** The reference's last guard: nothing leaves the interpreter that the ledger would refuse. */
  private checkPosting(posting: ScriptPosting): void {
    if (posting.amount < 0n || !ASSET_NAME.test(posting.asset) || !ACCOUNT_NAME.test(posting.source) || !ACCOUNT_NAME.test(posting.destination)) {
      throw compilationError(
        'InvalidPosting',
        `invalid posting: ${posting.source} -> ${posting.destination} [${posting.asset} ${posting.amount}]`,
      );
    }
  }
}

function typeError(expected: string, value: Value, at: Position): NumscriptError {
  return compilationError(
    'TypeError',
    `invalid value received. Expecting value of type ${expected} (got ${value.type} ${renderValue(value)} instead)`,
    at,
  );
}

function mismatchedCurrency(expected: string, got: string, at: Position): NumscriptError {
  return compilationError('MismatchedCurrency', `mismatched currency (expected '${expected}', got '${got}' instead)`, at);
}
