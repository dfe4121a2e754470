import { InsufficientFundError, LimitExceededError } from '../../errors/index.js';
import { matchesPattern } from './account-pattern.js';
import { WORLD } from './names.js';
import type { Volume } from './postings.js';

/**
 * Persistent balance limits (docs/api.md §3.6, "Limits"): rules per account pattern and asset that no write may
 * break — postings, Numscript, bulk, revert, import — decided with the overdraft rule, in the same pure step.
 * Every matching rule applies (not the first, as v1 contracts). `force` lifts a rule only if the rule allows it.
 */
export interface LimitRule {
  /** An address pattern: `*` matches any run of characters (`:` included), as v1 contracts. */
  account: string;
  /** One asset; absent: every asset. */
  asset?: string;
  /** The balance (input − output) may not end a write below this. */
  min?: bigint;
  /** The balance may not end a write above this. */
  max?: bigint;
  /** Output may not exceed input (TigerBeetle's `debits_must_not_exceed_credits`). */
  debitsMustNotExceedCredits?: boolean;
  /** Input may not exceed output (`credits_must_not_exceed_debits`). */
  creditsMustNotExceedDebits?: boolean;
  /** Whether a forced write (`force=true`) may break this rule; by default it may not. */
  forceAllowed?: boolean;
}

/** Rules per ledger, at most. */
export const MAX_LIMIT_RULES = 100;

/**
 * What a rule must say to mean anything, in the order a rule is judged: its request schema checks each
 * (routes/limits-requests.ts), and the store reads the stored rules back under them (store/mapping-item.ts).
 */
export const LIMIT_RULE_MEANING = {
  bounds: {
    holds: (r: LimitRule) =>
      r.min !== undefined ||
      r.max !== undefined ||
      r.debitsMustNotExceedCredits === true ||
      r.creditsMustNotExceedDebits === true,
    message: 'must set min, max, debitsMustNotExceedCredits or creditsMustNotExceedDebits',
  },
  order: {
    holds: (r: LimitRule) => r.min === undefined || r.max === undefined || r.min <= r.max,
    message: 'min must not be above max',
  },
} as const;

/** The first thing a rule fails to mean (LIMIT_RULE_MEANING), if any. */
export function limitRuleProblem(rule: LimitRule): string | undefined {
  return Object.values(LIMIT_RULE_MEANING).find((m) => !m.holds(rule))?.message;
}

/** Rules as the API shows them (and stores them): only the fields set. */
export function limitsView(rules: readonly LimitRule[]): { rules: LimitRule[] } {
  return { rules: rules.map((r) => ({ ...r })) };
}

/** A pair a write changed: its volumes before and after the write. */
export interface PairChange {
  account: string;
  asset: string;
  before: Volume;
  after: Volume;
}

/**
 * Refuses a write whose final volumes break a rule in the direction it moved them: a balance that fell below
 * `min` or output that grew past input answer INSUFFICIENT_FUND (the reference's code for money that is not
 * there); a balance that rose above `max` or input that grew past output answer LIMIT_EXCEEDED. A pair already
 * outside a bound (the rule came later) may still move back towards it. `world` is exempt, as from the overdraft
 * rule.
 */
export function checkLimits(
  rules: readonly LimitRule[] | undefined,
  changes: readonly PairChange[],
  force: boolean,
): void {
  if (!rules || rules.length === 0) return;
  for (const change of changes) {
    if (change.account === WORLD) continue;
    rules.forEach((rule, index) => {
      if (rule.asset !== undefined && rule.asset !== change.asset) return;
      if (!matchesPattern(rule.account, change.account)) return;
      if (force && rule.forceAllowed) return;
      const broken = brokenBound(rule, change);
      if (!broken) return;
      const message = `account "${change.account}" ${change.asset}: ${broken.what}, which breaks limits rule ${index} (${rule.account})`;
      throw broken.funds ? new InsufficientFundError(message) : new LimitExceededError(message);
    });
  }
}

function brokenBound(
  rule: LimitRule,
  { before, after }: PairChange,
): { what: string; funds: boolean } | undefined {
  const balanceBefore = before.input - before.output;
  const balance = after.input - after.output;
  if (rule.min !== undefined && balance < balanceBefore && balance < rule.min)
    return { what: `balance would be ${balance}, below the minimum ${rule.min}`, funds: true };
  if (rule.max !== undefined && balance > balanceBefore && balance > rule.max)
    return { what: `balance would be ${balance}, above the maximum ${rule.max}`, funds: false };
  if (rule.debitsMustNotExceedCredits && after.output > before.output && after.output > after.input)
    return {
      what: `debits would be ${after.output}, above credits ${after.input}`,
      funds: true,
    };
  if (rule.creditsMustNotExceedDebits && after.input > before.input && after.input > after.output)
    return {
      what: `credits would be ${after.input}, above debits ${after.output}`,
      funds: false,
    };
  return undefined;
}
