import { ValidationError } from '../../errors/index.js';

/**
 * The ledger's feature switches: one table, so adding or removing a feature is one edit (docs/api.md §3.1).
 * `values[0]` is the enabled value; DEFAULT_OFF lists the features a ledger gets disabled unless asked for.
 */
export const FEATURES = {
  ACCOUNT_METADATA_HISTORY: ['SYNC', 'DISABLED'],
  TRANSACTION_METADATA_HISTORY: ['SYNC', 'DISABLED'],
  HASH_LOGS: ['SYNC', 'DISABLED'],
  INDEX_ADDRESS_SEGMENTS: ['ON', 'OFF'],
  INDEX_TRANSACTION_ACCOUNTS: ['ON', 'OFF'],
  MOVES_HISTORY: ['ON', 'OFF'],
  MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: ['SYNC', 'DISABLED'],
  /**
   * Ours, not the reference platform's: keeps volumes listable by balance, for `balance[ASSET]` filters. Off by
   * default: its index entry moves with every balance change, ~4 write units per 1-posting transaction
   * (docs/decisions/ledger-write-path.md).
   */
  INDEX_ACCOUNT_BALANCES: ['ON', 'OFF'],
  /**
   * Ours: pending (two-phase) transfers. Off by default: its log types are not in the official SDK's closed enum
   * of log types, so only a ledger that opted in ever holds one (docs/decisions/ledger.md, "Beyond the reference ledger").
   */
  PENDING_TRANSFERS: ['ON', 'OFF'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

const DEFAULT_OFF: ReadonlySet<string> = new Set(['INDEX_ACCOUNT_BALANCES', 'PENDING_TRANSFERS']);

export type FeatureName = keyof typeof FEATURES;
export type FeatureSet = Record<FeatureName, string>;

export const DEFAULT_FEATURES: FeatureSet = Object.fromEntries(
  Object.entries(FEATURES).map(([name, values]) => [
    name,
    DEFAULT_OFF.has(name) ? values[1] : values[0],
  ]),
) as FeatureSet;

/** Merges requested features over the defaults; unknown names or values are a 400 naming them. */
export function resolveFeatures(requested: Record<string, string> | undefined): FeatureSet {
  const features = { ...DEFAULT_FEATURES };
  for (const [name, value] of Object.entries(requested ?? {})) {
    const allowed = (FEATURES as Record<string, readonly string[]>)[name];
    if (!allowed)
      throw new ValidationError(
        `features.${name}: unknown feature (known: ${Object.keys(FEATURES).join(', ')})`,
      );
    if (!allowed.includes(value))
      throw new ValidationError(`features.${name}: must be one of ${allowed.join(', ')}`);
    features[name as FeatureName] = value;
  }
  return features;
}

/** Whether a feature is on: its value is the first (enabled) value of its table row. */
export function isEnabled(features: FeatureSet, name: FeatureName): boolean {
  return features[name] === FEATURES[name][0];
}

/** Refuses a query the ledger's features cannot serve, naming the missing feature. */
export function requireFeature(features: FeatureSet, name: FeatureName): void {
  if (!isEnabled(features, name)) throw new ValidationError(`missing feature "${name}"`);
}

/** Whether the ledger keeps what effective volumes are computed from (see requireEffectiveVolumes). */
export function keepsEffectiveVolumes(features: FeatureSet): boolean {
  return (
    isEnabled(features, 'MOVES_HISTORY') &&
    isEnabled(features, 'MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES')
  );
}

/** Effective volumes are computed from the moves (MOVES_HISTORY) with their late-move records. */
export function requireEffectiveVolumes(features: FeatureSet): void {
  requireFeature(features, 'MOVES_HISTORY');
  requireFeature(features, 'MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES');
}
