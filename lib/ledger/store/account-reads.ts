import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { boundedQueryPage } from '../../dynamo/bounded-page.js';
import { type PagedQuery, queryPage } from '../../dynamo/paginate.js';
import { ValidationError } from '../../errors/index.js';
import { LEDGER_MAX_AMOUNT } from '../../money/amounts.js';
import {
  type Cursor,
  decodeCursor,
  type ListQuery,
  MAX_PAGE_SIZE,
  type Page,
} from '../../pagination/cursor.js';
import {
  type AccountExpand,
  type AccountRecord,
  type AccountVolumes,
  addBalances,
} from '../domain/account.js';
import {
  type AccountFilter,
  type BalanceFilter,
  isAddressFilter,
  isBalanceFilter,
  isMetadataFilter,
  isSegmentFilter,
  type MetadataFilter,
  type SegmentFilter,
} from '../domain/account-filter.js';
import { ACCOUNT_ADDRESS } from '../domain/names.js';
import { atOrBefore } from '../domain/point-in-time.js';
import type { AccountCandidate, AccountPlan } from '../domain/query/account-query.js';
import {
  accountIndexQuery,
  readVolumes,
  segmentIndexQuery,
  segmentPartition,
  toAccountRecord,
  toAssetVolume,
} from './account-items.js';
import { balanceOfSortable, sortableBalance } from './amount-encoding.js';
import { aggregateBalances } from './balance-aggregate.js';
import { insertionCut } from './insertion-cut.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { accountsAtPointInTime, volumesAt } from './point-in-time-accounts.js';
import { PointInTimeVolumes, type VolumeCut } from './point-in-time-volumes.js';
import type { LedgerRecord } from './registry.js';

export interface AccountRead {
  account: AccountRecord;
  /** Present when volumes were asked for. */
  volumes?: AccountVolumes;
  /** Present when effective volumes were asked for. */
  effectiveVolumes?: AccountVolumes;
}

/**
 * What a read shows: the expansions, and a point in time (sortable) at which to show accounts (see
 * point-in-time-accounts.ts); `carried` are the request's own parameters a cursor must carry to go on.
 */
export interface AccountView {
  expand: AccountExpand;
  pit?: string;
  carried?: Record<string, string>;
  /** A condition no index served (domain/query/account-query.ts), judged on each account read. */
  keep?: (candidate: AccountCandidate) => boolean;
  /** Whether `keep` reads balances: the page's volumes are then read whatever `expand` says. */
  needsVolumes?: boolean;
}

/** Account items one page of a point-in-time listing reads at most (accounts first used later are left out). */
const PIT_READS = 1000;

export const accountListName = (ledger: string) => `ledger.accounts.${ledger}`;

/** Reads of accounts: by address (the account's partition) and listed by address (gsi1). */
export class AccountReads {
  private readonly pointInTime: PointInTimeVolumes;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
    /** Items a page reads at most when `keep` leaves some out (PlatformConfig.ledgerScanReads). */
    private readonly scanReads = 1000,
  ) {
    this.pointInTime = new PointInTimeVolumes(doc, tableFor);
  }

  /**
   * The account's `A` item (GetItem) and, when asked for, its `V#<asset>` volume items (a Query on the same
   * partition), both strongly consistent and in parallel. Not one Query over the whole partition: metadata
   * revisions (`MH#<log id>`, ACCOUNT_METADATA_HISTORY) sort between `A` and `V#` and grow without bound. At a
   * point in time, an account first used after it does not exist yet (as the reference: not found).
   */
  async get(
    ledger: LedgerRecord,
    address: string,
    view: AccountView,
  ): Promise<AccountRead | undefined> {
    const table = this.tableFor(ledger.bucket);
    const withVolumes =
      view.pit === undefined && (view.expand.volumes || view.expand.effectiveVolumes);
    const [found, volumes] = await Promise.all([
      this.doc.send(
        new GetCommand({
          TableName: table,
          Key: ledgerKeys.account(ledger, address),
          ConsistentRead: true,
        }),
      ),
      withVolumes ? this.volumesOf(table, ledger, address) : undefined,
    ]);
    if (!found.Item) return undefined;
    const account = toAccountRecord(found.Item);
    if (view.pit !== undefined) {
      if (!atOrBefore(account.firstUsage, view.pit)) return undefined;
      return (
        await accountsAtPointInTime(
          this.doc,
          this.tableFor,
          this.pointInTime,
          ledger,
          [account],
          view.pit,
          view.expand,
        )
      )[0];
    }
    // Without a point in time, an account's effective volumes (every move) are its volumes.
    return volumes ? { account, volumes, effectiveVolumes: volumes } : { account };
  }

  private async volumesOf(
    table: string,
    ledger: LedgerRef,
    address: string,
  ): Promise<AccountVolumes> {
    const volumes: AccountVolumes = {};
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :v)',
          ExpressionAttributeValues: {
            ':p': ledgerKeys.accountPartition(ledger, address),
            ':v': 'V#',
          },
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
   * key. The filter, expansion and point in time travel in the cursor, so a cursor alone continues the listing.
   * At a point in time, accounts first used after it are left out: on gsi1 by a filter on `firstUsageKey`
   * (reading at most PIT_READS items a page, which may then be short), from an index of addresses once read.
   */
  async list(
    ledger: LedgerRecord,
    query: ListQuery,
    filter: AccountFilter | undefined,
    view: AccountView,
  ): Promise<Page<AccountRead>> {
    if (query.cursor) checkCursorKey(query.cursor, ledger, filter);
    const { pit } = view;
    const table = this.tableFor(ledger.bucket);
    const index = accountIndex(table, ledger, filter);
    if (!index.input) return { pageSize: query.pageSize, hasMore: false, data: [] };
    const listing = {
      input: index.input,
      keyAttributes: index.keyAttributes,
      list: accountListName(ledger.name),
      ascending: true,
      filters: { ...index.recorded, ...view.carried },
    };
    const { keep } = view;
    // Judged on the item alone while listing by address: a page reads at most `scanReads` items, may be short.
    const keepWhileReading = keep && !view.needsVolumes && pit === undefined && !index.addressOf;
    const page = await this.accountPage(ledger, table, index, listing, query, {
      pit,
      keepWhileReading: keepWhileReading ? keep : undefined,
    });
    const reads = await this.expanded(ledger, table, page.data, view);
    // Otherwise judged once read (at a point in time, as the accounts stood then): the page may be short.
    return {
      ...page,
      data:
        keep && !keepWhileReading
          ? reads.filter((r) =>
              keep({ account: r.account, ...(r.volumes ? { volumes: r.volumes } : {}) }),
            )
          : reads,
    };
  }

  /**
   * The page of account items, read the listing's way: through an index of addresses (then by key), on gsi1 with
   * the point in time as a filter, on gsi1 keeping what `keepWhileReading` keeps, or a plain page.
   */
  private async accountPage(
    ledger: LedgerRecord,
    table: string,
    index: ReturnType<typeof accountIndex>,
    listing: PagedQuery,
    query: ListQuery,
    reading: { pit: string | undefined; keepWhileReading: AccountView['keep'] },
  ): Promise<Page<AccountRecord>> {
    const { pit, keepWhileReading } = reading;
    if (index.addressOf) {
      // An index of addresses (metadata, segments, balances): the page's accounts are then read by key.
      const usedBy = (account: AccountRecord) =>
        pit === undefined || atOrBefore(account.firstUsage, pit);
      const addresses = await queryPage(this.doc, listing, query, index.addressOf);
      const items = await batchGetInOrder(
        this.doc,
        table,
        addresses.data.map((a) => ledgerKeys.account(ledger, a)),
      );
      return {
        ...addresses,
        data: items
          .filter((i): i is Record<string, unknown> => i !== undefined)
          .map(toAccountRecord)
          .filter(usedBy),
      };
    }
    if (pit !== undefined) {
      const input = listing.input;
      return boundedQueryPage(
        this.doc,
        {
          ...listing,
          input: {
            ...input,
            FilterExpression: 'firstUsageKey <= :pit',
            ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':pit': pit },
          },
          readBudget: PIT_READS,
        },
        query,
        toAccountRecord,
      );
    }
    if (keepWhileReading) {
      return boundedQueryPage(
        this.doc,
        {
          ...listing,
          readBudget: this.scanReads,
          keep: (item) => keepWhileReading({ account: toAccountRecord(item) }),
        },
        query,
        toAccountRecord,
      );
    }
    return queryPage(this.doc, listing, query, toAccountRecord);
  }

  /** The page's accounts with what the view asks for: at a point in time, or with their current volumes. */
  private async expanded(
    ledger: LedgerRecord,
    table: string,
    accounts: AccountRecord[],
    view: AccountView,
  ): Promise<AccountRead[]> {
    if (view.pit !== undefined)
      return accountsAtPointInTime(
        this.doc,
        this.tableFor,
        this.pointInTime,
        ledger,
        accounts,
        view.pit,
        view.expand,
      );
    if (!view.expand.volumes && !view.expand.effectiveVolumes && !view.needsVolumes)
      return accounts.map((account) => ({ account }));
    const volumes = await readVolumes(this.doc, table, ledger, accounts);
    return accounts.map((account) => ({
      account,
      volumes: volumes.get(account.address)!,
      effectiveVolumes: volumes.get(account.address)!,
    }));
  }

  /**
   * What the same listing holds, its pages counted: at a point in time (accounts first used later are read to be
   * left out) or with a condition judged in memory, no index count answers.
   */
  async countListed(
    ledger: LedgerRecord,
    filter: AccountFilter | undefined,
    view: Omit<AccountView, 'expand' | 'carried'>,
  ): Promise<number> {
    let total = 0;
    let cursor: Cursor | undefined;
    do {
      const page = await this.list(
        ledger,
        { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        filter,
        { ...view, expand: { volumes: false, effectiveVolumes: false } },
      );
      total += page.data.length;
      cursor = page.next ? decodeCursor(page.next, accountListName(ledger.name)) : undefined;
    } while (cursor);
    return total;
  }

  /** Accounts matching a filter, counted by the index that serves it (Select COUNT: no items transferred). */
  async count(ledger: LedgerRecord, filter: AccountFilter): Promise<number> {
    const table = this.tableFor(ledger.bucket);
    const { input } = accountIndex(table, ledger, filter);
    if (!input) return 0;
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          ...input,
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += result.Count ?? 0;
      start = result.LastEvaluatedKey;
    } while (start);
    return count;
  }

  /**
   * Aggregated balances; at a point in time, of the volumes then on one clock (`insertion` with the reference's
   * `useInsertionDate`, else effective time): every matching account's assets with a move by then.
   */
  async balances(
    ledger: LedgerRecord,
    plan: AccountPlan,
    at?: { pit: string; clock: 'effective' | 'insertion' },
  ): Promise<Map<string, bigint>> {
    const table = this.tableFor(ledger.bucket);
    // The insertion cut is found once, before the first page.
    const cut: VolumeCut | undefined =
      at === undefined
        ? undefined
        : at.clock === 'effective'
          ? { clock: 'effective', at: at.pit }
          : {
              clock: 'insertion',
              lastTxId: await insertionCut(this.doc, this.tableFor, ledger, at.pit),
              near: at.pit,
            };
    const volumesOf = (accounts: AccountRecord[]) =>
      cut
        ? volumesAt(this.pointInTime, ledger, accounts, cut)
        : readVolumes(this.doc, table, ledger, accounts);
    const { access, keep } = plan;
    // An address, a prefix or a segment pattern alone: straight off its index.
    if (!keep && (access === undefined || isAddressFilter(access) || isSegmentFilter(access)))
      return aggregateBalances(this.doc, table, ledger, access, volumesOf);
    // Any other query: the accounts the same listing holds (its index, then its condition), page by page.
    const sums = new Map<string, bigint>();
    let cursor: Cursor | undefined;
    do {
      const page = await this.list(
        ledger,
        { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        access,
        {
          expand: { volumes: false, effectiveVolumes: false },
          ...(at ? { pit: at.pit } : {}),
          ...(keep ? { keep } : {}),
          ...(plan.needsVolumes ? { needsVolumes: true } : {}),
        },
      );
      const volumes = await volumesOf(page.data.map((r) => r.account));
      for (const byAsset of volumes.values())
        addBalances(
          sums,
          Object.entries(byAsset).map(([asset, v]) => ({ asset, balance: v.balance })),
        );
      cursor = page.next ? decodeCursor(page.next, accountListName(ledger.name)) : undefined;
    } while (cursor);
    return sums;
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

function accountIndex(
  table: string,
  ledger: LedgerRef,
  filter: AccountFilter | undefined,
): AccountIndex {
  const byAddress = (item: Record<string, unknown>) => String(item.address);
  const gsi = ['pk', 'sk', 'gsi1pk', 'gsi1sk'];
  if (filter && isMetadataFilter(filter)) {
    return {
      input: metadataIndexQuery(table, ledger, filter),
      keyAttributes: ['pk', 'sk'],
      recorded: { metadataKey: filter.metadata.key, metadataValue: filter.metadata.value },
      addressOf: byAddress,
    };
  }
  if (filter && isSegmentFilter(filter)) {
    return {
      input: segmentIndexQuery(table, ledger, filter),
      keyAttributes: ['pk', 'sk'],
      recorded: { segments: segmentPattern(filter) },
      addressOf: byAddress,
    };
  }
  if (filter && isBalanceFilter(filter)) {
    // Volume items by (asset, balance, address).
    return {
      input: balanceIndexQuery(table, ledger, filter),
      keyAttributes: gsi,
      recorded: { balance: balanceFilterText(filter) },
      addressOf: (item: Record<string, unknown>) => String(item.account),
    };
  }
  return {
    input: accountIndexQuery(table, ledger, filter),
    keyAttributes: gsi,
    recorded: filter ? { address: filter.address } : {},
  };
}

/**
 * A cursor is opaque but not signed: its start key must be an account item of this ledger inside the
 * filter's range, or DynamoDB would refuse the query with an internal-looking error.
 */
function checkCursorKey(
  cursor: Cursor,
  ledger: LedgerRef,
  filter: AccountFilter | undefined,
): void {
  const { k } = cursor;
  if (filter && isMetadataFilter(filter)) {
    const address = k.sk ?? '';
    const valid =
      Object.keys(k).length === 2 &&
      k.pk ===
        ledgerKeys.accountMetadataPartition(ledger, filter.metadata.key, filter.metadata.value) &&
      ACCOUNT_ADDRESS.test(address);
    if (!valid) throw new ValidationError('cursor: not a cursor of this list');
    return;
  }
  if (filter && isSegmentFilter(filter)) {
    const address = k.sk ?? '';
    const valid =
      Object.keys(k).length === 2 &&
      k.pk === segmentPartition(ledger, filter) &&
      ACCOUNT_ADDRESS.test(address);
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
      sort === ledgerKeys.balanceSort(balanceOfSortable(sort.split('#')[0]!) ?? 0n, address) &&
      (range.lower === undefined || sort >= range.lower) &&
      (range.upper === undefined || sort <= range.upper);
    if (!valid) throw new ValidationError('cursor: not a cursor of this list');
    return;
  }
  const address = k.gsi1sk ?? '';
  const inRange =
    !filter || (filter.prefix ? address.startsWith(filter.address) : address === filter.address);
  const valid =
    Object.keys(k).length === 4 &&
    k.gsi1pk === ledgerKeys.accountList(ledger) &&
    k.pk === ledgerKeys.accountPartition(ledger, address) &&
    k.sk === 'A' &&
    inRange;
  if (!valid) throw new ValidationError('cursor: not a cursor of this list');
}

function metadataIndexQuery(table: string, ledger: LedgerRef, filter: MetadataFilter) {
  return {
    TableName: table,
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: {
      ':p': ledgerKeys.accountMetadataPartition(ledger, filter.metadata.key, filter.metadata.value),
    },
    ConsistentRead: true,
  };
}

/** gsi1 sort-key bounds of a balance filter (inclusive); undefined when no balance can match (min > max). */
function balanceRange(filter: BalanceFilter): { lower?: string; upper?: string } | undefined {
  const { min, max } = filter.balance;
  if (min !== undefined && max !== undefined && min > max) return undefined;
  // An operand beyond every balance a volume can hold bounds as the first value past them (its key stays short).
  const clamp = (b: bigint) => (b > BEYOND ? BEYOND : b < -BEYOND ? -BEYOND : b);
  // `~` sorts after every address character, so `<balance>#~` is above every key of that balance.
  return {
    ...(min !== undefined ? { lower: sortableBalance(clamp(min)) } : {}),
    ...(max !== undefined ? { upper: `${sortableBalance(clamp(max))}#~` } : {}),
  };
}
const BEYOND = LEDGER_MAX_AMOUNT + 1n;

/** The gsi1 query of a balance filter, or undefined when nothing can match. */
function balanceIndexQuery(table: string, ledger: LedgerRef, filter: BalanceFilter) {
  const range = balanceRange(filter);
  if (!range) return undefined;
  const condition =
    range.lower !== undefined && range.upper !== undefined
      ? ' AND gsi1sk BETWEEN :lo AND :hi'
      : range.lower !== undefined
        ? ' AND gsi1sk >= :lo'
        : range.upper !== undefined
          ? ' AND gsi1sk <= :hi'
          : '';
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

/** A balance filter as cursor text (bounds as decimal strings: exact). */
export function balanceFilterText(filter: BalanceFilter): string {
  const { asset, min, max } = filter.balance;
  return JSON.stringify({
    asset,
    ...(min !== undefined ? { min: String(min) } : {}),
    ...(max !== undefined ? { max: String(max) } : {}),
  });
}

/** A segment filter as the pattern text it came from (`users::eur`), for cursors. */
export function segmentPattern(filter: SegmentFilter): string {
  return filter.segments.map((s) => s ?? '').join(':');
}
