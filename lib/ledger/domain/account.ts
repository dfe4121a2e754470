import { ValidationError } from '../../errors/index.js';
import { type FeatureSet, requireEffectiveVolumes } from './features.js';

/** An account as stored on its `A` item (written by the transaction commands). */
export interface AccountRecord {
  address: string;
  metadata: Record<string, string>;
  firstUsage: string;
  insertionDate: string;
  updatedAt: string;
  /** Assets the account has volumes in, sorted: lets a list fetch volumes by key instead of a query each. */
  assets: string[];
}

export interface AssetVolume {
  input: bigint;
  output: bigint;
  balance: bigint;
}

/** Volumes of one account by asset. */
export type AccountVolumes = Record<string, AssetVolume>;

/**
 * The Account of docs/api.md §3.3, fields in the reference platform's order; volumes only when expanded. Without a
 * point in time, an account's effective volumes (every move, by effective time) equal its volumes.
 */
export function accountView(
  account: AccountRecord,
  volumes?: AccountVolumes,
  effectiveVolumes?: AccountVolumes,
) {
  return {
    address: account.address,
    metadata: account.metadata,
    firstUsage: account.firstUsage,
    insertionDate: account.insertionDate,
    updatedAt: account.updatedAt,
    ...(volumes ? { volumes } : {}),
    ...(effectiveVolumes ? { effectiveVolumes } : {}),
  };
}

export interface AccountExpand {
  volumes: boolean;
  effectiveVolumes: boolean;
}

const EXPANDABLE = ['volumes', 'effectiveVolumes'];

/** `expand` of the account routes: a comma-separated list; effective volumes need their features. */
export function readAccountExpand(raw: string | undefined, features: FeatureSet): AccountExpand {
  const values = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const value of values) {
    if (!EXPANDABLE.includes(value))
      throw new ValidationError(
        `expand: "${value.slice(0, 32)}" is not supported (supported: ${EXPANDABLE.join(', ')})`,
      );
  }
  const expand = {
    volumes: values.includes('volumes'),
    effectiveVolumes: values.includes('effectiveVolumes'),
  };
  if (expand.effectiveVolumes) requireEffectiveVolumes(features);
  return expand;
}

/**
 * Adds balances into running per-asset sums. Sums may exceed the 38 digits of one balance (two full
 * accounts), so they stay bigint and are never stored.
 */
export function addBalances(
  sums: Map<string, bigint>,
  volumes: Iterable<{ asset: string; balance: bigint }>,
): Map<string, bigint> {
  for (const { asset, balance } of volumes) sums.set(asset, (sums.get(asset) ?? 0n) + balance);
  return sums;
}

/** Per-asset sums as the response object, assets sorted so the answer does not depend on read order. */
export function balancesView(sums: ReadonlyMap<string, bigint>): Record<string, bigint> {
  return Object.fromEntries([...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
