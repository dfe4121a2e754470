/**
 * What a Numscript plan reads of current state (commands/script-transaction.ts plans with it; the store and the
 * sequencer's cache provide it): a port of the domain, so neither side imports the other.
 */
export interface ScriptStateReads {
  /** Balances (input − output) of these pairs; a pair never written is absent. */
  balances(pairs: ReadonlyArray<[account: string, asset: string]>): Promise<Map<string, bigint>>;
  /** Metadata and held assets of these accounts; an account that does not exist is absent. */
  accounts(accounts: readonly string[]): Promise<Map<string, ScriptAccount>>;
}

export interface ScriptAccount {
  metadata: Record<string, string>;
  /** The assets the account has a volume in (asset scaling converts between them). */
  assets: string[];
}

/** The key of an (account, asset) pair in the maps of ScriptStateReads. */
export const pairKey = (account: string, asset: string) => `${account}\u0000${asset}`;
