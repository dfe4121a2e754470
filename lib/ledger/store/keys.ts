import { createHash } from 'node:crypto';
import {
  environmentOfKey,
  inEnvironment,
  withoutEnvironment,
} from '../../environments/key-scope.js';
import { sortableBalance } from './amount-encoding.js';

/**
 * Keys of every ledger item (docs/data-model.md). Every partition key, and every gsi1 partition key, starts with
 * the ledger's environment, `E#<environment>#`: ledger names and ids are per environment, so
 * two environments may each have a ledger `main` with id 1, and no key of one is a key of the other. Registry
 * items live in the default ledger table; a ledger's own items live in its bucket's table, all under partition
 * keys starting `E#<environment>#L#<ledger>`.
 */
const pad = (n: number) => String(n).padStart(15, '0');
const moveSort = (sortableTimestamp: string, txId: number) => `${sortableTimestamp}#${pad(txId)}`;
export const MOVE_PAGE_PREFIX = 'P#';

/** What a ledger's keys are built from: its environment and its name (a LedgerRecord is one). */
export interface LedgerRef {
  environment: string;
  name: string;
  /** How its transactions are keyed, set when it was created; absent for ledgers created before blocks. */
  transactionKeys?: TransactionKeyLayout;
}

/**
 * Transactions spread over partition keys, so one busy ledger never fills one key's write throughput
 * (1,000 WCU/s on DynamoDB): items in blocks of `blockIds` consecutive ids (`#TX#<block>`), the time index in
 * `timeShards` shards by id (`#TXT#<id mod shards>`). Without it, one `#TX` and one `#TXT` partition hold all.
 */
export interface TransactionKeyLayout {
  blockIds: number;
  timeShards: number;
}

/** What new ledgers get (docs/data-model.md): at 1,000 tx/s about four blocks a second, 125 WCU/s per shard. */
export const DEFAULT_TRANSACTION_KEYS: TransactionKeyLayout = { blockIds: 256, timeShards: 8 };

/** `E#<environment>#L#<ledger><rest>`: the one place a ledger's partition keys are made. */
const L = (ledger: LedgerRef, rest = '') =>
  inEnvironment(ledger.environment, `L#${ledger.name}${rest}`);

export const registryKeys = {
  /** The environment's ledger id counter: ids start at 1 in each environment. */
  sequence: (environment: string) => {
    const pk = inEnvironment(environment, 'LEDGER_SEQ');
    return { pk, sk: 'LEDGER_SEQ' };
  },
  ledger: (ledger: LedgerRef) => ({
    pk: inEnvironment(ledger.environment, `LEDGER#${ledger.name}`),
    sk: 'LEDGER',
  }),
  bucketPartition: (environment: string, bucket: string) =>
    inEnvironment(environment, `BUCKET#${bucket}`),
  bucketMember: (environment: string, bucket: string, id: number) => ({
    pk: registryKeys.bucketPartition(environment, bucket),
    sk: pad(id),
  }),
  /** gsi1 partition of the environment's ledgers, by id. */
  listPartition: (environment: string) => inEnvironment(environment, 'LEDGERS'),
  listSort: (id: number) => pad(id),
};

export const ledgerKeys = {
  /** The sequencer: last transaction id, last log id and hash. Every write of the ledger updates it. */
  head: (ledger: LedgerRef) => ({ pk: L(ledger), sk: 'HEAD' }),
  transaction: (ledger: LedgerRef, id: number) => ({
    pk: ledgerKeys.transactionBlock(ledger, ledgerKeys.transactionBlockOf(ledger, id)),
    sk: pad(id),
  }),
  /** The block an id's item is in (0 for every id without blocks). */
  transactionBlockOf: (ledger: LedgerRef, id: number) =>
    ledger.transactionKeys ? Math.floor(id / ledger.transactionKeys.blockIds) : 0,
  /** The partition of one block of transaction items, by id. */
  transactionBlock: (ledger: LedgerRef, block: number) =>
    ledger.transactionKeys ? L(ledger, `#TX#${block}`) : L(ledger, `#TX`),
  /** gsi1 partition of a transaction in the ledger's by-timestamp index (sort key `<timestamp>#<id>`). */
  transactionsByTime: (ledger: LedgerRef, id: number) =>
    ledger.transactionKeys
      ? L(ledger, `#TXT#${id % ledger.transactionKeys.timeShards}`)
      : L(ledger, `#TXT`),
  /** Every gsi1 partition of the by-timestamp index: a listing by time merges them. */
  transactionTimeShards: (ledger: LedgerRef) =>
    ledger.transactionKeys
      ? Array.from({ length: ledger.transactionKeys.timeShards }, (_, i) => L(ledger, `#TXT#${i}`))
      : [L(ledger, `#TXT`)],
  transactionTimeSort: (sortableTimestamp: string, id: number) => `${sortableTimestamp}#${pad(id)}`,
  log: (ledger: LedgerRef, id: number) => ({ pk: L(ledger, `#LOG`), sk: pad(id) }),
  logPartition: (ledger: LedgerRef) => L(ledger, `#LOG`),
  account: (ledger: LedgerRef, address: string) => ({ pk: L(ledger, `#A#${address}`), sk: 'A' }),
  volume: (ledger: LedgerRef, address: string, asset: string) => ({
    pk: L(ledger, `#A#${address}`),
    sk: `V#${asset}`,
  }),
  accountPartition: (ledger: LedgerRef, address: string) => L(ledger, `#A#${address}`),
  accountList: (ledger: LedgerRef) => L(ledger, `#ACCOUNTS`),
  /**
   * Move pages of a pair (MOVES_HISTORY or INDEX_TRANSACTION_ACCOUNTS): each holds up to MOVES_PER_PAGE moves in
   * commit order, flushed from the volume item's buffer. Sorted by `<the pair's greatest move key when the page
   * started>#<first tx id>`, which grows in commit order, and in effective time for in-order moves.
   */
  movePage: (
    ledger: LedgerRef,
    address: string,
    asset: string,
    runningMax: string,
    firstTxId: number,
  ) => ({
    pk: L(ledger, `#MV#${address}#${asset}`),
    sk: `${MOVE_PAGE_PREFIX}${runningMax}#${pad(firstTxId)}`,
  }),
  movePartition: (ledger: LedgerRef, address: string, asset: string) =>
    L(ledger, `#MV#${address}#${asset}`),
  /** A move's sort key: effective time, then id, so moves at one instant sort in commit order. */
  moveSort: (sortableTimestamp: string, txId: number) => moveSort(sortableTimestamp, txId),
  /**
   * Late moves (MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES): a copy of each move committed with an effective
   * time earlier than a move already recorded for the pair (a back-dated transaction). Effective volumes are the
   * commit-order volumes corrected by these, so they are exact without rewriting later moves.
   */
  lateMove: (
    ledger: LedgerRef,
    address: string,
    asset: string,
    sortableTimestamp: string,
    txId: number,
  ) => ({
    pk: L(ledger, `#MVL#${address}#${asset}`),
    sk: moveSort(sortableTimestamp, txId),
  }),
  lateMovePartition: (ledger: LedgerRef, address: string, asset: string) =>
    L(ledger, `#MVL#${address}#${asset}`),
  /**
   * Account metadata index: one item per (key, value, account), so `metadata[key] = value` filters read one
   * partition. Key and value are hashed into the partition key, which keeps it short whatever their length.
   */
  accountMetadataPartition: (ledger: LedgerRef, key: string, value: string) =>
    L(
      ledger,
      `#AMD#${createHash('sha256')
        .update(JSON.stringify([key, value]))
        .digest('base64url')}`,
    ),
  /**
   * Address segment index (INDEX_ADDRESS_SEGMENTS): one item per account and indexed segment position, in the
   * partition of (segment count, position, segment), sorted by address — segment patterns read one partition.
   */
  addressSegmentPartition: (ledger: LedgerRef, count: number, position: number, segment: string) =>
    L(ledger, `#SEG#${count}#${position}#${segment}`),
  /** gsi1 partition of a ledger's volume items of one asset (INDEX_ACCOUNT_BALANCES), sorted by balance. */
  balancesByAsset: (ledger: LedgerRef, asset: string) => L(ledger, `#BAL#${asset}`),
  balanceSort: (balance: bigint, address: string) => `${sortableBalance(balance)}#${address}`,
  /** Transaction metadata index: one item per (key, value, transaction), by id; hashed like the account one. */
  transactionMetadataPartition: (ledger: LedgerRef, key: string, value: string) =>
    L(
      ledger,
      `#TMD#${createHash('sha256')
        .update(JSON.stringify([key, value]))
        .digest('base64url')}`,
    ),
  transactionMetadata: (ledger: LedgerRef, key: string, value: string, id: number) => ({
    pk: ledgerKeys.transactionMetadataPartition(ledger, key, value),
    sk: pad(id),
  }),
  /** One part of a staged atomic bulk's plan (staged-bulk.ts), deleted when the part is applied. */
  stagedPart: (ledger: LedgerRef, firstLogId: number, part: number) => ({
    pk: L(ledger, '#STAGED'),
    sk: `${pad(firstLogId)}#${pad(part)}`,
  }),
  reference: (ledger: LedgerRef, reference: string) => ({
    pk: L(ledger, `#REF#${reference}`),
    sk: 'REF',
  }),
  idempotency: (ledger: LedgerRef, key: string) => ({ pk: L(ledger, `#IK#${key}`), sk: 'IK' }),
  /** A relayed request's result (group commit), polled by the request that relayed it. */
  result: (ledger: LedgerRef, reqId: string) => ({ pk: L(ledger, `#RES#${reqId}`), sk: 'RES' }),
  /** A transaction's metadata revisions (MH items), one partition per transaction. */
  transactionRevisions: (ledger: LedgerRef, id: number) => L(ledger, `#TXMH#${id}`),
  /** The ledger's v1 mapping (mapping-item.ts), beside HEAD in the ledger's own partition. */
  mapping: (ledger: LedgerRef) => ({ pk: L(ledger), sk: 'MAPPING' }),
  /** A schema version (schema-store.ts), one item per version in the ledger's schema partition. */
  schema: (ledger: LedgerRef, version: string) => ({
    pk: L(ledger, '#SCHEMA'),
    sk: `V#${version}`,
  }),
  /**
   * Money held on a pair by unresolved holds (PENDING_TRANSFERS): one item per pair, `pendingInput` and
   * `pendingOutput`, in the account's own held partition (an account's holds are one Query).
   */
  held: (ledger: LedgerRef, address: string, asset: string) => ({
    pk: L(ledger, `#HELD#${address}`),
    sk: asset,
  }),
  heldPartition: (ledger: LedgerRef, address: string) => L(ledger, `#HELD#${address}`),
  /** A pending transfer (hold), by id: the log id of the CREATED_PENDING entry that made it. */
  pending: (ledger: LedgerRef, id: number) => ({ pk: L(ledger, '#PEND'), sk: pad(id) }),
  pendingPartition: (ledger: LedgerRef) => L(ledger, '#PEND'),
  /**
   * gsi1 partition of the ledger's unresolved holds with an expiry (sparse: a hold leaves it when it resolves),
   * sorted by `<sortable expiresAt>#<id>`: the sweeper reads the due ones from its start.
   */
  pendingDue: (ledger: LedgerRef) => L(ledger, '#PEXP'),
  pendingDueSort: (sortableExpiry: string, id: number) => `${sortableExpiry}#${pad(id)}`,
  /** gsi1 partition of the ledger's schema versions, by creation (sort key `<createdAt>#<version>`). */
  schemasByCreation: (ledger: LedgerRef) => L(ledger, '#SCHEMAS'),
};

/**
 * The ledger a stream image's partition key names, when it is the ledger's own partition (HEAD, the mapping) or
 * its log partition; undefined for any other key. The reader of the ledger's events (log-events.ts) needs it.
 */
export function ledgerOfPartition(
  pk: string,
): { ledger: LedgerRef; partition: 'ledger' | 'log' } | undefined {
  const environment = environmentOfKey(pk);
  if (environment === undefined) return undefined;
  const match = OWN_PARTITION.exec(withoutEnvironment(pk));
  if (!match) return undefined;
  return {
    ledger: { environment, name: match[1]! },
    partition: match[2] === undefined ? 'ledger' : 'log',
  };
}
const OWN_PARTITION = /^L#([^#]+)(#LOG)?$/;

/** Whether a key is of a ledger's holds partition (`pendingPartition`): where a hold is placed or resolved. */
export const isHoldsPartition = (pk: string): boolean =>
  /^L#[^#]+#PEND$/.test(withoutEnvironment(pk));

/**
 * The holds' `due` index (every ledger table): an unresolved hold with an expiry carries `dueKey`, one of
 * `DUE_HOLD_SHARDS` partitions shared by every environment and ledger (by a hash of the hold, so one busy ledger's
 * holds spread over all of them), and `dueAt`, `<sortable expiresAt>#<id>`. The sweeper queries each shard for what
 * is due by now; a hold leaves the index when it resolves. Not an environment's key: only the sweeper's own role may
 * query it, and it reads the environment and ledger back from each hold's own key (`ledgerOfHold`).
 */
export const DUE_HOLD_SHARDS = 8;
/** What every shard's `dueKey` starts with (the sweeper's grant names the shards by it). */
export const DUE_HOLD_SHARD_PREFIX = 'HOLDS#';
export const holdDueKeys = {
  shards: (): string[] =>
    Array.from({ length: DUE_HOLD_SHARDS }, (_, i) => `${DUE_HOLD_SHARD_PREFIX}${i}`),
  entry: (ledger: LedgerRef, id: number, sortableExpiry: string) => {
    const hash = createHash('sha256').update(`${ledger.environment}/${ledger.name}/${id}`).digest();
    return {
      dueKey: `${DUE_HOLD_SHARD_PREFIX}${hash.readUInt8(0) % DUE_HOLD_SHARDS}`,
      dueAt: `${sortableExpiry}#${pad(id)}`,
    };
  },
  /** The bound of a due query: every hold of this instant (the id part sorts after the time part). */
  dueBy: (sortableNow: string) => `${sortableNow}#~`,
};

/** The ledger whose hold partition `pk` is (`ledgerKeys.pendingPartition`); undefined for any other key. */
export function ledgerOfHold(pk: string): LedgerRef | undefined {
  const environment = environmentOfKey(pk);
  if (environment === undefined) return undefined;
  const match = HOLD_PARTITION.exec(withoutEnvironment(pk));
  return match ? { environment, name: match[1]! } : undefined;
}
const HOLD_PARTITION = /^L#([^#]+)#PEND$/;

export type ItemKey = { pk: string; sk: string };
export const keyString = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;
