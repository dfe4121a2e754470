import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import { parseJson } from '../../json/bigint-json.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { Posting } from '../domain/postings.js';
import type { Transaction, VolumesView } from '../domain/transaction.js';
import { ledgerKeys } from './keys.js';
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
  ) {}

  async get(ledger: LedgerRecord, id: number): Promise<StoredTransaction | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableFor(ledger.bucket), Key: ledgerKeys.transaction(ledger.name, id), ConsistentRead: true }),
    );
    return Item ? parseStoredTransaction(String(Item.body)) : undefined;
  }

  /** Newest first by default (API.md §3.2); `ascending` for `reverse=true`. */
  async list(ledger: LedgerRecord, query: ListQuery, ascending: boolean): Promise<Page<StoredTransaction>> {
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.tableFor(ledger.bucket),
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': ledgerKeys.transactionPartition(ledger.name) },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: `ledger.transactions.${ledger.name}`,
        ascending,
        filters: { reverse: String(ascending) },
      },
      query,
      (item) => parseStoredTransaction(String(item.body)),
    );
  }
}
