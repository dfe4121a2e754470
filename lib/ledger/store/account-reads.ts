import { GetCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import { ValidationError } from '../../errors/index.js';
import type { Cursor, ListQuery, Page } from '../../pagination/cursor.js';
import type { AccountRecord, AccountVolumes } from '../domain/account.js';
import { isBalanceFilter, isMetadataFilter, isSegmentFilter, type AccountFilter, type AddressFilter, type BalanceFilter, type MetadataFilter, type SegmentFilter } from '../domain/account-filter.js';
import { ACCOUNT_ADDRESS } from '../domain/names.js';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { accountIndexQuery, readVolumes, segmentIndexQuery, segmentPartition, toAccountRecord, toAssetVolume } from './account-items.js';
import { aggregateBalances } from './balance-aggregate.js';
import { ledgerKeys, sortableBalance } from './keys.js';
import type { LedgerRecord } from './registry.js';

export interface AccountRead {
  account: AccountRecord;
  /** Present when volumes were asked for. */
  volumes?: AccountVolumes;
}

export const accountListName = (ledger: string) => `ledger.accounts.${ledger}`;

/** Reads of accounts: by address (the account's partition) and listed by address (gsi1). */
export class AccountReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /**
   * The account's `A` item (GetItem) and, when asked for, its `V#<asset>` volume items (a Query on the same
   * partition), both strongly consistent and in parallel. Not one Query over the whole partition: metadata
   * revisions (`MH#<log id>`, ACCOUNT_METADATA_HISTORY) sort between `A` and `V#` and grow without bound.
   */
  async get(ledger: LedgerRecord, address: string, withVolumes: boolean): Promise<AccountRead | undefined> {
    const table = this.tableFor(ledger.bucket);
    const [found, volumes] = await Promise.all([
      this.doc.send(new GetCommand({ TableName: table, Key: ledgerKeys.account(ledger.name, address), ConsistentRead: true })),
      withVolumes ? this.volumesOf(table, ledger.name, address) : undefined,
    ]);
    if (!found.Item) return undefined;
    const account = toAccountRecord(found.Item);
    return volumes ? { account, volumes } : { account };
  }

  private async volumesOf(table: string, ledger: string, address: string): Promise<AccountVolumes> {
    const volumes: AccountVolumes = {};
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :v)',
          ExpressionAttributeValues: { ':p': ledgerKeys.accountPartition(ledger, address), ':v': 'V#' },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of (result.Items ?? []) as Record<string, unknown>[]) {
        const { asset, volume } = toAssetVolume(item);
        volumes[asset] = volume;
      }
      start = result.LastEvaluatedKey;
    } while (start);
    return volumes;
  }

  /**
   * One page of accounts by address ascending (gsi1), then, for `expand=volumes`, the page's volume items by
   * key. The filter and expansion travel in the cursor, so a cursor alone continues the listing.
   */
  async list(ledger: LedgerRecord, query: ListQuery, filter: AccountFilter | undefined, withVolumes: boolean): Promise<Page<AccountRead>> {
    if (query.cursor) checkCursorKey(query.cursor, ledger.name, filter);
    const table = this.tableFor(ledger.bucket);
    const carried = { ...(withVolumes ? { expand: 'volumes' } : {}) };
    const index = accountIndex(table, ledger.name, filter);
    if (!index.input) return { pageSize: query.pageSize, hasMore: false, data: [] };
    const listing = { input: index.input, keyAttributes: index.keyAttributes, list: accountListName(ledger.name), ascending: true, filters: { ...index.recorded, ...carried } };
    let page: Page<AccountRecord>;
    if (index.addressOf) {
      // An index of addresses (metadata, segments, balances): the page's accounts are then read by key.
      const addresses = await queryPage(this.doc, listing, query, index.addressOf);
      const items = await batchGetInOrder(this.doc, table, addresses.data.map((a) => ledgerKeys.account(ledger.name, a)));
      page = { ...addresses, data: items.filter((i): i is Record<string, unknown> => i !== undefined).map(toAccountRecord) };
    } else {
      page = await queryPage(this.doc, listing, query, toAccountRecord);
    }
    if (!withVolumes) return { ...page, data: page.data.map((account) => ({ account })) };
    const volumes = await readVolumes(this.doc, table, ledger.name, page.data);
    return { ...page, data: page.data.map((account) => ({ account, volumes: volumes.get(account.address)! })) };
  }

  /** Accounts matching a filter, counted by the index that serves it (Select COUNT: no items transferred). */
  async count(ledger: LedgerRecord, filter: AccountFilter): Promise<number> {
    const table = this.tableFor(ledger.bucket);
    const { input } = accountIndex(table, ledger.name, filter);
    if (!input) return 0;
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(new QueryCommand({ ...input, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }));
      count += result.Count ?? 0;
      start = result.LastEvaluatedKey;
    } while (start);
    return count;
  }

  balances(ledger: LedgerRecord, filter: AddressFilter | SegmentFilter | undefined): Promise<Map<string, bigint>> {
    return aggregateBalances(this.doc, this.tableFor(ledger.bucket), ledger.name, filter);
  }
}

/**
 * The key range serving an account filter: gsi1 by address (none, an address or a prefix), or an index of
 * addresses (metadata, segment, balance) whose items name the account (`addressOf`). No input: nothing matches.
 */
interface AccountIndex {
  input: QueryCommandInput | undefined;
  keyAttributes: string[];
  /** What the cursor records to rebuild the filter. */
  recorded: Record<string, string>;
  addressOf?: (item: Record<string, unknown>) => string;
}

function accountIndex(table: string, ledger: string, filter: AccountFilter | undefined): AccountIndex {
  const byAddress = (item: Record<string, unknown>) => String(item.address);
  const gsi = ['pk', 'sk', 'gsi1pk', 'gsi1sk'];
  if (filter && isMetadataFilter(filter)) {
    return { input: metadataIndexQuery(table, ledger, filter), keyAttributes: ['pk', 'sk'], recorded: { metadataKey: filter.metadata.key, metadataValue: filter.metadata.value }, addressOf: byAddress };
  }
  if (filter && isSegmentFilter(filter)) {
    return { input: segmentIndexQuery(table, ledger, filter), keyAttributes: ['pk', 'sk'], recorded: { segments: segmentPattern(filter) }, addressOf: byAddress };
  }
  if (filter && isBalanceFilter(filter)) {
    // Volume items by (asset, balance, address).
    return { input: balanceIndexQuery(table, ledger, filter), keyAttributes: gsi, recorded: { balance: balanceFilterText(filter) }, addressOf: (item: Record<string, unknown>) => String(item.account) };
  }
  return { input: accountIndexQuery(table, ledger, filter), keyAttributes: gsi, recorded: filter ? { address: filter.address } : {} };
}

/**
 * A cursor is opaque but not signed: its start key must be an account item of this ledger inside the
 * filter's range, or DynamoDB would refuse the query with an internal-looking error.
 */
function checkCursorKey(cursor: Cursor, ledger: string, filter: AccountFilter | undefined): void {
  const { k } = cursor;
  if (filter && isMetadataFilter(filter)) {
    const address = k.sk ?? '';
    const valid = Object.keys(k).length === 2 && k.pk === ledgerKeys.accountMetadataPartition(ledger, filter.metadata.key, filter.metadata.value) && ACCOUNT_ADDRESS.test(address);
    if (!valid) throw new ValidationError('cursor: not a cursor of this list');
    return;
  }
  if (filter && isSegmentFilter(filter)) {
    const address = k.sk ?? '';
    const valid = Object.keys(k).length === 2 && k.pk === segmentPartition(ledger, filter) && ACCOUNT_ADDRESS.test(address);
    if (!valid) throw new ValidationError('cursor: not a cursor of this list');
    return;
  }
  if (filter && isBalanceFilter(filter)) {
    const sort = k.gsi1sk ?? '';
    const address = sort.slice(sort.indexOf('#') + 1);
    const range = balanceRange(filter);
    const valid =
      Object.keys(k).length === 4 &&
      range !== undefined &&
      k.gsi1pk === ledgerKeys.balancesByAsset(ledger, filter.balance.asset) &&
      k.pk === ledgerKeys.accountPartition(ledger, address) &&
      k.sk === `V#${filter.balance.asset}` &&
      sort === ledgerKeys.balanceSort(BigInt(balanceOfSort(sort)), address) &&
      (range.lower === undefined || sort >= range.lower) &&
      (range.upper === undefined || sort <= range.upper);
    if (!valid) throw new ValidationError('cursor: not a cursor of this list');
    return;
  }
  const address = k.gsi1sk ?? '';
  const inRange = !filter || (filter.prefix ? address.startsWith(filter.address) : address === filter.address);
  const valid =
    Object.keys(k).length === 4 &&
    k.gsi1pk === ledgerKeys.accountList(ledger) &&
    k.pk === ledgerKeys.accountPartition(ledger, address) &&
    k.sk === 'A' &&
    inRange;
  if (!valid) throw new ValidationError('cursor: not a cursor of this list');
}

function metadataIndexQuery(table: string, ledger: string, filter: MetadataFilter) {
  return {
    TableName: table,
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': ledgerKeys.accountMetadataPartition(ledger, filter.metadata.key, filter.metadata.value) },
    ConsistentRead: true,
  };
}

/** gsi1 sort-key bounds of a balance filter (inclusive); undefined when no balance can match (min > max). */
function balanceRange(filter: BalanceFilter): { lower?: string; upper?: string } | undefined {
  const { min, max } = filter.balance;
  if (min !== undefined && max !== undefined && min > max) return undefined;
  // `~` sorts after every address character, so `<balance>#~` is above every key of that balance.
  return { ...(min !== undefined ? { lower: sortableBalance(min) } : {}), ...(max !== undefined ? { upper: `${sortableBalance(max)}#~` } : {}) };
}

/** The gsi1 query of a balance filter, or undefined when nothing can match. */
function balanceIndexQuery(table: string, ledger: string, filter: BalanceFilter) {
  const range = balanceRange(filter);
  if (!range) return undefined;
  const condition =
    range.lower !== undefined && range.upper !== undefined ? ' AND gsi1sk BETWEEN :lo AND :hi' : range.lower !== undefined ? ' AND gsi1sk >= :lo' : range.upper !== undefined ? ' AND gsi1sk <= :hi' : '';
  return {
    TableName: table,
    IndexName: 'gsi1',
    KeyConditionExpression: `gsi1pk = :p${condition}`,
    ExpressionAttributeValues: {
      ':p': ledgerKeys.balancesByAsset(ledger, filter.balance.asset),
      ...(range.lower !== undefined ? { ':lo': range.lower } : {}),
      ...(range.upper !== undefined ? { ':hi': range.upper } : {}),
    },
  };
}

/** A balance filter as cursor text, and back (bounds as decimal strings: exact). */
export function balanceFilterText(filter: BalanceFilter): string {
  const { asset, min, max } = filter.balance;
  return JSON.stringify({ asset, ...(min !== undefined ? { min: String(min) } : {}), ...(max !== undefined ? { max: String(max) } : {}) });
}

export function balanceFilterFromText(text: string): BalanceFilter {
  try {
    const { asset, min, max } = JSON.parse(text) as { asset: string; min?: string; max?: string };
    return { balance: { asset: String(asset), ...(min !== undefined ? { min: BigInt(min) } : {}), ...(max !== undefined ? { max: BigInt(max) } : {}) } };
  } catch {
    throw new ValidationError('cursor: not a cursor of this list');
  }
}

/** The balance a sort key encodes (the inverse of sortableBalance), for checking a cursor's key. */
function balanceOfSort(sort: string): string {
  const digits = sort.slice(1, 39);
  if (!/^\d{38}$/.test(digits)) return '0';
  return sort[0] === 'N' ? String(BigInt(digits) - 10n ** 38n) : String(BigInt(digits));
}

/** A segment filter as the pattern text it came from (`users::eur`), for cursors. */
export function segmentPattern(filter: SegmentFilter): string {
  return filter.segments.map((s) => s ?? '').join(':');
}
