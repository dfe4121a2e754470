import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { LedgerRecord } from '../domain/change.js';
import type { HeldVolume, PendingStatus, PendingTransfer } from '../domain/pending.js';
import type { Volume } from '../domain/postings.js';
import { amountOfAttribute } from './amount-encoding.js';
import { ledgerKeys } from './keys.js';
import { heldOfItem, parseStoredPending } from './pending-items.js';

export const pendingListName = (ledger: string) => `ledger.pending.${ledger}`;

/** An account's balances per asset: posted volumes and the money its holds keep. */
export interface AccountBalances {
  asset: string;
  volume: Volume;
  held: HeldVolume;
}

/** At most this many assets are answered for one account's balances (one Query page of each partition). */
const MAX_ASSETS = 1000;

/**
 * Reads of pending transfers (holds) and held volumes (PENDING_TRANSFERS), strongly consistent: a caller reads its
 * own writes. A hold's item is rewritten by each post and void, so a read answers it as last committed.
 */
export class PendingReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  async get(ledger: LedgerRecord, id: number): Promise<PendingTransfer | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableFor(ledger.bucket),
        Key: ledgerKeys.pending(ledger, id),
        ConsistentRead: true,
      }),
    );
    return Item ? parseStoredPending(String(Item.body)) : undefined;
  }

  /** A page of holds, newest first, of one status if asked (a filter on the ledger's hold partition). */
  list(
    ledger: LedgerRecord,
    query: ListQuery,
    status: PendingStatus | undefined,
  ): Promise<Page<PendingTransfer>> {
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.tableFor(ledger.bucket),
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: {
            ':p': ledgerKeys.pendingPartition(ledger),
            ...(status ? { ':s': status } : {}),
          },
          ...(status
            ? { FilterExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'status' } }
            : {}),
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: pendingListName(ledger.name),
        ascending: false,
        ...(status ? { filters: { status } } : {}),
      },
      query,
      (item) => parseStoredPending(String(item.body)),
    );
  }

  /**
   * An account's balances per asset: its volume items and its held items (two Queries of one partition each),
   * merged by asset; an asset only held (money on its way in) has volumes 0.
   */
  async balances(ledger: LedgerRecord, address: string): Promise<AccountBalances[]> {
    const table = this.tableFor(ledger.bucket);
    const [volumes, held] = await Promise.all([
      this.query(table, ledgerKeys.accountPartition(ledger, address), 'V#'),
      this.query(table, ledgerKeys.heldPartition(ledger, address)),
    ]);
    const byAsset = new Map<string, AccountBalances>();
    const entry = (asset: string) => {
      if (!byAsset.has(asset))
        byAsset.set(asset, {
          asset,
          volume: { input: 0n, output: 0n },
          held: { pendingInput: 0n, pendingOutput: 0n },
        });
      return byAsset.get(asset)!;
    };
    for (const item of volumes)
      entry(String(item.asset)).volume = {
        input: amountOfAttribute(item.input),
        output: amountOfAttribute(item.output),
      };
    for (const item of held) entry(String(item.asset)).held = heldOfItem(item);
    return [...byAsset.values()].sort((a, b) => (a.asset < b.asset ? -1 : 1));
  }

  /** The ledger's unresolved holds whose expiry is at or before `sortableNow` (the due index), oldest due first. */
  async due(ledger: LedgerRecord, sortableNow: string, limit: number): Promise<PendingTransfer[]> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableFor(ledger.bucket),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p AND gsi1sk <= :now',
        ExpressionAttributeValues: {
          ':p': ledgerKeys.pendingDue(ledger),
          // Every id at this instant: the id part sorts after the time part.
          ':now': `${sortableNow}#~`,
        },
        Limit: limit,
      }),
    );
    // The index is eventually consistent: each hold is read again, and only an unresolved one is answered.
    const holds = await Promise.all((Items ?? []).map((item) => this.get(ledger, Number(item.id))));
    return holds.filter((h): h is PendingTransfer => h?.status === 'PENDING');
  }

  private async query(
    table: string,
    pk: string,
    prefix?: string,
  ): Promise<Array<Record<string, unknown>>> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: prefix ? 'pk = :p AND begins_with(sk, :s)' : 'pk = :p',
        ExpressionAttributeValues: { ':p': pk, ...(prefix ? { ':s': prefix } : {}) },
        ConsistentRead: true,
        Limit: MAX_ASSETS,
      }),
    );
    return (Items ?? []) as Array<Record<string, unknown>>;
  }
}
