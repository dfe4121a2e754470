import { createHash } from 'node:crypto';

/**
 * Keys of every ledger item (docs/data-model.md). Registry items live in the default ledger table; a
 * ledger's own items live in its bucket's table, all under partition keys starting `L#<ledger>`.
 */
const pad = (n: number) => String(n).padStart(15, '0');
const moveSort = (sortableTimestamp: string, txId: number) => `${sortableTimestamp}#${pad(txId)}`;
export const MOVE_PAGE_PREFIX = 'P#';

export const registryKeys = {
  sequence: { pk: 'LEDGER_SEQ', sk: 'LEDGER_SEQ' },
  ledger: (name: string) => ({ pk: `LEDGER#${name}`, sk: 'LEDGER' }),
  bucketMember: (bucket: string, id: number) => ({ pk: `BUCKET#${bucket}`, sk: pad(id) }),
  listPartition: 'LEDGERS',
  listSort: (id: number) => pad(id),
};

export const ledgerKeys = {
  /** The sequencer: last transaction id, last log id and hash. Every write of the ledger updates it. */
  head: (ledger: string) => ({ pk: `L#${ledger}`, sk: 'HEAD' }),
  transaction: (ledger: string, id: number) => ({ pk: `L#${ledger}#TX`, sk: pad(id) }),
  transactionPartition: (ledger: string) => `L#${ledger}#TX`,
  /** gsi1 partition of a ledger's transactions by timestamp (sort key `<timestamp>#<id>`). */
  transactionsByTime: (ledger: string) => `L#${ledger}#TXT`,
  transactionTimeSort: (sortableTimestamp: string, id: number) => `${sortableTimestamp}#${pad(id)}`,
  log: (ledger: string, id: number) => ({ pk: `L#${ledger}#LOG`, sk: pad(id) }),
  logPartition: (ledger: string) => `L#${ledger}#LOG`,
  account: (ledger: string, address: string) => ({ pk: `L#${ledger}#A#${address}`, sk: 'A' }),
  volume: (ledger: string, address: string, asset: string) => ({
    pk: `L#${ledger}#A#${address}`,
    sk: `V#${asset}`,
  }),
  accountPartition: (ledger: string, address: string) => `L#${ledger}#A#${address}`,
  accountList: (ledger: string) => `L#${ledger}#ACCOUNTS`,
  /**
   * Move pages of a pair (MOVES_HISTORY or INDEX_TRANSACTION_ACCOUNTS): each holds up to MOVES_PER_PAGE moves in
   * commit order, flushed from the volume item's buffer. Sorted by `<the pair's greatest move key when the page
   * started>#<first tx id>`, which grows in commit order, and in effective time for in-order moves.
   */
  movePage: (
    ledger: string,
    address: string,
    asset: string,
    runningMax: string,
    firstTxId: number,
  ) => ({
    pk: `L#${ledger}#MV#${address}#${asset}`,
    sk: `${MOVE_PAGE_PREFIX}${runningMax}#${pad(firstTxId)}`,
  }),
  movePartition: (ledger: string, address: string, asset: string) =>
    `L#${ledger}#MV#${address}#${asset}`,
  /** A move's sort key: effective time, then id, so moves at one instant sort in commit order. */
  moveSort: (sortableTimestamp: string, txId: number) => moveSort(sortableTimestamp, txId),
  /**
   * Late moves (MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES): a copy of each move committed with an effective
   * time earlier than a move already recorded for the pair (a back-dated transaction). Effective volumes are the
   * commit-order volumes corrected by these, so they are exact without rewriting later moves.
   */
  lateMove: (
    ledger: string,
    address: string,
    asset: string,
    sortableTimestamp: string,
    txId: number,
  ) => ({
    pk: `L#${ledger}#MVL#${address}#${asset}`,
    sk: moveSort(sortableTimestamp, txId),
  }),
  lateMovePartition: (ledger: string, address: string, asset: string) =>
    `L#${ledger}#MVL#${address}#${asset}`,
  /**
   * Account metadata index: one item per (key, value, account), so `metadata[key] = value` filters read one
   * partition. Key and value are hashed into the partition key, which keeps it short whatever their length.
   */
  accountMetadataPartition: (ledger: string, key: string, value: string) =>
    `L#${ledger}#AMD#${createHash('sha256')
      .update(JSON.stringify([key, value]))
      .digest('base64url')}`,
  /**
   * Address segment index (INDEX_ADDRESS_SEGMENTS): one item per account and indexed segment position, in the
   * partition of (segment count, position, segment), sorted by address — segment patterns read one partition.
   */
  addressSegmentPartition: (ledger: string, count: number, position: number, segment: string) =>
    `L#${ledger}#SEG#${count}#${position}#${segment}`,
  /** gsi1 partition of a ledger's volume items of one asset (INDEX_ACCOUNT_BALANCES), sorted by balance. */
  balancesByAsset: (ledger: string, asset: string) => `L#${ledger}#BAL#${asset}`,
  balanceSort: (balance: bigint, address: string) => `${sortableBalance(balance)}#${address}`,
  /** Transaction metadata index: one item per (key, value, transaction), by id; hashed like the account one. */
  transactionMetadataPartition: (ledger: string, key: string, value: string) =>
    `L#${ledger}#TMD#${createHash('sha256')
      .update(JSON.stringify([key, value]))
      .digest('base64url')}`,
  transactionMetadata: (ledger: string, key: string, value: string, id: number) => ({
    pk: ledgerKeys.transactionMetadataPartition(ledger, key, value),
    sk: pad(id),
  }),
  reference: (ledger: string, reference: string) => ({
    pk: `L#${ledger}#REF#${reference}`,
    sk: 'REF',
  }),
  idempotency: (ledger: string, key: string) => ({ pk: `L#${ledger}#IK#${key}`, sk: 'IK' }),
  /** A relayed request's result (group commit), polled by the request that relayed it. */
  result: (ledger: string, reqId: string) => ({ pk: `L#${ledger}#RES#${reqId}`, sk: 'RES' }),
};

/**
 * A balance (|b| < 10^38) as text that sorts like the number: `N` + (10^38 − |b|) for negatives, `P` + b for the
 * rest, both 38 digits. `N` < `P`, and a more negative balance gives a smaller complement.
 */
export function sortableBalance(balance: bigint): string {
  return balance < 0n
    ? `N${(BALANCE_SPAN + balance).toString().padStart(38, '0')}`
    : `P${balance.toString().padStart(38, '0')}`;
}
const BALANCE_SPAN = 10n ** 38n;

export type ItemKey = { pk: string; sk: string };
export const keyString = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;
