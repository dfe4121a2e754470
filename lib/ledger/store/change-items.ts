import type { TransactItem } from '../../dynamo/transact-item.js';
import { ConflictError } from '../../errors/index.js';
import { canonicalJson } from '../../json/canonical.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { INDEXED_SEGMENTS } from '../domain/account-filter.js';
import type {
  AccountState,
  LedgerChange,
  LedgerRecord,
  Move,
  TransactionRecord,
} from '../domain/change.js';
import { isEnabled } from '../domain/features.js';
import type { Volume } from '../domain/postings.js';
import { amountAttribute } from './amount-encoding.js';
import { type ItemKey, keyString, type LedgerRef, ledgerKeys } from './keys.js';
import { encodeMove, moveKey } from './move-codec.js';
import { pendingWrites } from './pending-items.js';
import { isTransactionPage, pageWith } from './transaction-pages.js';

/** One action of a TransactWriteItems, with the error to raise if its own condition fails. */
export interface Write {
  item: TransactItem;
  onConditionFailure?: () => Error;
  /**
   * A new transaction's item: a sequenced writer puts it right after its commit rather than in it (it is rebuilt
   * from the log page if the writer stops in between). Not when the batch writes the item again (a revert or
   * metadata of a transaction created in the same batch): `collapse` drops the mark.
   */
  deferrable?: boolean;
  /** A late move's copy (a back-dated move): the transaction's effective volumes differ from its commit-order ones. */
  late?: boolean;
}

/** Items as the writer sees them: the snapshot, overlaid with each earlier decision's puts. */
export type ItemView = Map<string, Record<string, unknown>>;

/** A pair's buffer is flushed into a page once it holds this many moves (or MOVE_BUFFER_BYTES). */
export const MOVES_PER_PAGE = 8;
/** Keeps a volume item, buffer included, within one 1 KB write unit even with 38-digit amounts (larger ones cost more). */
const MOVE_BUFFER_BYTES = 560;

/**
 * The items a change writes (docs/data-model.md), given the items it was decided over. The only place that
 * knows how a ledger change is laid out in DynamoDB: transactions and their metadata index, volumes with their
 * move buffers and pages, late-move copies, accounts with their metadata and segment indexes, metadata
 * revisions and references. The log entry, HEAD and idempotency record are the writer's.
 */
export function changeWrites(
  ledger: LedgerRecord,
  table: string,
  view: ItemView,
  change: LedgerChange,
  logId: number,
): Write[] {
  const put = putWith(table);
  return [
    ...transactionWrites(ledger, table, view, change, put),
    ...change.volumes.flatMap(({ account, asset, volume }) =>
      volumeWrites(
        ledger,
        table,
        view.get(keyString(ledgerKeys.volume(ledger, account, asset))),
        account,
        asset,
        volume,
        change.moves.filter((m) => m.account === account && m.asset === asset),
      ),
    ),
    ...accountWrites(ledger, table, change, put),
    ...revisionWrites(ledger, change, logId, put),
    ...change.references.map(({ reference, txId }) =>
      put(
        { ...ledgerKeys.reference(ledger, reference), txId },
        { ConditionExpression: 'attribute_not_exists(pk)' },
        () => new ConflictError(`duplicate reference "${reference}"`),
      ),
    ),
    ...pendingWrites(ledger, table, change),
  ];
}

type Put = (
  Item: Record<string, unknown>,
  condition?: Partial<NonNullable<Write['item']['Put']>>,
  onConditionFailure?: () => Error,
) => Write;

function putWith(table: string): Put {
  return (Item, condition, onConditionFailure) => ({
    item: { Put: { TableName: table, Item, ...condition } },
    ...(onConditionFailure ? { onConditionFailure } : {}),
  });
}

/** Each transaction's item (new ones conditional on being new) and its metadata index. */
function transactionWrites(
  ledger: LedgerRecord,
  table: string,
  view: ItemView,
  change: LedgerChange,
  put: Put,
): Write[] {
  return change.transactions.flatMap(({ record, before }) => {
    const item = transactionItem(ledger, record);
    const holder = before
      ? view.get(keyString(ledgerKeys.transaction(ledger, record.tx.id)))
      : undefined;
    // A change to a transaction in a page rewrites the page (transaction-pages.ts).
    const write =
      holder && isTransactionPage(holder)
        ? put(pageWith(holder, record.tx.id, String(item.body)))
        : put(item, before ? undefined : { ConditionExpression: 'attribute_not_exists(pk)' });
    return [
      // A new transaction's item may follow a group commit instead of being in it (docs/data-model.md, "Two write
      // modes"), and a commit's new transactions are gathered into pages (foldTransactionPages).
      before ? write : { ...write, deferrable: true },
      ...metadataIndexWrites(
        table,
        before?.tx.metadata ?? {},
        record.tx.metadata,
        (k, v) => ledgerKeys.transactionMetadata(ledger, k, v, record.tx.id),
        { txId: record.tx.id },
      ),
    ];
  });
}

/** Each account's item, a new account's segment index, and its metadata index. */
function accountWrites(
  ledger: LedgerRecord,
  table: string,
  change: LedgerChange,
  put: Put,
): Write[] {
  return change.accounts.flatMap(({ after, before }) => [
    put(accountItem(ledger, after)),
    ...(before ? [] : segmentIndexWrites(ledger, table, after.address)),
    ...metadataIndexWrites(
      table,
      before?.metadata ?? {},
      after.metadata,
      (k, v) => ({
        pk: ledgerKeys.accountMetadataPartition(ledger, k, v),
        sk: after.address,
      }),
      { address: after.address },
    ),
  ]);
}

/** Metadata revisions, kept when the target's METADATA_HISTORY feature is on (docs/data-model.md, "Point-in-time reads"). */
function revisionWrites(
  ledger: LedgerRecord,
  change: LedgerChange,
  logId: number,
  put: Put,
): Write[] {
  const log = String(logId).padStart(15, '0');
  const revision = change.metadataRevision;
  if (revision) {
    const { target } = revision;
    const history =
      target.type === 'ACCOUNT' ? 'ACCOUNT_METADATA_HISTORY' : 'TRANSACTION_METADATA_HISTORY';
    if (!isEnabled(ledger.features, history)) return [];
    const key =
      target.type === 'ACCOUNT'
        ? { pk: ledgerKeys.accountPartition(ledger, target.address), sk: `MH#${log}` }
        : { pk: ledgerKeys.transactionRevisions(ledger, target.id), sk: log };
    const date = change.accounts[0]?.after.updatedAt ?? change.transactions[0]?.record.tx.updatedAt;
    // The metadata before the change as well: a read at a point in time before a target's first revision needs
    // what it held then (a transaction's creation metadata is no revision of its own). Revisions written before
    // this have no `before` (docs/data-model.md, "Point-in-time reads").
    const before =
      target.type === 'ACCOUNT'
        ? (change.accounts.find((a) => a.after.address === target.address)?.before?.metadata ?? {})
        : (change.transactions.find((t) => t.record.tx.id === target.id)?.before?.tx.metadata ??
          {});
    return [put({ ...key, metadata: revision.metadata, before, date })];
  }
  // A transaction's `accountMetadata` (or a script's set_account_meta) changes accounts' metadata too: each such
  // account gets its revision, so reads at a point in time see when it changed.
  if (!isEnabled(ledger.features, 'ACCOUNT_METADATA_HISTORY')) return [];
  return change.accounts
    .filter(({ after, before }) => !sameMetadata(before?.metadata ?? {}, after.metadata))
    .map(({ after, before }) =>
      put({
        pk: ledgerKeys.accountPartition(ledger, after.address),
        sk: `MH#${log}`,
        metadata: after.metadata,
        before: before?.metadata ?? {},
        date: after.updatedAt,
      }),
    );
}

function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
  );
}

/** Transactions are stored as exact JSON text (amounts as big integers) with their post-commit volumes. */
export function transactionItem(
  ledger: LedgerRef,
  { tx, post }: TransactionRecord,
): Record<string, unknown> {
  const timestamp = sortableInstant(parseInstant(tx.timestamp, 'timestamp'));
  return {
    ...ledgerKeys.transaction(ledger, tx.id),
    gsi1pk: ledgerKeys.transactionsByTime(ledger, tx.id),
    gsi1sk: ledgerKeys.transactionTimeSort(timestamp, tx.id),
    id: tx.id,
    timestamp,
    body: canonicalJson({ ...tx, postCommitVolumes: post }),
  };
}

export function accountItem(ledger: LedgerRef, account: AccountState): Record<string, unknown> {
  return {
    ...ledgerKeys.account(ledger, account.address),
    gsi1pk: ledgerKeys.accountList(ledger),
    gsi1sk: account.address,
    ...account,
  };
}

/**
 * A pair's volume item after a change, and the move items that go with it. With MOVES_HISTORY or
 * INDEX_TRANSACTION_ACCOUNTS, each move is appended to the item's buffer (`mv`), which is flushed into a page
 * item once full: a pair's moves cost no item of their own (docs/data-model.md, "Moves"). With MOVES_HISTORY, a
 * move whose effective key is below the pair's greatest (`lastMoveKey`) is late: it also gets a copy in the
 * late-move partition, which effective volumes and time windows read.
 */
function volumeWrites(
  ledger: LedgerRecord,
  table: string,
  existing: Record<string, unknown> | undefined,
  account: string,
  asset: string,
  volume: Volume,
  moves: readonly Move[],
): Write[] {
  const keepMoves =
    isEnabled(ledger.features, 'MOVES_HISTORY') ||
    isEnabled(ledger.features, 'INDEX_TRANSACTION_ACCOUNTS');
  const pair = { ledger, table, account, asset };
  const buffered = appendMoves(pair, existing, keepMoves ? moves : [], keepMoves);
  const { lastMoveKey, lateMoves, buffer, page } = buffered;
  const balance = volume.input - volume.output;
  const item: Record<string, unknown> = {
    ...ledgerKeys.volume(ledger, account, asset),
    account,
    asset,
    input: amountAttribute(volume.input),
    output: amountAttribute(volume.output),
    ...(keepMoves && lastMoveKey ? { lastMoveKey } : {}),
    ...(lateMoves > 0 ? { lateMoves } : {}),
    ...(buffer.length > 0 ? { mv: buffer, mvPage: page } : {}),
    // INDEX_ACCOUNT_BALANCES: listed on gsi1 by (asset, balance) for `balance[ASSET]` filters.
    ...(isEnabled(ledger.features, 'INDEX_ACCOUNT_BALANCES')
      ? {
          gsi1pk: ledgerKeys.balancesByAsset(ledger, asset),
          gsi1sk: ledgerKeys.balanceSort(balance, account),
        }
      : {}),
  };
  return [{ item: { Put: { TableName: table, Item: item } } }, ...buffered.writes];
}

/** One (account, asset) pair of a ledger, and the table its items go to. */
interface PairOfTable {
  ledger: LedgerRecord;
  table: string;
  account: string;
  asset: string;
}

/**
 * The pair's move buffer after `moves`: each appended (a late one also copied to the late-move partition with
 * MOVES_HISTORY), and the buffer flushed into a page item whenever full. Answers those writes and what the volume
 * item keeps: the greatest move key, the late-move count, the buffer and the page it will become.
 */
function appendMoves(
  pair: PairOfTable,
  existing: Record<string, unknown> | undefined,
  moves: readonly Move[],
  keepMoves: boolean,
): { writes: Write[]; lastMoveKey: string; lateMoves: number; buffer: string[]; page?: string } {
  const { ledger, account, asset } = pair;
  const trackLate = isEnabled(ledger.features, 'MOVES_HISTORY');
  const writes: Write[] = [];
  let lastMoveKey = typeof existing?.lastMoveKey === 'string' ? existing.lastMoveKey : '';
  let lateMoves = Number(existing?.lateMoves ?? 0);
  let buffer = keepMoves ? [...((existing?.mv as string[] | undefined) ?? [])] : [];
  let page = typeof existing?.mvPage === 'string' ? existing.mvPage : undefined;
  for (const move of moves) {
    const key = moveKey(move.at, move.txId);
    const late = key < lastMoveKey;
    if (late && trackLate) {
      lateMoves++;
      writes.push(lateMovePut(pair, move, lastMoveKey));
    }
    if (!late) lastMoveKey = key;
    if (buffer.length === 0)
      page = ledgerKeys.movePage(ledger, account, asset, lastMoveKey, move.txId).sk;
    buffer.push(encodeMove(move, late));
    if (
      buffer.length >= MOVES_PER_PAGE ||
      buffer.reduce((n, m) => n + m.length, 0) > MOVE_BUFFER_BYTES
    ) {
      writes.push(movePagePut(pair, page!, buffer));
      buffer = [];
      page = undefined;
    }
  }
  return { writes, lastMoveKey, lateMoves, buffer, ...(page !== undefined ? { page } : {}) };
}

/** A late move's copy in the pair's late-move partition, naming the key it came in below. */
function lateMovePut(pair: PairOfTable, move: Move, lateOf: string): Write {
  const { ledger, table, account, asset } = pair;
  return {
    late: true,
    item: {
      Put: {
        TableName: table,
        Item: {
          ...ledgerKeys.lateMove(ledger, account, asset, move.at, move.txId),
          txId: move.txId,
          input: amountAttribute(move.input),
          output: amountAttribute(move.output),
          lateOf,
        },
      },
    },
  };
}

/** A full move buffer as its page item. */
function movePagePut(pair: PairOfTable, page: string, moves: string[]): Write {
  const { ledger, table, account, asset } = pair;
  return {
    item: {
      Put: {
        TableName: table,
        Item: { pk: ledgerKeys.movePartition(ledger, account, asset), sk: page, moves },
      },
    },
  };
}

/**
 * Index items of a new account's address (INDEX_ADDRESS_SEGMENTS ON): one per segment among the first
 * INDEXED_SEGMENTS, each holding every segment so a pattern's other fixed segments filter within the partition.
 * Written once, when the account is created (an address never changes).
 */
function segmentIndexWrites(ledger: LedgerRecord, table: string, address: string): Write[] {
  if (!isEnabled(ledger.features, 'INDEX_ADDRESS_SEGMENTS')) return [];
  const segments = address.split(':');
  return segments.slice(0, INDEXED_SEGMENTS).map((segment, position) => ({
    item: {
      Put: {
        TableName: table,
        Item: {
          pk: ledgerKeys.addressSegmentPartition(ledger, segments.length, position, segment),
          sk: address,
          address,
          segments,
        },
      },
    },
  }));
}

/**
 * Keeps a metadata index (one item per key/value pair of a target) in step with a change, in the same
 * transaction: items of pairs that went away or changed value are deleted, those of new or changed pairs put.
 * Unchanged pairs cost nothing.
 */
function metadataIndexWrites(
  table: string,
  before: Record<string, string>,
  after: Record<string, string>,
  keyOf: (key: string, value: string) => ItemKey,
  attributes: Record<string, unknown>,
): Write[] {
  const writes: Write[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (after[key] === value) continue;
    writes.push({ item: { Delete: { TableName: table, Key: keyOf(key, value) } } });
  }
  for (const [key, value] of Object.entries(after)) {
    if (before[key] === value) continue;
    writes.push({
      item: { Put: { TableName: table, Item: { ...keyOf(key, value), ...attributes } } },
    });
  }
  return writes;
}
