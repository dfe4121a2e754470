import { sortableCreatedAt } from './input.js';

/**
 * Balances (docs/api.md §6): a provider reports an account's balance per asset from time to time. The history is a
 * list of periods of constant balance: a reading equal to the current period's extends it (`lastUpdatedAt`), a
 * different one opens a new period. Balances may be negative (an overdrawn account).
 */
export interface Balance {
  accountID: string;
  asset: string;
  balance: bigint;
  /** When this period began: the reading that first reported this amount. */
  createdAt: string;
  /** The last reading that confirmed it. */
  lastUpdatedAt: string;
}

export interface BalanceReading {
  accountID: string;
  asset: string;
  balance: bigint;
  /** When the provider reported it (RFC 3339, normalised). */
  at: string;
}

/**
 * What a reading does to the current period: `extend` it (same amount, a later time), `open` a new one (a new
 * amount, or the first reading), or nothing (`stale`: a reading not after the period's last confirmation, as
 * when a task replays a page after a crash).
 */
export type BalanceChange =
  | { kind: 'open'; period: Balance }
  | { kind: 'extend'; period: Balance }
  | { kind: 'stale' };

export function applyReading(current: Balance | undefined, reading: BalanceReading): BalanceChange {
  const period: Balance = {
    accountID: reading.accountID,
    asset: reading.asset,
    balance: reading.balance,
    createdAt: reading.at,
    lastUpdatedAt: reading.at,
  };
  if (!current) return { kind: 'open', period };
  if (sortableCreatedAt(reading.at) <= sortableCreatedAt(current.lastUpdatedAt))
    return { kind: 'stale' };
  if (current.balance === reading.balance)
    return { kind: 'extend', period: { ...current, lastUpdatedAt: reading.at } };
  return { kind: 'open', period };
}

/** One asset's total over a set of accounts, and which accounts hold it. */
export interface AggregatedBalance {
  asset: string;
  amount: bigint;
  relatedAccounts: string[];
}

/** Sums the balances (one per account and asset) by asset, assets in alphabetical order. */
export function aggregateBalances(balances: readonly Balance[]): AggregatedBalance[] {
  const byAsset = new Map<string, AggregatedBalance>();
  for (const b of balances) {
    const entry = byAsset.get(b.asset) ?? { asset: b.asset, amount: 0n, relatedAccounts: [] };
    entry.amount += b.balance;
    if (!entry.relatedAccounts.includes(b.accountID)) entry.relatedAccounts.push(b.accountID);
    byAsset.set(b.asset, entry);
  }
  return [...byAsset.values()].sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
}
