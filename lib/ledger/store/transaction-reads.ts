import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { queryPage } from '../../dynamo/paginate.js';
import { parseJson } from '../../json/bigint-json.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { Posting } from '../domain/postings.js';
import type { Transaction, VolumesView } from '../domain/transaction.js';
import type { Bound, TransactionFilter } from '../domain/transaction-filter.js';
import { accountTransactionIds } from './account-transactions.js';
import { createdTransactionItems } from './batch-settle.js';
import { headFromItem, isLed, type Head } from './head.js';
import { ledgerKeys } from './keys.js';
import { readLogRange } from './log-pages.js';
import type { LedgerRecord } from './registry.js';

export interface StoredTransaction {
  tx: Transaction;
  post: VolumesView;
}

export function parseStoredTransaction(body: string): StoredTransaction {
  const { postCommitVolumes, id, postings, ...rest } = parseJson(body) as Record<string, unknown>;
  const tx = { ...rest, id: Number(id), postings: postings as Posting[] } as Transaction;
  return { tx, post: postCommitVolumes as VolumesView };
}

/** Reads of committed transactions (strongly consistent: a client reads its own writes). */
export class TransactionReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
    /** Settles a batch a stopped sequenced writer left unsettled (see `settleStopped`); without it, lists wait for the next writer. */
    private readonly settle?: { run: (ledger: LedgerRecord, table: string, head: Head) => Promise<void>; now: () => number },
  ) {}

  /**
   * Before a list: a batch whose writer stopped between its commit and its transactions' items (HEAD names it, no
   * lease) is settled first, so lists show every committed transaction. While a writer leads, its items are at
   * most one BatchWriteItem behind its commit, and always written before its requests are answered.
   */
  private async settleStopped(table: string, ledger: LedgerRecord): Promise<void> {
    if (!this.settle) return;
    const { Item } = await this.doc.send(new GetCommand({ TableName: table, Key: ledgerKeys.head(ledger.name) }));
    const head = Item ? headFromItem(Item) : undefined;
    if (head?.pendingResults && !isLed(head, this.settle.now())) await this.settle.run(ledger, table, head);
  }

  private async byIds(table: string, ledger: string, ids: number[]): Promise<StoredTransaction[]> {
    const items = await batchGetInOrder(this.doc, table, ids.map((id) => ledgerKeys.transaction(ledger, id)));
    return items.filter((i): i is Record<string, unknown> => i !== undefined).map((item) => parseStoredTransaction(String(item.body)));
  }

  async get(ledger: LedgerRecord, id: number): Promise<StoredTransaction | undefined> {
    const table = this.tableFor(ledger.bucket);
    return (await this.item(table, ledger.name, id)) ?? this.unsettled(table, ledger.name, id);
  }

  private async item(table: string, ledger: string, id: number): Promise<StoredTransaction | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: table, Key: ledgerKeys.transaction(ledger, id), ConsistentRead: true }));
    return Item ? parseStoredTransaction(String(Item.body)) : undefined;
  }

  /**
   * A committed transaction whose item is not written yet: a sequenced writer puts new transactions' items
   * right after its commit, and HEAD names the batch until they are all written (docs/data-model.md, "Two write
   * modes"). Read from the batch's log page meanwhile. Only reads that miss pay for this.
   */
  private async unsettled(table: string, ledger: string, id: number): Promise<StoredTransaction | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: table, Key: ledgerKeys.head(ledger), ConsistentRead: true }));
    if (!Item || id > Number(Item.lastTxId)) return undefined;
    const pending = headFromItem(Item).pendingResults;
    // Settled between the two reads: the item is there now.
    if (!pending) return this.item(table, ledger, id);
    const entries = await readLogRange(this.doc, table, ledger, pending.firstLogId, pending.lastLogId);
    const created = createdTransactionItems(ledger, entries).find((item) => item.id === id);
    return created ? parseStoredTransaction(String(created.body)) : this.item(table, ledger, id);
  }

  /**
   * Newest first by default (API.md §3.2); `ascending` for `reverse=true`. Each filter is served by its own
   * key range: the transactions partition (by id), gsi1 (by timestamp), the per-account or per-metadata-pair
   * index items (by id), or the reference item. `filters` are recorded in the cursors.
   */
  async list(
    ledger: LedgerRecord,
    query: ListQuery,
    ascending: boolean,
    filter: TransactionFilter | undefined,
    filters: Record<string, string>,
    before?: number,
  ): Promise<Page<StoredTransaction>> {
    const table = this.tableFor(ledger.bucket);
    await this.settleStopped(table, ledger);
    const list = `ledger.transactions.${ledger.name}`;
    const fromBody = (item: Record<string, unknown>) => parseStoredTransaction(String(item.body));
    if (filter?.kind === 'reference') {
      const { Item } = await this.doc.send(new GetCommand({ TableName: table, Key: ledgerKeys.reference(ledger.name, filter.reference), ConsistentRead: true }));
      const found = Item ? await this.get(ledger, Number(Item.txId)) : undefined;
      return { pageSize: query.pageSize, hasMore: false, data: found ? [found] : [] };
    }
    if (filter?.kind === 'time') {
      const { condition, values } = timeCondition(filter);
      return queryPage(
        this.doc,
        {
          input: { TableName: table, IndexName: 'gsi1', KeyConditionExpression: `gsi1pk = :p AND ${condition}`, ExpressionAttributeValues: { ':p': ledgerKeys.transactionsByTime(ledger.name), ...values } },
          keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
          list,
          ascending,
          filters,
        },
        query,
        fromBody,
      );
    }
    if (filter?.kind === 'account') {
      const ids = await accountTransactionIds(this.doc, table, ledger.name, filter.address, filter.role, query, { ascending, list, filters, ...(before !== undefined ? { before } : {}) });
      return { ...ids, data: await this.byIds(table, ledger.name, ids.data) };
    }
    if (filter?.kind === 'metadata') {
      const ids = await queryPage(
        this.doc,
        {
          input: { TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': ledgerKeys.transactionMetadataPartition(ledger.name, filter.key, filter.value) }, ConsistentRead: true },
          keyAttributes: ['pk', 'sk'],
          list,
          ascending,
          filters,
        },
        query,
        (item) => Number(item.txId),
      );
      return { ...ids, data: await this.byIds(table, ledger.name, ids.data) };
    }
    return queryPage(
      this.doc,
      {
        input: { TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': ledgerKeys.transactionPartition(ledger.name) }, ConsistentRead: true },
        keyAttributes: ['pk', 'sk'],
        list,
        ascending,
        filters,
      },
      query,
      fromBody,
    );
  }
}

/**
 * gsi1 sort keys are `<sortable timestamp>#<id>`: `<t>` sorts before every key of instant t and `<t>#~` after
 * them, which turns inclusive and exclusive bounds into one BETWEEN (or one comparison).
 */
function timeCondition(filter: { from?: Bound; to?: Bound }): { condition: string; values: Record<string, string> } {
  const lower = filter.from && (filter.from.inclusive ? filter.from.at : `${filter.from.at}#~`);
  const upper = filter.to && (filter.to.inclusive ? `${filter.to.at}#~` : filter.to.at);
  if (lower !== undefined && upper !== undefined) return { condition: 'gsi1sk BETWEEN :lo AND :hi', values: { ':lo': lower, ':hi': upper } };
  if (lower !== undefined) return { condition: 'gsi1sk >= :lo', values: { ':lo': lower } };
  return { condition: 'gsi1sk <= :hi', values: { ':hi': upper! } };
}
