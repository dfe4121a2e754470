/** What a script may read from the ledger. Both must be pure reads; either may throw to ask for a re-run. */
export interface ScriptLedger {
  /** Current balance (input - output) of the account in the asset. */
  balance(account: string, asset: string): bigint;
  metadata(account: string, key: string): string | undefined;
  /** Every asset the account holds a volume in (asked for by asset scaling only). */
  assets(account: string): Iterable<string>;
}

export const WORLD = 'world';

const key = (account: string, asset: string) => `${account}\u0000${asset}`;

/**
 * Balances as the script sees them: read from the ledger at most once each, then moved in memory as the script
 * moves funds. `@world` is never read (it starts at 0, like any account the ledger was not asked about).
 */
export class BalanceBook {
  /** As read from the ledger; never rolled back, so a backtracking oneof never reads twice. */
  private readonly read = new Map<string, bigint>();
  private balances = new Map<string, bigint>();

  constructor(private readonly ledger: ScriptLedger) {}

  /**
   * Reads a batch. Each read is attempted even if an earlier one threw, so a caller that answers "not loaded
   * yet" by throwing learns every missing balance of the batch in one pass; the first error is then rethrown.
   */
  readAll(pairs: Iterable<readonly [account: string, asset: string]>): void {
    let failure: unknown;
    let failed = false;
    for (const [account, asset] of pairs) {
      try {
        this.current(account, asset);
      } catch (error) {
        if (!failed) [failure, failed] = [error, true];
      }
    }
    if (failed) throw failure;
  }

  /** The balance as moved so far; read from the ledger the first time it is needed. */
  current(account: string, asset: string): bigint {
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

  set(account: string, asset: string, value: bigint): void {
    this.balances.set(key(account, asset), value);
  }

  /** Moves a balance without reading it: an account only credited starts at 0, as in the reference. */
  adjust(account: string, asset: string, delta: bigint): void {
    const k = key(account, asset);
    this.balances.set(k, (this.balances.get(k) ?? this.read.get(k) ?? 0n) + delta);
  }

  /**
   * The account's balances, as moved so far, in the assets `scaleOf` maps to a scale (of one base asset): what
   * was read or moved of them. The caller reads every asset the ledger knows the account holds first.
   */
  scales(account: string, scaleOf: (asset: string) => number | undefined): Map<number, bigint> {
    const out = new Map<number, bigint>();
    const prefix = `${account}\u0000`;
    for (const source of [this.read, this.balances]) {
      for (const [k, value] of source) {
        if (!k.startsWith(prefix)) continue;
        const scale = scaleOf(k.slice(prefix.length));
        if (scale !== undefined) out.set(scale, value);
      }
    }
    return out;
  }

  snapshot(): Map<string, bigint> {
    return new Map(this.balances);
  }

  restore(snapshot: Map<string, bigint>): void {
    this.balances = snapshot;
  }
}
