import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { boundedQueryPage } from '../../dynamo/bounded-page.js';
import {
  type PagedQuery,
  type PartitionWalk,
  queryPage,
  type RecordExpansion,
} from '../../dynamo/paginate.js';
import {
  type Cursor,
  decodeCursor,
  type ListQuery,
  MAX_PAGE_SIZE,
  type Page,
} from '../../pagination/cursor.js';
import { effectiveBy, type TransactionOrder } from '../domain/point-in-time.js';
import type { Transaction } from '../domain/transaction.js';
import type { Bound, TransactionFilter } from '../domain/transaction-filter.js';
import { accountTransactionIds } from './account-transactions.js';
import { type Head, headFromItem, isLed } from './head.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { transactionsAtPointInTime } from './point-in-time-transactions.js';
import type { LedgerRecord } from './registry.js';
import { readTransactions, transactionExpansion } from './transaction-lookup.js';
import {
  parseStoredTransaction,
  type StoredTransaction,
  transactionIn,
  writesTransactionPages,
} from './transaction-pages.js';
import { unsettledTransactionItems } from './unsettled-transactions.js';

/** Reads of committed transactions (strongly consistent: a client reads its own writes). */
export class TransactionReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
    /** Settles a batch a stopped sequenced writer left unsettled (see `settleStopped`); without it, lists wait for the next writer. */
    private readonly settle?: {
      run: (ledger: LedgerRecord, table: string, head: Head) => Promise<void>;
      now: () => number;
    },
    /** Items a page reads at most when `keep` leaves some out (PlatformConfig.ledgerScanReads). */
    private readonly scanReads = DEFAULT_SCAN_READS,
  ) {}

  /**
   * Before a list: a batch whose writer stopped between its commit and its transactions' items (HEAD names it, no
   * lease) is settled first, so lists show every committed transaction. While a writer leads, its items are at
   * most one BatchWriteItem behind its commit, and always written before its requests are answered.
   */
  private async settleStopped(table: string, ledger: LedgerRecord): Promise<Head | undefined> {
    if (!this.settle && !ledger.transactionKeys) return undefined;
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: table, Key: ledgerKeys.head(ledger), ConsistentRead: true }),
    );
    const head = Item ? headFromItem(Item) : undefined;
    if (this.settle && head?.pendingResults && !isLed(head, this.settle.now()))
      await this.settle.run(ledger, table, head);
    return head;
  }

  private async byIds(
    table: string,
    ledger: LedgerRef,
    ids: number[],
  ): Promise<StoredTransaction[]> {
    const found = await readTransactions(this.doc, table, ledger, ids);
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async get(ledger: LedgerRecord, id: number): Promise<StoredTransaction | undefined> {
    const table = this.tableFor(ledger.bucket);
    return (await this.item(table, ledger, id)) ?? this.unsettled(table, ledger, id);
  }

  private async item(
    table: string,
    ledger: LedgerRef,
    id: number,
  ): Promise<StoredTransaction | undefined> {
    return (await readTransactions(this.doc, table, ledger, [id])).get(id);
  }

  /**
   * A committed transaction whose item is not written yet: a sequenced writer puts new transactions' items
   * right after its commit, and HEAD names the batch until they are all written (docs/data-model.md, "Two write
   * modes"). Read from the batch's log page meanwhile. Only reads that miss pay for this.
   */
  private async unsettled(
    table: string,
    ledger: LedgerRef,
    id: number,
  ): Promise<StoredTransaction | undefined> {
    const { items, lastTxId } = await unsettledTransactionItems(this.doc, table, ledger, [id]);
    if (id > lastTxId) return undefined;
    const created = items.get(id);
    // Committed but not in a pending batch: settled between the two reads, so the item is there now.
    return created ? transactionIn(created, id) : this.item(table, ledger, id);
  }

  /**
   * Newest first by default (docs/api.md §3.2); `ascending` for `reverse=true`. Each filter is served by its own
   * key range: the transactions partition (by id), gsi1 (by timestamp), the per-account or per-metadata-pair
   * index items (by id), or the reference item. `filters` are recorded in the cursors.
   *
   * `view.order` `effective` lists by timestamp (gsi1). `view.pit` lists the transactions dated at or before it,
   * as they stood then (point-in-time-transactions.ts): by timestamp, an upper bound on gsi1; by id, the
   * transactions dated after it are read and left out, at most PIT_READS items per page (a page may then be
   * short, its cursor resuming where the read stopped); an account's moves carry their time, so no item is read
   * to leave one out; the metadata index (current values) is served at a point in time only without metadata
   * history (the routes refuse the rest).
   */
  async list(
    ledger: LedgerRecord,
    query: ListQuery,
    ascending: boolean,
    filter: TransactionFilter | undefined,
    filters: Record<string, string>,
    before?: number,
    view: ListView = {},
  ): Promise<Page<StoredTransaction>> {
    const { keep, ...rest } = view;
    // At a point in time a filter judges transactions as they stood then: after the page is read (it may be short).
    if (view.pit === undefined)
      return this.listPage(ledger, query, ascending, filter, filters, before, view);
    const page = await this.listPage(ledger, query, ascending, filter, filters, before, rest);
    const then = await this.atPointInTime(ledger, page.data, view.pit);
    return { ...page, data: keep ? then.filter((t) => keep(t.tx)) : then };
  }

  /**
   * How many transactions the same listing holds (HEAD with a filter or a point in time): its pages, counted.
   * Unfiltered, by timestamp: the gsi1 range up to the point in time rather than the id listing.
   */
  async count(
    ledger: LedgerRecord,
    filter: TransactionFilter | undefined,
    pit: string | undefined,
    keep?: (tx: Transaction) => boolean,
  ): Promise<number> {
    const list = `ledger.transactions.${ledger.name}`;
    let total = 0;
    let cursor: Cursor | undefined;
    do {
      const query = { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) };
      const order = filter || keep ? 'id' : 'effective';
      const page = await this.list(ledger, query, false, filter, {}, undefined, {
        ...(pit !== undefined ? { pit } : {}),
        order,
        ...(keep ? { keep } : {}),
      });
      total += page.data.length;
      cursor = page.next ? decodeCursor(page.next, list) : undefined;
    } while (cursor);
    return total;
  }

  /** Transactions as they stood at a point in time (the caller checked they are dated by then). */
  atPointInTime(
    ledger: LedgerRecord,
    transactions: readonly StoredTransaction[],
    pit: string,
  ): Promise<StoredTransaction[]> {
    return transactionsAtPointInTime(
      this.doc,
      this.tableFor(ledger.bucket),
      ledger,
      transactions,
      pit,
    );
  }

  private async listPage(
    ledger: LedgerRecord,
    query: ListQuery,
    ascending: boolean,
    filter: TransactionFilter | undefined,
    filters: Record<string, string>,
    before: number | undefined,
    { pit, order = 'id', keep }: ListView,
  ): Promise<Page<StoredTransaction>> {
    const table = this.tableFor(ledger.bucket);
    const head = await this.settleStopped(table, ledger);
    const page: PageContext = {
      ledger,
      table,
      lastTxId: head?.lastTxId ?? 0,
      query,
      paged: { list: `ledger.transactions.${ledger.name}`, ascending, filters },
      pit,
      keep,
      dated: (t) => (pit === undefined || effectiveBy(t.tx, pit)) && (!keep || keep(t.tx)),
    };
    if (filter?.kind === 'reference') return this.byReference(page, filter.reference);
    if (filter?.kind === 'time' || (order === 'effective' && filter === undefined))
      return this.byTime(page, filter?.kind === 'time' ? filter : {});
    if (filter?.kind === 'account') return this.byAccount(page, filter, before);
    if (filter?.kind === 'metadata') return this.byMetadata(page, filter);
    return this.byId(page);
  }

  /** A page of stored transactions, bounded to `scanReads` items read when `keep` is evaluated on each. */
  private bounded(
    { query, keep }: PageContext,
    paged: PagedQuery,
  ): Promise<Page<StoredTransaction>> {
    if (!keep) return queryPage(this.doc, paged, query, fromBody);
    return boundedQueryPage(
      this.doc,
      { ...paged, readBudget: this.scanReads, keep: (item) => keep(fromBody(item).tx) },
      query,
      fromBody,
    );
  }

  private async byReference(
    page: PageContext,
    reference: string,
  ): Promise<Page<StoredTransaction>> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: page.table,
        Key: ledgerKeys.reference(page.ledger, reference),
        ConsistentRead: true,
      }),
    );
    const found = Item ? await this.get(page.ledger, Number(Item.txId)) : undefined;
    return {
      pageSize: page.query.pageSize,
      hasMore: false,
      data: found && page.dated(found) ? [found] : [],
    };
  }

  private byTime(
    page: PageContext,
    window: Extract<TransactionFilter, { kind: 'time' }> | Record<string, never>,
  ): Promise<Page<StoredTransaction>> | Page<StoredTransaction> {
    const bounds = timeBounds(atOrBeforePit(window, page.pit));
    if (page.ledger.transactionKeys) return this.byTimeShards(page, bounds);
    const range = timeCondition(bounds);
    if (!range) return { pageSize: page.query.pageSize, hasMore: false, data: [] };
    return this.bounded(page, {
      input: {
        TableName: page.table,
        IndexName: 'gsi1',
        KeyConditionExpression: `gsi1pk = :p${range.condition ? ` AND ${range.condition}` : ''}`,
        ExpressionAttributeValues: {
          ':p': ledgerKeys.transactionsByTime(page.ledger, 0),
          ...range.values,
        },
      },
      keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
      ...page.paged,
    });
  }

  /**
   * By time in a ledger whose index is sharded: the shards merged (a page queries each of them). The merge loads
   * at the first such list: most requests never list by time.
   */
  private async byTimeShards(
    { ledger, table, query, paged, keep, lastTxId }: PageContext,
    range: { lower?: string; upper?: string },
  ): Promise<Page<StoredTransaction>> {
    const { shardedQueryPage } = await import('../../dynamo/merged-page.js');
    return shardedQueryPage(
      this.doc,
      {
        table,
        index: 'gsi1',
        shards: ledgerKeys.transactionTimeShards(ledger),
        partitionAttribute: 'gsi1pk',
        sortAttribute: 'gsi1sk',
        range,
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        ...paged,
        ...pagesOf({ ledger, lastTxId }, 'time'),
        ...(keep ? { keep: (item) => keep(fromBody(item).tx), readBudget: this.scanReads } : {}),
      },
      query,
      fromBody,
    );
  }

  private async byAccount(
    { ledger, table, query, paged, pit, keep }: PageContext,
    filter: Extract<TransactionFilter, { kind: 'account' }>,
    before: number | undefined,
  ): Promise<Page<StoredTransaction>> {
    const ids = await accountTransactionIds(
      this.doc,
      table,
      ledger,
      filter.address,
      filter.role,
      query,
      {
        ...paged,
        ...(before !== undefined ? { before } : {}),
        ...(pit !== undefined ? { effectiveBy: pit } : {}),
      },
    );
    // A page of the account's ids, less those `keep` leaves out: it may be short, its cursor resumes after it.
    const found = await this.byIds(table, ledger, ids.data);
    return { ...ids, data: keep ? found.filter((t) => keep(t.tx)) : found };
  }

  private async byMetadata(
    { ledger, table, query, paged, dated }: PageContext,
    filter: Extract<TransactionFilter, { kind: 'metadata' }>,
  ): Promise<Page<StoredTransaction>> {
    const ids = await queryPage(
      this.doc,
      {
        input: {
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: {
            ':p': ledgerKeys.transactionMetadataPartition(ledger, filter.key, filter.value),
          },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        ...paged,
      },
      query,
      (item) => Number(item.txId),
    );
    // The index holds no timestamp: transactions dated after the point in time are left out once read.
    return { ...ids, data: (await this.byIds(table, ledger, ids.data)).filter(dated) };
  }

  private byId(page: PageContext): Promise<Page<StoredTransaction>> {
    const byId = {
      input: {
        TableName: page.table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': ledgerKeys.transactionBlock(page.ledger, 0) },
        ConsistentRead: true,
      },
      keyAttributes: ['pk', 'sk'],
      ...page.paged,
      ...(page.ledger.transactionKeys
        ? { partitions: transactionBlocks(page.ledger, page.lastTxId) }
        : {}),
      ...pagesOf(page, 'id'),
    };
    if (page.pit === undefined) return this.bounded(page, byId);
    // The item's `timestamp` is the sortable effective time.
    return boundedQueryPage(
      this.doc,
      {
        ...byId,
        input: {
          ...byId.input,
          FilterExpression: '#ts <= :pit',
          ExpressionAttributeNames: { '#ts': 'timestamp' },
          ExpressionAttributeValues: { ...byId.input.ExpressionAttributeValues, ':pit': page.pit },
        },
        readBudget: PIT_READS,
      },
      page.query,
      fromBody,
    );
  }
}

/** What one list page needs, whichever index serves it. */
interface PageContext {
  ledger: LedgerRecord;
  table: string;
  /** HEAD's last transaction id when the page began (0 when the list did not need it). */
  lastTxId: number;
  query: ListQuery;
  /** The cursor's list name, the order and the filters it carries. */
  paged: { list: string; ascending: boolean; filters: Record<string, string> };
  pit: string | undefined;
  keep: ((tx: Transaction) => boolean) | undefined;
  /** Whether a transaction read by id belongs on the page (effective by `pit`, kept by `keep`). */
  dated: (t: StoredTransaction) => boolean;
}

const fromBody = (item: Record<string, unknown>) => parseStoredTransaction(String(item.body));

/** A list's pages of transactions read record by record, in a ledger that writes them. */
function pagesOf(
  { ledger, lastTxId }: Pick<PageContext, 'ledger' | 'lastTxId'>,
  order: 'id' | 'time',
): { expand?: RecordExpansion } {
  if (!writesTransactionPages(ledger)) return {};
  const blocks = transactionBlocks(ledger, lastTxId);
  return { expand: transactionExpansion(order, (pk) => blocks.owns(pk)) };
}

/** What a list reads beside its index: a point in time, the order, and a condition evaluated on each transaction. */
export interface ListView {
  pit?: string;
  order?: TransactionOrder;
  keep?: (tx: Transaction) => boolean;
}

/** Items one page reads at most when a condition leaves items out (configurable: LEDGER_SCAN_READS). */
export const DEFAULT_SCAN_READS = 1000;

/** Transaction items one page of a point-in-time listing by id reads at most (~ a few hundred read units). */
const PIT_READS = 1000;

/** A time range narrowed to what is dated at or before a point in time (inclusive). */
function atOrBeforePit(
  range: { from?: Bound; to?: Bound },
  pit: string | undefined,
): { from?: Bound; to?: Bound } {
  if (pit === undefined || (range.to && range.to.at <= pit)) return range;
  return { ...range, to: { at: pit, inclusive: true } };
}

/**
 * gsi1 sort keys are `<sortable timestamp>#<id>`: `<t>` sorts before every key of instant t and `<t>#~` after
 * them, which turns inclusive and exclusive bounds into inclusive bounds on the sort key.
 */
function timeBounds(filter: { from?: Bound; to?: Bound }): { lower?: string; upper?: string } {
  const lower = filter.from && (filter.from.inclusive ? filter.from.at : `${filter.from.at}#~`);
  const upper = filter.to && (filter.to.inclusive ? `${filter.to.at}#~` : filter.to.at);
  return { ...(lower !== undefined ? { lower } : {}), ...(upper !== undefined ? { upper } : {}) };
}

/** The bounds as one key condition: BETWEEN or one comparison; undefined when the range is empty. */
function timeCondition({
  lower,
  upper,
}: {
  lower?: string;
  upper?: string;
}): { condition?: string; values: Record<string, string> } | undefined {
  if (lower !== undefined && upper !== undefined)
    return lower > upper
      ? undefined
      : { condition: 'gsi1sk BETWEEN :lo AND :hi', values: { ':lo': lower, ':hi': upper } };
  if (lower !== undefined) return { condition: 'gsi1sk >= :lo', values: { ':lo': lower } };
  if (upper !== undefined) return { condition: 'gsi1sk <= :hi', values: { ':hi': upper } };
  return { values: {} };
}

/**
 * A ledger's blocks of transaction items as one list by id: blocks 0 up to the block of HEAD's last id. Ids are
 * gapless, so no block up to it is empty; a cursor past it (v1's `after` beyond the last id) reads down from it.
 */
function transactionBlocks(ledger: LedgerRecord, lastTxId: number): PartitionWalk {
  const last = ledgerKeys.transactionBlockOf(ledger, lastTxId);
  const prefix = ledgerKeys.transactionBlock(ledger, 0).slice(0, -1);
  const blockOf = (pk: string) =>
    pk.startsWith(prefix) && /^(0|[1-9][0-9]{0,9})$/.test(pk.slice(prefix.length))
      ? Number(pk.slice(prefix.length))
      : undefined;
  const at = (block: number) => ledgerKeys.transactionBlock(ledger, block);
  return {
    value: ':p',
    attribute: 'pk',
    first: (forward) => at(forward ? 0 : last),
    next: (pk, forward) => {
      const block = blockOf(pk)!;
      if (forward) return block < last ? at(block + 1) : undefined;
      return block > 0 ? at(Math.min(block - 1, last)) : undefined;
    },
    owns: (pk) => blockOf(pk) !== undefined,
    // Sort keys are 15 digits: `~` sorts after all of them, `!` before.
    end: (pk, forward) => ({ pk, sk: forward ? '~' : '!' }),
  };
}
