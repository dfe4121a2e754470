import type { Instant } from '../../time/instant.js';
import type { FeatureSet } from './features.js';
import type { LogType } from './logs.js';
import type { Mapping } from './mapping.js';
import type { HeldChange, HeldVolume, PendingTransfer } from './pending.js';
import type { Volume } from './postings.js';
import type { Transaction, VolumesView } from './transaction.js';

/**
 * What a ledger command decides, as plain domain values: the store alone turns a change into items and keys
 * (docs/data-model.md). A command reads the ledger through `LedgerState` and answers a `LedgerChange`; the
 * same decision runs against a DynamoDB snapshot (direct writes) or the group-commit writer's memory.
 */

/** The sequencer's state as a decision sees it. */
export interface HeadState {
  lastTxId: number;
  lastLogId: number;
  lastHash: string;
  accounts: number;
}

/** An account as the commands see and change it. */
export interface AccountState {
  address: string;
  metadata: Record<string, string>;
  /** Assets the account holds volumes in, sorted. */
  assets: string[];
  firstUsage: string;
  /** Sortable form of firstUsage, compared with a back-dated transaction's timestamp. */
  firstUsageKey: string;
  insertionDate: string;
  updatedAt: string;
}

/** A committed transaction with the volumes right after it (commit order). */
export interface TransactionRecord {
  tx: Transaction;
  post: VolumesView;
}

/** What a decision reads: the store turns these into item keys. */
export interface Reads {
  pairs?: Array<[account: string, asset: string]>;
  accounts?: string[];
  transactions?: number[];
  references?: string[];
  /** Pending transfers (holds) by id (PENDING_TRANSFERS). */
  pending?: number[];
}

/** The ledger as one decision sees it: a consistent snapshot, overlaid with earlier decisions of its batch. */
export interface LedgerState {
  head: HeadState;
  /** The ledger's mapping in force (v1 contracts), if any. */
  mapping?: Mapping;
  volume(account: string, asset: string): Volume | undefined;
  account(address: string): AccountState | undefined;
  transaction(id: number): TransactionRecord | undefined;
  referenceTaken(reference: string): boolean;
  /**
   * Money held on a pair by unresolved holds; only a ledger with PENDING_TRANSFERS keeps any (undefined: none),
   * and its reads of every pair include it, so a decision over any pair sees the holds on it.
   */
  held?(account: string, asset: string): HeldVolume | undefined;
  /** A pending transfer (hold) the decision read. */
  pending?(id: number): PendingTransfer | undefined;
}

/** One (transaction, account, asset) movement: what moved in and out, at which effective time. */
export interface Move {
  account: string;
  asset: string;
  txId: number;
  /** Sortable effective time of the transaction. */
  at: string;
  input: bigint;
  output: bigint;
  source: boolean;
  destination: boolean;
}

export interface LedgerChange {
  /** `schemaVersion`: the schema version the write was checked against (v2.4), recorded with the entry. */
  log: { type: LogType; data: Record<string, unknown>; schemaVersion?: string };
  /** Transactions created or rewritten (a revert marks its original; metadata changes), with their state before. */
  transactions: Array<{ record: TransactionRecord; before?: TransactionRecord }>;
  /** Volumes after the change of every pair it touched. */
  volumes: Array<{ account: string; asset: string; volume: Volume }>;
  moves: Move[];
  /** Accounts created or changed, with their state before (undefined: new). */
  accounts: Array<{ after: AccountState; before?: AccountState }>;
  /** A metadata change to keep in history (ACCOUNT_/TRANSACTION_METADATA_HISTORY). */
  metadataRevision?: {
    target: { type: 'ACCOUNT'; address: string } | { type: 'TRANSACTION'; id: number };
    metadata: Record<string, string>;
  };
  references: Array<{ reference: string; txId: number }>;
  /** A new transaction id taken by the change. */
  lastTxId?: number;
  accountsAdded: number;
  /** Held volumes after the change of each pair whose holds it changed (PENDING_TRANSFERS). */
  held?: HeldChange[];
  /** Pending transfers created or changed, as they are after it. */
  pendings?: PendingTransfer[];
}

export interface Decision<T> {
  /** What the caller answers with (a JSON-ready view; big integers as bigint). */
  result: T;
  change: LedgerChange;
}

export type { Transaction, VolumesView };

/** A ledger as registered: its bucket decides its table, its features what the store keeps. */
export interface LedgerRecord {
  /** The environment the ledger belongs to (its keys say so); ids and names are per environment. */
  environment: string;
  id: number;
  name: string;
  bucket: string;
  metadata: Record<string, string>;
  features: FeatureSet;
  addedAt: string;
  /** Set while the ledger's bucket is deleted (restorable): the ledger is then not found. */
  deletedAt?: string;
  /** How the store spreads its transactions over partition keys, fixed at creation (absent: before blocks). */
  transactionKeys?: { blockIds: number; timeShards: number };
  /**
   * Whether the ledger had schema versions when its record was read (set by the first insert, never cleared);
   * absent on ledgers created before it was recorded, whose schema versions are asked for instead.
   */
  schemas?: boolean;
}

/** One write a command asks of the ledger: what it reads, and the decision over what it read. */
export interface WriteRequest<T> {
  ledger: LedgerRecord;
  reads: Reads;
  idempotency?: { key: string; requestHash: string };
  dryRun?: boolean;
  decide(state: LedgerState, context: { now: Instant }): Decision<T>;
}

/**
 * A write that replaces the ledger's mapping: it changes HEAD's own state but writes no log entry (the official
 * SDK's log types are a closed enum, so a new log type would break `listLogs` for its users).
 */
export interface MappingWriteRequest<T> {
  ledger: LedgerRecord;
  /** `current`: the mapping in force when it decides (a limits change keeps the contracts, and the converse). */
  decide(context: { now: Instant; current?: Mapping }): { result: T; mapping: Mapping };
}
