import type {
  AccountState,
  HeadState,
  LedgerChange,
  LedgerState,
  TransactionRecord,
} from './change.js';
import type { Mapping } from './mapping.js';
import type { Volume } from './postings.js';

/**
 * A ledger's state held in memory and advanced change by change: what a sequenced writer decides a batch
 * against (each decision sees the ones before it), and what the decide step's property tests run on. The store's
 * snapshot view and this apply the same change the same way: volumes and accounts replaced, transactions put,
 * references taken, ids and counts moved on.
 */
export class MemoryLedgerState implements LedgerState {
  head: HeadState;
  mapping?: Mapping;
  private readonly volumes = new Map<string, Volume>();
  private readonly accounts = new Map<string, AccountState>();
  private readonly transactions = new Map<number, TransactionRecord>();
  private readonly references = new Set<string>();

  constructor(
    head: HeadState = { lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 },
    mapping?: Mapping,
  ) {
    this.head = { ...head };
    if (mapping) this.mapping = mapping;
  }

  volume(account: string, asset: string): Volume | undefined {
    const v = this.volumes.get(`${account}\u0000${asset}`);
    return v ? { ...v } : undefined;
  }

  account(address: string): AccountState | undefined {
    return this.accounts.get(address);
  }

  transaction(id: number): TransactionRecord | undefined {
    return this.transactions.get(id);
  }

  referenceTaken(reference: string): boolean {
    return this.references.has(reference);
  }

  /** Every (account, asset) volume held, for checks over the whole ledger. */
  allVolumes(): Array<{ account: string; asset: string; volume: Volume }> {
    return [...this.volumes].map(([key, volume]) => {
      const [account, asset] = key.split('\u0000') as [string, string];
      return { account, asset, volume: { ...volume } };
    });
  }

  /** Advances the state by a committed change (its log entry takes the next log id). */
  apply(change: LedgerChange): void {
    for (const { account, asset, volume } of change.volumes)
      this.volumes.set(`${account}\u0000${asset}`, { ...volume });
    for (const { after } of change.accounts) this.accounts.set(after.address, after);
    for (const { record } of change.transactions) this.transactions.set(record.tx.id, record);
    for (const { reference } of change.references) this.references.add(reference);
    this.head = {
      ...this.head,
      lastTxId: change.lastTxId ?? this.head.lastTxId,
      lastLogId: this.head.lastLogId + 1,
      accounts: this.head.accounts + change.accountsAdded,
    };
  }
}
