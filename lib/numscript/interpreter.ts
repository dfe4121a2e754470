import { allot } from './allotment.js';
import type {
  Destination,
  Expression,
  KeptOrDestination,
  Position,
  SentValue,
  Source,
  Statement,
} from './ast.js';
import { BalanceBook, type ScriptLedger, WORLD } from './balances.js';
import { compilationError, NumscriptError } from './errors.js';
import { Evaluator, mismatchedCurrency } from './evaluate.js';
import { FEATURE } from './features.js';
import { FundsQueue } from './funds-queue.js';
import type { Program } from './program.js';
import { renderRational } from './rational.js';
import { findConversions, heldScale, scaledAsset, scaleOf } from './scaling.js';
import { ACCOUNT_NAME, ASSET_NAME, parseVariable, renderValue, type Value } from './values.js';

export type { ScriptLedger } from './balances.js';

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
  /**
   * Each scaling source the run evaluated: the account, its swap account and the assets a conversion between
   * them may post (a caller that declares its writes before running declares these pairs).
   */
  scalings: Array<{ account: string; swap: string; assets: string[] }>;
}

export interface ExecuteOptions {
  /** Flags enabled on top of the script's own `#![feature("...")]` pragma. */
  featureFlags?: Iterable<string>;
}

/** Destination of funds a `kept` clause leaves with their source (never a valid account name). */
const KEPT = '<kept>';

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
 * balance at most once — `balance()`/`meta()` variables first, then in one batch every balance the sources
 * need, before any funds move (the reference's batched balance query) — then works on its own copy. Whatever
 * `ledger` throws (other than through a script error) propagates unchanged, so the caller may load more and
 * run again.
 */
export function execute(
  program: Program,
  vars: Record<string, string>,
  ledger: ScriptLedger,
  options: ExecuteOptions = {},
): ScriptResult {
  return new Run(program, vars ?? {}, ledger, options).result();
}

/** One run of a program: the statement, source and destination walks over the funds queue. */
class Run {
  private readonly balances: BalanceBook;
  private readonly values: Evaluator;
  private queue = FundsQueue.empty();
  private readonly postings: ScriptPosting[] = [];
  private readonly scalings: ScriptResult['scalings'] = [];
  private readonly txMetadata = new Map<string, Value>();
  // Keyed by caller data (`@__proto__` is a valid account): null-prototype, so no key reaches Object.prototype.
  private readonly accountMetadata: Record<string, Record<string, string>> = Object.create(null);
  private asset = '';

  constructor(
    private readonly program: Program,
    private readonly vars: Record<string, string>,
    private readonly ledger: ScriptLedger,
    options: ExecuteOptions,
  ) {
    this.balances = new BalanceBook(ledger);
    this.values = new Evaluator(
      this.balances,
      new Set([...(options.featureFlags ?? []), ...program.features]),
    );
  }

  result(): ScriptResult {
    this.parseVariables();
    this.prefetchBalances();
    for (const statement of this.program.statements) this.runStatement(statement);
    for (const posting of this.postings) this.checkPosting(posting);
    const txMetadata: Record<string, string> = Object.fromEntries(
      [...this.txMetadata].map(([name, value]) => [name, renderValue(value)]),
    );
    const accountMetadata = Object.fromEntries(
      Object.entries(this.accountMetadata).map(([account, m]) => [account, { ...m }]),
    );
    return { postings: this.postings, txMetadata, accountMetadata, scalings: this.scalings };
  }

  // ------------------------------------------------------------ variables

  private parseVariables(): void {
    this.values.inVarOrigin = true;
    for (const declaration of this.program.vars) {
      const { name, typeName, origin, loc } = declaration;
      let value: Value;
      if (!origin) {
        const raw: unknown = Object.hasOwn(this.vars, name) ? this.vars[name] : undefined;
        if (raw === undefined)
          throw compilationError('MissingVariable', `variable is missing in vars: ${name}`, loc);
        if (typeof raw !== 'string') {
          throw compilationError(
            'InvalidVariableValue',
            `variable $${name} must be given as a string`,
            loc,
          );
        }
        value = parseVariable(typeName, raw, name, loc);
      } else if (origin.type === 'call' && origin.name === 'meta') {
        const [account, metaKey] = this.values.arguments(origin, ['account', 'string']);
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
        if (origin.type !== 'call')
          this.values.requireFlag(FEATURE.midScriptFunctionCall, origin.loc);
        value = this.values.evaluate(origin);
      }
      this.values.variables.set(name, value);
    }
    this.values.inVarOrigin = false;
  }

  // ------------------------------------------------------------ balances

  /**
   * Reads, as one batch, every balance the script's sources and saves may need, before any statement runs (the
   * reference's batched balance query): accounts of plain and bounded-overdraft sources, in the asset sent.
   */
  private prefetchBalances(): void {
    const wanted = new Map<string, [string, string]>();
    const want = (account: string, asset: string) => {
      if (account !== WORLD) wanted.set(`${account}\u0000${asset}`, [account, asset]);
    };
    const scaled: Array<[account: string, base: string]> = [];
    const walk = (source: Source): void => {
      switch (source.type) {
        case 'account':
          if (source.overdraft !== 'unbounded') {
            want(
              this.values.account(source.address),
              coloredAsset(this.asset, this.color(source.color)),
            );
          }
          return;
        case 'scaling': {
          // As the reference's query for `ASSET/*`: every scale of the asset the account holds.
          const account = this.values.account(source.address);
          want(account, this.asset);
          if (account !== WORLD) scaled.push([account, scaleOf(this.asset).base]);
          return;
        }
        case 'inorder':
        case 'oneof':
          for (const inner of source.sources) walk(inner);
          return;
        case 'allotment':
          for (const item of source.items) walk(item.from);
          return;
        case 'capped':
          return walk(source.from);
      }
    };
    for (const statement of this.program.statements) {
      if (statement.type === 'send') {
        this.asset = this.sentAsset(statement.sent);
        walk(statement.source);
      } else if (statement.type === 'save') {
        want(this.values.account(statement.account), this.sentAsset(statement.sent));
      }
    }
    // Like readAll: every read is tried before the first failure is rethrown, so one re-run learns them all.
    let failure: { error: unknown } | undefined;
    for (const [account, base] of scaled) {
      try {
        for (const asset of this.ledger.assets(account))
          if (heldScale(asset, base) !== undefined) want(account, asset);
      } catch (error) {
        failure ??= { error };
      }
    }
    try {
      this.balances.readAll(wanted.values());
    } catch (error) {
      failure ??= { error };
    }
    if (failure) throw failure.error;
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
        const monetary = this.values.monetary(statement.sent.value);
        this.asset = monetary.asset;
        if (monetary.amount < 0n) {
          throw compilationError(
            'NegativeAmount',
            `cannot send negative amount: ${monetary.amount}`,
            statement.sent.loc,
          );
        }
        this.sendExactly(statement.source, monetary.amount);
        return this.receive(statement.destination, monetary.amount);
      }
    }
  }

  private runFunctionStatement(statement: Extract<Statement, { type: 'call' }>): void {
    if (statement.name === 'set_tx_meta') {
      const [name, value] = this.values.arguments(statement, ['string', 'any']);
      this.txMetadata.set(name as string, value as Value);
    } else if (statement.name === 'set_account_meta') {
      const [account, name, value] = this.values.arguments(statement, ['account', 'string', 'any']);
      this.accountMetadata[account as string] ??= Object.create(null);
      this.accountMetadata[account as string]![name as string] = renderValue(value as Value);
    } else {
      throw compilationError(
        'UnboundFunction',
        `unknown function: ${statement.name}`,
        statement.loc,
      );
    }
  }

  /** `save` shields part (or all) of a balance from later sends by lowering the balance the script sees. */
  private runSave(statement: Extract<Statement, { type: 'save' }>): void {
    let asset: string;
    let amount: bigint | null = null;
    if (statement.sent.kind === 'all') {
      asset = this.sentAsset(statement.sent);
    } else {
      const monetary = this.values.monetary(statement.sent.value);
      [asset, amount] = [monetary.asset, monetary.amount];
    }
    const account = this.values.account(statement.account);
    const balance = this.balances.current(account, asset);
    if (amount === null) {
      if (balance > 0n) this.balances.set(account, asset, 0n);
      return;
    }
    if (amount < 0n)
      throw compilationError(
        'NegativeAmount',
        `cannot save negative amount: ${amount}`,
        statement.sent.loc,
      );
    // As the reference: an overdrawn balance is raised to zero too.
    this.balances.set(account, asset, nonNegative(balance - amount));
  }

  // ------------------------------------------------------------ sources

  private pushSender(account: string, amount: bigint, color: string): void {
    if (amount === 0n) return;
    this.balances.adjust(account, coloredAsset(this.asset, color), -amount);
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
        const account = this.values.account(source.address);
        const color = this.color(source.color);
        let taken = amount;
        if (account !== WORLD && overdraft !== null) {
          const balance = this.balances.current(account, coloredAsset(this.asset, color));
          taken = min(nonNegative(balance + overdraft), amount);
        }
        this.pushSender(account, taken, color);
        return taken;
      }
      case 'scaling': {
        const account = this.convertScales(source, amount);
        const taken = min(nonNegative(this.balances.current(account, this.asset)), amount);
        this.pushSender(account, taken, '');
        return taken;
      }
      case 'inorder': {
        let left = amount;
        for (const inner of source.sources) left -= this.sendUpTo(inner, left);
        return amount - left;
      }
      case 'oneof': {
        this.values.requireFlag(FEATURE.oneof, source.loc);
        for (const inner of source.sources.slice(0, -1)) {
          const queue = this.queue.snapshot();
          const balances = this.balances.snapshot();
          const posted = this.postings.length;
          if (this.sendUpTo(inner, amount) === amount) return amount;
          this.queue = queue;
          this.balances.restore(balances);
          // A scaling conversion of the abandoned branch goes with it (the reference keeps its postings).
          this.postings.length = posted;
        }
        return this.sendUpTo(source.sources[source.sources.length - 1]!, amount);
      }
      case 'allotment': {
        const parts = this.allot(amount, source.items, source.loc);
        source.items.forEach((item, i) => {
          this.sendExactly(item.from, parts[i]!);
        });
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
        const account = this.values.account(source.address);
        if (account === WORLD || overdraft === null) {
          throw compilationError(
            'InvalidUnboundedInSendAll',
            'cannot take all balance from an unbounded source',
            source.loc,
          );
        }
        const color = this.color(source.color);
        const taken = nonNegative(
          this.balances.current(account, coloredAsset(this.asset, color)) + overdraft,
        );
        this.pushSender(account, taken, color);
        return taken;
      }
      case 'scaling': {
        const account = this.convertScales(source, null);
        const taken = nonNegative(this.balances.current(account, this.asset));
        this.pushSender(account, taken, '');
        return taken;
      }
      case 'inorder': {
        let total = 0n;
        for (const inner of source.sources) total += this.sendAll(inner);
        return total;
      }
      case 'oneof':
        this.values.requireFlag(FEATURE.oneof, source.loc);
        return this.sendAll(source.sources[0]!);
      case 'capped':
        return this.sendUpTo(source.from, nonNegative(this.amountOf(source.cap)));
      case 'allotment':
        throw compilationError(
          'InvalidAllotmentInSendAll',
          'cannot take all balance of an allotment source',
          source.loc,
        );
    }
  }

  /**
   * `@acc with scaling through @swap`: converts what the account holds of the sent asset at other scales into
   * it, through the swap account (its balance is not checked, as in the reference), so that the account can
   * then give `needed` (`null`: all it can). Answers the account.
   */
  private convertScales(
    source: Extract<Source, { type: 'scaling' }>,
    needed: bigint | null,
  ): string {
    this.values.requireFlag(FEATURE.assetScaling, source.loc);
    const account = this.values.account(source.address);
    const swap = this.values.account(source.through);
    if (account === WORLD) {
      throw compilationError(
        'InvalidUnboundedAddressInScalingAddress',
        'Invalid usage of @world account in scaling context',
        source.loc,
      );
    }
    const { base, scale } = scaleOf(this.asset);
    const held = this.balances.scales(account, (asset) => heldScale(asset, base));
    this.scalings.push({
      account,
      swap,
      assets: [this.asset, ...[...held.keys()].map((s) => scaledAsset(base, s))],
    });
    const { conversions, obtained } = findConversions(needed, scale, held);
    for (const conversion of conversions)
      this.forcePosting(account, swap, conversion.amount, scaledAsset(base, conversion.scale));
    this.forcePosting(swap, account, obtained, this.asset);
    return account;
  }

  /** A posting made outright (a scaling conversion): both balances move, neither is checked. */
  private forcePosting(source: string, destination: string, amount: bigint, asset: string): void {
    if (amount === 0n) return;
    this.balances.adjust(source, asset, -amount);
    this.balances.adjust(destination, asset, amount);
    this.postings.push({ source, destination, amount, asset });
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
        this.balances.adjust(funds.account, asset, funds.amount);
        continue;
      }
      this.balances.adjust(account, asset, funds.amount);
      this.postings.push({
        source: funds.account,
        destination: account,
        amount: funds.amount,
        asset,
      });
    }
  }

  private receive(destination: Destination, amount: bigint): void {
    switch (destination.type) {
      case 'account':
        return this.pushReceiver(this.values.account(destination.address), amount);
      case 'allotment': {
        const parts = this.allot(amount, destination.items, destination.loc);
        destination.items.forEach((item, i) => {
          this.receiveInto(item.to, parts[i]!);
        });
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
        this.values.requireFlag(FEATURE.oneof, destination.loc);
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

  private allot(
    amount: bigint,
    items: Array<{ portion: 'remaining' | Expression }>,
    at: Position,
  ): bigint[] {
    const portions = items.map((item) =>
      item.portion === 'remaining' ? 'remaining' : this.values.portion(item.portion),
    );
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

  private amountOf(expression: Expression): bigint {
    const monetary = this.values.monetary(expression);
    if (monetary.asset !== this.asset)
      throw mismatchedCurrency(this.asset, monetary.asset, expression.loc);
    return monetary.amount;
  }

  private sentAsset(sent: SentValue): string {
    if (sent.kind === 'all')
      return (this.values.expect(sent.asset, 'asset') as { value: string }).value;
    return this.values.monetary(sent.value).asset;
  }

  private color(expression: Expression | null): string {
    if (!expression) return '';
    this.values.requireFlag(FEATURE.assetColors, expression.loc);
    const color = (this.values.expect(expression, 'string') as { value: string }).value;
    if (!/^[A-Z]*$/.test(color)) {
      throw compilationError(
        'TypeError',
        `a color is uppercase letters only (got '${color}')`,
        expression.loc,
      );
    }
    return color;
  }

  /** The reference's last guard: nothing leaves the interpreter that the ledger would refuse. */
  private checkPosting(posting: ScriptPosting): void {
    if (
      posting.amount < 0n ||
      !ASSET_NAME.test(posting.asset) ||
      !ACCOUNT_NAME.test(posting.source) ||
      !ACCOUNT_NAME.test(posting.destination)
    ) {
      throw compilationError(
        'InvalidPosting',
        `invalid posting: ${posting.source} -> ${posting.destination} [${posting.asset} ${posting.amount}]`,
      );
    }
  }
}
