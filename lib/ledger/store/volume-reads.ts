import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { AccountRecord } from '../domain/account.js';
import type { AddressFilter } from '../domain/account-filter.js';
import { groupOf, type VolumeCandidate } from '../domain/query/volume-query.js';
import { accountIndexQuery, readVolumes, toAccountRecord } from './account-items.js';
import { insertionCut } from './insertion-cut.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { movesInRange } from './moves-in-range.js';
import { PointInTimeVolumes } from './point-in-time-volumes.js';
import type { LedgerRecord } from './registry.js';
import { LedgerStats } from './stats.js';

export interface VolumeRow {
  account: string;
  asset: string;
  input: bigint;
  output: bigint;
  balance: bigint;
}

/**
 * A window, as sortable instants, both ends inclusive (the reference's `startTime` and `endTime`): on effective time,
 * or on insertion time (the reference's `insertionDate`).
 */
export interface Window {
  from?: string;
  to?: string;
  clock?: 'effective' | 'insertion';
}

/** What a volumes listing keeps (domain/query/volume-query.ts) and how it groups addresses. */
export interface VolumeOptions {
  keep?: (row: VolumeCandidate) => boolean;
  groupBy?: number;
}

/** Past every instant: an open end's page nearest by effective time is the pair's last. */
const END_OF_TIME = '9999-12-31T23:59:59.999999Z';

/**
 * GET /v2/<ledger>/volumes: one row per (account, asset), paged by account (address ascending, gsi1). Without
 * a window, the current volume items. With one (MOVES_HISTORY), the sum of the pair's moves in it: by effective
 * time, the moves whose key falls in it — one Query per pair over its own key range, so the cost is bounded by
 * the page; by insertion time, the moves of the transactions inserted in it, which are the ids between two cuts
 * (insertion-cut.ts), so the pair's volumes after its last move by the end less those after its last move
 * before the start (point-in-time-volumes.ts). Pairs that did not move in the window are left out, so a page
 * can hold fewer rows than accounts.
 */
export class VolumeReads {
  private readonly pointInTime: PointInTimeVolumes;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {
    this.pointInTime = new PointInTimeVolumes(doc, tableFor);
  }

  async list(
    ledger: LedgerRecord,
    query: ListQuery,
    filter: AddressFilter | undefined,
    window: Window | undefined,
    recorded: Record<string, string>,
    options: VolumeOptions = {},
  ): Promise<Page<VolumeRow>> {
    const table = this.tableFor(ledger.bucket);
    const page = await queryPage(
      this.doc,
      {
        input: accountIndexQuery(table, ledger, filter),
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: `ledger.volumes.${ledger.name}`,
        ascending: true,
        filters: recorded,
      },
      query,
      toAccountRecord,
    );
    const rowsOf = async (accounts: AccountRecord[]) => {
      const rows = !window
        ? await this.currentRows(table, ledger, accounts)
        : window.clock === 'insertion'
          ? await this.insertedRows(ledger, accounts, window)
          : await this.windowRows(table, ledger, accounts, window);
      if (!options.keep) return rows;
      const byAddress = new Map(accounts.map((a) => [a.address, a]));
      // Rows the query leaves out (a page may then hold fewer rows than accounts, as with a window).
      return rows.filter((r) =>
        options.keep!({ account: byAddress.get(r.account)!, asset: r.asset, balance: r.balance }),
      );
    };
    if (options.groupBy === undefined) return { ...page, data: await rowsOf(page.data) };
    const previous = query.cursor?.k.gsi1sk;
    return {
      ...page,
      data: await this.groupedRows(
        table,
        ledger,
        page.data,
        previous,
        filter,
        options.groupBy,
        rowsOf,
      ),
    };
  }

  /**
   * `groupBy`: rows summed per group of addresses sharing their first `level` segments (a group is the address
   * `g` and every `g:...`). Addresses of a group are not contiguous by address (`g-x` and `g0` sort between `g`
   * and `g:`), so a group is summed whole when the listing reaches its first member: `g` itself, or the first
   * `g:...` address when `g` is not listed; later members add nothing. A page then reads its groups whole.
   */
  private async groupedRows(
    table: string,
    ledger: LedgerRef,
    accounts: AccountRecord[],
    previous: string | undefined,
    filter: AddressFilter | undefined,
    level: number,
    rowsOf: (accounts: AccountRecord[]) => Promise<VolumeRow[]>,
  ): Promise<VolumeRow[]> {
    const rows: VolumeRow[] = [];
    let before = previous;
    for (const account of accounts) {
      const group = groupOf(account.address, level);
      const prior = before;
      before = account.address;
      const inRange = (address: string) =>
        !filter ||
        (filter.prefix ? address.startsWith(filter.address) : address === filter.address);
      if (account.address !== group) {
        // A `g:...` address: the group was summed already if `g` or an earlier `g:...` was listed.
        if (prior?.startsWith(`${group}:`)) continue;
        if (inRange(group) && (await this.accountExists(table, ledger, group))) continue;
      }
      const members = await this.groupMembers(table, ledger, group, filter, account);
      const sums = new Map<string, VolumeRow>();
      for (const row of await rowsOf(members)) {
        const sum = sums.get(row.asset) ?? {
          account: group,
          asset: row.asset,
          input: 0n,
          output: 0n,
          balance: 0n,
        };
        sum.input += row.input;
        sum.output += row.output;
        sum.balance += row.balance;
        sums.set(row.asset, sum);
      }
      rows.push(...[...sums.values()].sort((x, y) => x.asset.localeCompare(y.asset)));
    }
    return rows;
  }

  private async accountExists(table: string, ledger: LedgerRef, address: string): Promise<boolean> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: table,
        Key: ledgerKeys.account(ledger, address),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    return Item !== undefined;
  }

  /** The accounts of group `g` within the listing's address range: `g` (when listed) and every `g:...`. */
  private async groupMembers(
    table: string,
    ledger: LedgerRef,
    group: string,
    filter: AddressFilter | undefined,
    listed: AccountRecord,
  ): Promise<AccountRecord[]> {
    // One exact address listed: its group holds it alone.
    if (filter && !filter.prefix) return [listed];
    const below = `${group}:`;
    // The narrower of the group's prefix and the listing's: none when they are disjoint.
    const prefix = !filter
      ? below
      : filter.prefix
        ? filter.address.startsWith(below)
          ? filter.address
          : below.startsWith(filter.address)
            ? below
            : undefined
        : undefined;
    const members = listed.address === group ? [listed] : [];
    if (prefix === undefined) return members;
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          ...accountIndexQuery(table, ledger, { address: prefix, prefix: true }),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      members.push(...((result.Items ?? []) as Record<string, unknown>[]).map(toAccountRecord));
      start = result.LastEvaluatedKey;
    } while (start);
    return members;
  }

  private async insertedRows(
    ledger: LedgerRecord,
    accounts: AccountRecord[],
    window: Window,
  ): Promise<VolumeRow[]> {
    const pairs = accounts.flatMap((a) =>
      [...a.assets].sort().map((asset) => [a.address, asset] as const),
    );
    // The transactions inserted in [from, to] are the ids in (first, last].
    const [first, last] = await Promise.all([
      window.from !== undefined
        ? insertionCut(this.doc, this.tableFor, ledger, window.from, false)
        : 0,
      window.to !== undefined
        ? insertionCut(this.doc, this.tableFor, ledger, window.to, true)
        : new LedgerStats(this.doc, this.tableFor).read(ledger).then((s) => s.transactions),
    ]);
    const ends = await this.pointInTime.of(ledger, pairs, {
      clock: 'insertion',
      lastTxId: last,
      near: window.to ?? END_OF_TIME,
    });
    const moved = pairs.flatMap((pair, i) =>
      ends[i] && ends[i].txId! > first ? [{ pair, end: ends[i] }] : [],
    );
    const starts =
      first > 0
        ? await this.pointInTime.of(
            ledger,
            moved.map((m) => m.pair),
            { clock: 'insertion', lastTxId: first, near: window.from! },
          )
        : [];
    return moved.map(({ pair: [account, asset], end }, i) => {
      const input = end.input - (starts[i]?.input ?? 0n);
      const output = end.output - (starts[i]?.output ?? 0n);
      return { account, asset, input, output, balance: input - output };
    });
  }

  private async currentRows(
    table: string,
    ledger: LedgerRef,
    accounts: AccountRecord[],
  ): Promise<VolumeRow[]> {
    const volumes = await readVolumes(this.doc, table, ledger, accounts);
    return accounts.flatMap((a) =>
      Object.entries(volumes.get(a.address) ?? {})
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([asset, v]) => ({
          account: a.address,
          asset,
          input: v.input,
          output: v.output,
          balance: v.balance,
        })),
    );
  }

  private async windowRows(
    table: string,
    ledger: LedgerRef,
    accounts: AccountRecord[],
    window: Window,
  ): Promise<VolumeRow[]> {
    const pairs = accounts.flatMap((a) =>
      [...a.assets].sort().map((asset) => [a.address, asset] as const),
    );
    const volumes = await batchGetInOrder(
      this.doc,
      table,
      pairs.map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)),
    );
    const rows = await Promise.all(
      pairs.map(([account, asset], i) =>
        this.movedInWindow(table, ledger, account, asset, volumes[i], window),
      ),
    );
    return rows.filter((r): r is VolumeRow => r !== undefined);
  }

  private async movedInWindow(
    table: string,
    ledger: LedgerRef,
    account: string,
    asset: string,
    volume: Record<string, unknown> | undefined,
    window: Window,
  ): Promise<VolumeRow | undefined> {
    // Window bounds are bare times: `<from>` sorts before all moves at from, `<to>#~` after all at to — both
    // ends inclusive, as the reference's startTime and endTime.
    const moves = await movesInRange(this.doc, table, ledger, account, asset, volume, {
      ...(window.from ? { lower: { key: window.from, inclusive: true } } : {}),
      ...(window.to ? { upper: { key: `${window.to}#~`, inclusive: true } } : {}),
    });
    if (moves.length === 0) return undefined;
    const input = moves.reduce((sum, m) => sum + m.input, 0n);
    const output = moves.reduce((sum, m) => sum + m.output, 0n);
    return { account, asset, input, output, balance: input - output };
  }
}
