import { matchesPattern } from './account-pattern.js';
import type { LedgerChange } from './change.js';
import { availableOf, type HeldVolume, NO_HOLD } from './held-volume.js';
import type { Volume } from './postings.js';

/**
 * Balance monitors (docs/api.md §3.6, "Monitors"): a condition on the balance of the accounts matching a pattern,
 * in one asset. A write that makes the condition start to hold — crosses below or above an amount, turns the
 * balance negative, or changes it — triggers the monitor once, with the write's log entry; the event
 * `ledger.balance_monitor_triggered` is derived from that entry, so it follows commit order and the commit itself.
 */
export type MonitorCondition = (
  | { type: 'below'; amount: bigint }
  | { type: 'above'; amount: bigint }
  | { type: 'negative' }
  | { type: 'changes' }
) & {
  /**
   * Which balance is watched: `balance` (posted, the default) or `available` (posted − held out by open holds,
   * PENDING_TRANSFERS), which a hold, a post or a release moves too.
   */
  field?: MonitorField;
};

export type MonitorField = 'balance' | 'available';

/** A pair a write touched: its posted and held volumes just before the write and right after it. */
export interface MonitoredPair {
  account: string;
  asset: string;
  before: Volume;
  after: Volume;
  heldBefore?: HeldVolume;
  heldAfter?: HeldVolume;
}

/** A monitor as POST /v2/<ledger>/monitors asks for it, checked by the routes' schema (`routes/monitor-schemas.ts`). */
export type CreateMonitorInput = Pick<BalanceMonitor, 'account' | 'asset' | 'condition'> & {
  metadata?: Record<string, string> | undefined;
};

export interface BalanceMonitor {
  id: string;
  /** An address, or a pattern as limits take it (`*` any run of characters). */
  account: string;
  asset: string;
  condition: MonitorCondition;
  metadata: Record<string, string>;
  createdAt: string;
}

export const MAX_MONITORS = 100;

/** One monitor triggered by a write: the pair and its balance before and after the write. */
export interface MonitorCrossing {
  monitor: string;
  /** The monitor's condition as it was when the write committed (the monitor may be deleted since). */
  condition: MonitorCondition;
  account: string;
  asset: string;
  before: bigint;
  after: bigint;
}

/**
 * The monitors a write triggers, pair by pair in the write's order, then monitor by monitor in the order they were
 * created. A threshold triggers when the balance goes from the side where the condition does not hold to the side
 * where it does (`below 100`: from ≥ 100 to < 100), so a balance that stays below triggers nothing more until it
 * has risen back to 100 or more; `changes` triggers on every change of the balance. `world` is watched too: a
 * monitor matching it is the caller's choice.
 */
export function monitorCrossings(
  monitors: readonly BalanceMonitor[] | undefined,
  changes: readonly MonitoredPair[],
): MonitorCrossing[] {
  if (!monitors || monitors.length === 0) return [];
  const crossings: MonitorCrossing[] = [];
  for (const pair of changes) {
    const values = {
      balance: [pair.before.input - pair.before.output, pair.after.input - pair.after.output],
      available: [
        availableOf(pair.before, pair.heldBefore ?? NO_HOLD),
        availableOf(pair.after, pair.heldAfter ?? pair.heldBefore ?? NO_HOLD),
      ],
    } as const;
    for (const monitor of monitors) {
      if (monitor.asset !== pair.asset || !matchesPattern(monitor.account, pair.account)) continue;
      const [from, to] = values[monitor.condition.field ?? 'balance'];
      if (from === to || !crosses(monitor.condition, from, to)) continue;
      crossings.push({
        monitor: monitor.id,
        condition: monitor.condition,
        account: pair.account,
        asset: pair.asset,
        before: from,
        after: to,
      });
    }
  }
  return crossings;
}

function crosses(condition: MonitorCondition, from: bigint, to: bigint): boolean {
  switch (condition.type) {
    case 'below':
      return from >= condition.amount && to < condition.amount;
    case 'above':
      return from <= condition.amount && to > condition.amount;
    case 'negative':
      return from >= 0n && to < 0n;
    case 'changes':
      return from !== to;
  }
}

/**
 * The crossings of a decided change: each pair whose volume or held volume it writes, against what `before` and
 * `heldBefore` read (none: zero). Pairs in the change's order, those only held (a hold, a release) after the rest.
 */
export function changeCrossings(
  monitors: readonly BalanceMonitor[] | undefined,
  change: LedgerChange,
  before: (account: string, asset: string) => Volume | undefined,
  heldBefore: (account: string, asset: string) => HeldVolume | undefined = () => undefined,
): MonitorCrossing[] {
  if (!monitors || monitors.length === 0) return [];
  const pairs = new Map<string, MonitoredPair>();
  const pair = (account: string, asset: string) => {
    const key = `${account}\u0000${asset}`;
    let found = pairs.get(key);
    if (!found) {
      const volume = before(account, asset) ?? { input: 0n, output: 0n };
      const held = heldBefore(account, asset) ?? NO_HOLD;
      found = { account, asset, before: volume, after: volume, heldBefore: held, heldAfter: held };
      pairs.set(key, found);
    }
    return found;
  };
  for (const { account, asset, volume } of change.volumes) pair(account, asset).after = volume;
  for (const { account, asset, held } of change.held ?? []) pair(account, asset).heldAfter = held;
  return monitorCrossings(monitors, [...pairs.values()]);
}

/** A monitor as the API shows it and the mapping item stores it (amounts exact). */
export function monitorView(monitor: BalanceMonitor): BalanceMonitor {
  return { ...monitor, condition: { ...monitor.condition }, metadata: { ...monitor.metadata } };
}

/**
 * Monitors as the mapping item stores them (validated when written; integers exact from lib/json), read back on
 * every write's path without the request schemas.
 */
export function monitorsFromStored(value: unknown): BalanceMonitor[] {
  if (!Array.isArray(value)) throw new Error('stored monitors are not a list');
  return value.map((raw: BalanceMonitor) => ({
    id: String(raw.id),
    account: String(raw.account),
    asset: String(raw.asset),
    condition: {
      ...(raw.condition.type === 'below' || raw.condition.type === 'above'
        ? { type: raw.condition.type, amount: BigInt(raw.condition.amount) }
        : { type: raw.condition.type }),
      ...(raw.condition.field === 'available' ? { field: 'available' as const } : {}),
    },
    metadata: { ...raw.metadata },
    createdAt: String(raw.createdAt),
  }));
}
